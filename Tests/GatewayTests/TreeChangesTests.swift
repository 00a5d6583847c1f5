import Foundation
import Gateway
import GatewayTesting
import JSON
import MosquittoTesting
import Testing

@Suite("The accessory tree's changes reach the front ends in the process", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct TreeChangesTests {
    @Test("each step that changes the tree (or a room) raises the generation once, heard by a subscriber; a value change does not")
    func oncePerStep() async throws {
        let house = try await House(startGateway: false)
        defer { house.stop() }
        let gateway = try InProcessGateway(house: house, clock: ManualClock(amsterdam(20, 0)))
        defer { Task { await gateway.stop() } }
        try await house.settled()
        try await house.barrier()
        let access = gateway.gateway.access
        var heard = access.treeChanges.subscribe().makeAsyncIterator()
        let start = access.treeChanges.generation
        let r = house.recorder

        // A rename: one step, with MQTT's tree message, raised before the answer (which waits for the store).
        var mark = r.mark
        #expect(await access.perform(.accessories(.rename("bulb", to: "Desk Lamp"))).error == nil)
        #expect(await heard.next() == start + 1)
        #expect(access.treeChanges.generation == start + 1)
        try await r.wait(for: "homegate/accessories", after: mark) {
            $0["accessories"]?.arrayValue?.contains { $0["id"] == "bulb" && $0["name"] == "Desk Lamp" } == true
        }

        // A room: no tree message, but a selector by room may select other accessories now.
        #expect(await access.perform(.structure(.addRoom(name: "Attic", home: nil))).error == nil)
        #expect(await heard.next() == start + 2)

        // A value: no change of the tree.
        mark = r.mark
        let write = WriteRequest(accessory: "bulb", service: "lightbulb", characteristic: "brightness", value: 42)
        #expect(await access.perform(.values(.write([write]))).error == nil)
        try await r.wait(for: "homegate/event/bulb/lightbulb/brightness", after: mark) { $0["value"] == 42 }
        #expect(access.treeChanges.generation == start + 2)

        // The next change is heard as the next generation: the write raised nothing in between.
        #expect(await access.perform(.accessories(.rename("bulb", to: nil))).error == nil)
        #expect(await heard.next() == start + 3)
        await gateway.stop()
    }
}

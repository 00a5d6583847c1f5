import Foundation
import Gateway
import HomeModel
import JSON
import Persistence
import Testing

@Suite("Services renamed (a tile in the Home app): kept, announced, shown, and surviving a restart")
struct ServiceRenameTests {
    func serviceNames(_ home: TestHome, _ id: String) -> [String: String?] {
        Dictionary(uniqueKeysWithValues: (home.core.accessory(id)?.services ?? []).map { ($0.id, $0.name) })
    }

    @Test("the demo's two-gang switch names its services by endpoint, after the accessory's name in the home")
    func endpointNamesFollowTheAccessory() throws {
        var home = try TestHome()
        #expect(serviceNames(home, "kitchen_wall_switch")["switch_l2"] == "kitchen_wall_switch l2")
        _ = try home.ok(.accessories(.rename("kitchen_wall_switch", to: "Kitchen switch")))
        #expect(serviceNames(home, "kitchen_wall_switch")["switch_l2"] == "Kitchen switch l2")
    }

    @Test("a rename is the service's name, stored with the accessory, announced as service_renamed; nil gives the mapping's back")
    func renameAndReset() throws {
        var home = try TestHome()
        let result = try home.ok(.accessories(.renameService("kitchen_wall_switch", service: "switch_l1", to: " Counter lights ")))
        guard case .serviceName("kitchen_wall_switch", "switch_l1", "Counter lights") = result else {
            Issue.record("not the service's name: \(result)")
            return
        }
        #expect(serviceNames(home, "kitchen_wall_switch")["switch_l1"] == "Counter lights")
        #expect(home.stored.placements["kitchen_wall_switch"]?.serviceNames == ["switch_l1": "Counter lights"])
        let event = try #require(
            home.events.compactMap { event -> AccessoryPlacementState? in
                if case .accessory("kitchen_wall_switch", .serviceRenamed, let state) = event { state } else { nil }
            }.first)
        #expect(event.service?.id == "switch_l1" && event.service?.name == "Counter lights")
        let json = try #require(
            home.effects.compactMap { effect -> JSONValue? in
                guard case .event(let event) = effect, case .accessory = event else { return nil }
                return try? JSONValue(parsing: HomeJSON.eventPayload(event, time: "2026-12-04T00:00:00Z"))
            }.first)
        #expect(json["change"] == "service_renamed" && json["service"] == "switch_l1" && json["service_name"] == "Counter lights")

        _ = try home.ok(.accessories(.renameService("kitchen_wall_switch", service: "switch_l1", to: nil)))
        #expect(serviceNames(home, "kitchen_wall_switch")["switch_l1"] == "kitchen_wall_switch l1")
        #expect(home.stored.placements["kitchen_wall_switch"]?.serviceNames == [:])
    }

    @Test("a rename is refused for an unknown service (with a did-you-mean), a bad name, an unknown accessory")
    func refusals() throws {
        var home = try TestHome()
        let unknown = try home.refused(.accessories(.renameService("kitchen_wall_switch", service: "switch_l3", to: "X")))
        #expect(unknown.kind == .notFound && unknown.field == "service" && unknown.message.contains("switch_l1"))
        #expect(try home.refused(.accessories(.renameService("kitchen_wall_switch", service: "switch_l1", to: "  "))).kind == .invalid)
        #expect(try home.refused(.accessories(.renameService("nowhere", service: "switch", to: "X"))).kind == .notFound)
    }

    @Test("the name survives a restart through the database and a device list published again")
    func survivesRestart() async throws {
        var home = try TestHome()
        _ = try home.ok(.accessories(.renameService("kitchen_wall_switch", service: "switch_l2", to: "Island")))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-tiles-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        let store = try SQLiteHomeStore(path: file)
        try await store.write(home.stored)
        let loaded = try store.load()
        store.close()
        #expect(loaded?.structure.placements["kitchen_wall_switch"]?.serviceNames == ["switch_l2": "Island"])

        var again = try TestHome(stored: loaded)
        #expect(serviceNames(again, "kitchen_wall_switch")["switch_l2"] == "Island")
        again.step(again.core.handle(again.sources.read("zigbee2mqtt/bridge/devices", try TestHome.demoDeviceBytes()), now: again.now))
        #expect(serviceNames(again, "kitchen_wall_switch")["switch_l2"] == "Island")
    }

    @Test("the request codec reads accessory/rename_service, name optional")
    func codec() throws {
        let command = try HomeCommand.parse(
            "accessory/rename_service", ["accessory": "kitchen_wall_switch", "service": "switch_l1", "name": "Left"], timeZone: .current)
        guard case .accessories(.renameService("kitchen_wall_switch", service: "switch_l1", to: "Left")) = command else {
            Issue.record("not a service rename: \(command)")
            return
        }
        #expect(throws: HomeError.self) { try HomeCommand.parse("accessory/rename_service", ["accessory": "a", "nmae": "x"], timeZone: .current) }
    }
}

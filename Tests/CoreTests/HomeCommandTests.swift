import Automation
import Foundation
import Gateway
import HomeModel
import JSON
import Testing

@Suite("Commands by domain: what each request becomes, and which wait for the store")
struct HomeCommandTests {
    @Test("reads, writes to devices, lists and runs are answered at once; what changes the home waits for its commit")
    func changesHome() throws {
        let answeredAtOnce: [HomeCommand] = [
            .values(.tree), .values(.write([])), .values(.read(CharacteristicPath(accessory: "a", service: "s", characteristic: "c"))),
            .structure(.listHomes), .structure(.listRooms(home: nil)), .structure(.listZones(home: nil)),
            .actionSets(.list(home: nil, page: .all)), .actionSets(.execute("evening", home: nil)),
            .triggers(.list(home: nil, page: .all)),
        ]
        let stored: [HomeCommand] = [
            .structure(.addHome(name: "Cabin")), .structure(.removeRoom("attic", home: nil)),
            .structure(.addRoomToZone(zone: "upstairs", room: "attic", home: nil)),
            .accessories(.assignRoom(accessory: "bulb", room: "attic", home: nil)), .accessories(.rename("bulb", to: nil)),
            .actionSets(.add(name: "Evening", home: nil, actions: [])), .actionSets(.remove("evening", home: nil)),
            .triggers(.enable("motion", home: nil, enabled: false)), .triggers(.remove("motion", home: nil)),
        ]
        #expect(answeredAtOnce.allSatisfy { !$0.changesHome })
        #expect(stored.allSatisfy { $0.changesHome })
    }

    @Test("a request's name and JSON become the command of its domain")
    func parsedByDomain() throws {
        func parse(_ name: String, _ body: JSONValue) throws(HomeError) -> HomeCommand { try HomeCommand.parse(name, body, timeZone: .gmt) }
        guard case .values(.read(let path)) = try parse("characteristic/read", ["characteristic": "bulb/lightbulb/on"]) else {
            Issue.record("not a read")
            return
        }
        #expect(path.description == "bulb/lightbulb/on")
        guard case .structure(.renameRoom("attic", to: "Loft", home: nil)) = try parse("room/rename", ["room": "attic", "name": "Loft"])
        else { Issue.record("not a room rename"); return }
        guard case .accessories(.rename("bulb", to: nil)) = try parse("accessory/rename", ["accessory": "bulb"]) else {
            Issue.record("not an accessory rename")
            return
        }
        guard
            case .actionSets(.execute("evening", home: "cabin")) = try parse(
                "action_set/execute", ["action_set": "evening", "home": "cabin"])
        else { Issue.record("not a run"); return }
        guard
            case .triggers(.enable("motion", home: nil, enabled: false)) = try parse(
                "trigger/enable", ["trigger": "motion", "enabled": false])
        else { Issue.record("not a trigger/enable"); return }
        for name in HomeCommand.names {
            do {
                _ = try parse(name, [:])
            } catch {
                #expect(error.kind != .notFound || !error.message.contains("unknown command"), "\(name): \(error.message)")
            }
        }
    }
}

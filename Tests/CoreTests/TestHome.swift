import Automation
import Foundation
import Gateway
import HomeModel
import JSON
import Mappings
import Persistence
import Testing

/// The core alone, over the demo's Zigbee2MQTT devices, driven with typed commands and device
/// messages, on a clock the test moves: no broker, no process, no sleep.
struct TestHome {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    var core: HomeCore
    /// Reads device messages as the gateway's device side does.
    let sources: DeviceSources
    var now = TestHome.start
    var lastTicket: UInt64 = 0
    /// Everything the last step produced, in order: what went out at once, then what waited for the store.
    var effects: [CoreEffect] = []
    var stored = StoreBatch()

    init(stored home: StoredHome? = nil) throws {
        var mappings = MappingSet()
        #expect(mappings.add(file: "zigbee2mqtt.yaml", text: "source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n").isEmpty)
        core = HomeCore(
            mappings: mappings, stored: home, clock: ClockContext(timeZone: TimeZone(identifier: "Europe/Amsterdam")!, location: nil),
            now: Self.start)
        sources = DeviceSources(mappings: mappings)
        device("zigbee2mqtt/bridge/state", ["state": "online"])
        step(core.handle(sources.read("zigbee2mqtt/bridge/devices", try Self.demoDeviceBytes()), now: now))
    }

    /// The demo's `bridge/devices`, as Zigbee2MQTT publishes it.
    static func demoDeviceBytes() throws -> [UInt8] {
        Array(try Data(contentsOf: repository.appendingPathComponent("demo/devices.json")))
    }

    /// The demo's device list, entry by entry, to change and publish again.
    static func demoDevices() throws -> [JSONValue] {
        try #require(try JSONValue(parsing: demoDeviceBytes()).arrayValue)
    }

    /// An entry of the demo's device list under another name and address: another device of its model.
    static func copy(of name: String, as newName: String, address: String) throws -> JSONValue {
        var fields = try #require(try demoDevices().first { $0["friendly_name"] == .string(name) }?.objectValue)
        fields["friendly_name"] = .string(newName)
        fields["ieee_address"] = .string(address)
        return .object(fields)
    }

    mutating func step(_ output: CoreOutput) {
        effects = output.first.map { .device($0) } + output.now + output.afterCommit
        stored.merge(output.store)
    }

    /// A device message, as Zigbee2MQTT publishes it.
    mutating func device(_ topic: String, _ payload: JSONValue) {
        step(core.handle(sources.read(topic, payload.serializedBytes()), now: now))
    }

    /// Runs a command and returns its reply (nil when the reply is still to come, as for a read).
    @discardableResult
    mutating func run(_ command: HomeCommand) -> Reply? {
        lastTicket += 1
        let ticket = Ticket(lastTicket)
        step(core.handle([.command(command, ticket)], now: now))
        return replies.first { $0.ticket == ticket }
    }

    /// Runs a command that must work, and returns its result.
    mutating func ok(_ command: HomeCommand, sourceLocation: SourceLocation = #_sourceLocation) throws -> HomeResult {
        let reply = try #require(run(command), sourceLocation: sourceLocation)
        #expect(reply.error == nil, "\(command): \(reply.error?.message ?? "")", sourceLocation: sourceLocation)
        return try #require(reply.result, sourceLocation: sourceLocation)
    }

    /// Runs a command that must be refused, and returns why.
    mutating func refused(_ command: HomeCommand, sourceLocation: SourceLocation = #_sourceLocation) throws -> HomeError {
        try #require(run(command)?.error, "\(command) was not refused", sourceLocation: sourceLocation)
    }

    mutating func advance(_ seconds: TimeInterval) {
        now += seconds
        step(core.tick(now: now))
    }

    var replies: [Reply] { effects.compactMap { if case .reply(let reply) = $0 { reply } else { nil } } }
    var events: [HomeEvent] { effects.compactMap { if case .event(let event) = $0 { event } else { nil } } }
    var changes: [CharacteristicChange] { events.compactMap { if case .characteristic(let change) = $0 { change } else { nil } } }
    /// Messages to devices: topic and JSON payload.
    var sent: [(topic: String, payload: JSONValue)] {
        effects.compactMap {
            guard case .device(let command) = $0 else { return nil }
            let message = DeviceSources.message(for: command)
            return (message.topic, (try? JSONValue(parsing: message.payload)) ?? .null)
        }
    }

    /// Writes to devices (`/get` requests left out).
    var sets: [(topic: String, payload: JSONValue)] { sent.filter { $0.topic.hasSuffix("/set") } }

    func value(_ path: String) -> CharacteristicValue? {
        let parts = path.split(separator: "/").map(String.init)
        return core.accessory(parts[0])?[parts[1]]?[parts[2]]?.value
    }

    static func path(_ text: String) -> CharacteristicPath {
        let parts = text.split(separator: "/").map(String.init)
        return CharacteristicPath(accessory: parts[0], service: parts[1], characteristic: parts[2])
    }

    static func write(_ path: String, _ value: JSONValue) -> WriteRequest {
        let parts = path.split(separator: "/").map(String.init)
        return WriteRequest(accessory: parts[0], service: parts[1], characteristic: parts[2], value: value)
    }
}

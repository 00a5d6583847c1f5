import ArgumentParser
import CMosquitto
import Glibc

/// The ingest ceiling's second reference: a gateway that does no work. For every message on
/// `<from>/<name>` it publishes what homegate publishes for a reading, an event and the retained
/// state, as payloads of the same sizes on `<events>/<name>` and `<states>/<name>`, from
/// libmosquitto's own callback. What it reaches is what the broker, the load and the subscriber
/// leave for any gateway on this machine; homegate's share of it is what its own work costs.
struct Relay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Republish each message on <from>/+ as an event and a retained state of the given sizes (a no-work gateway for `tail`).")

    @Option(help: "The broker's port on 127.0.0.1.") var port: Int32
    @Option(help: "Topic prefix of the readings: <from>/<name>.") var from: String
    @Option(help: "Topic prefix of the events: <events>/<name>.") var events: String
    @Option(help: "Topic prefix of the retained states: <states>/<name>.") var states: String
    @Option(name: .customLong("event-bytes"), help: "Bytes of each event's payload.") var eventBytes: Int
    @Option(name: .customLong("state-bytes"), help: "Bytes of each retained state's payload.") var stateBytes: Int

    func validate() throws {
        guard eventBytes > 0, stateBytes > 0 else { throw ValidationError("--event-bytes and --state-bytes must be positive") }
    }

    func run() throws {
        let route = RelayRoute(from: from, events: events, states: states, eventBytes: eventBytes, stateBytes: stateBytes)
        try BareClient(filter: route.filter) { mosq, message in
            guard let topic = message.pointee.topic else { return }
            route.relay(mosq, topic: topic)
        }.run(id: "bench-relay", port: port)
    }
}

/// Touched on libmosquitto's thread only, once connected.
final class RelayRoute {
    let filter: String
    private let fromLength: Int
    private let event: [UInt8]
    private let state: [UInt8]
    /// `<events>/` and `<states>/`, each with room for a name and its terminating zero.
    private var eventTopic: [CChar]
    private var stateTopic: [CChar]
    private let eventPrefix: Int
    private let statePrefix: Int

    init(from: String, events: String, states: String, eventBytes: Int, stateBytes: Int) {
        filter = from + "/+"
        fromLength = from.utf8.count + 1
        event = [UInt8](repeating: UInt8(ascii: "e"), count: eventBytes)
        state = [UInt8](repeating: UInt8(ascii: "s"), count: stateBytes)
        eventPrefix = events.utf8.count + 1
        statePrefix = states.utf8.count + 1
        eventTopic = (events + "/").utf8CString.dropLast() + [CChar](repeating: 0, count: 256)
        stateTopic = (states + "/").utf8CString.dropLast() + [CChar](repeating: 0, count: 256)
    }

    /// The name after `<from>/`, copied behind each prefix; nothing but two publishes.
    func relay(_ mosq: OpaquePointer?, topic: UnsafePointer<CChar>) {
        let length = strlen(topic)
        guard length > fromLength, length - fromLength < 255 else { return }
        let name = topic + fromLength
        let nameLength = length - fromLength
        eventTopic.withUnsafeMutableBufferPointer { buffer in
            memcpy(buffer.baseAddress! + eventPrefix, name, nameLength)
            buffer[eventPrefix + nameLength] = 0
            _ = event.withUnsafeBytes {
                mosquitto_publish_v5(mosq, nil, buffer.baseAddress, Int32($0.count), $0.baseAddress, 0, false, nil)
            }
        }
        stateTopic.withUnsafeMutableBufferPointer { buffer in
            memcpy(buffer.baseAddress! + statePrefix, name, nameLength)
            buffer[statePrefix + nameLength] = 0
            _ = state.withUnsafeBytes {
                mosquitto_publish_v5(mosq, nil, buffer.baseAddress, Int32($0.count), $0.baseAddress, 0, true, nil)
            }
        }
    }
}

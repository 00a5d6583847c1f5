public import HomeModel
public import JSON
public import Mappings

#if canImport(Glibc)
import Glibc
#endif

/// What a device source makes of a device message: the core's input from the device side, with
/// the topics and payload formats left behind.
public enum DeviceInput: Sendable {
    /// A Zigbee2MQTT bridge's `bridge/devices`.
    case devices(bridge: String, [Zigbee2MQTTDevice])
    /// A bridge's `bridge/groups`.
    case groups(bridge: String, [Zigbee2MQTTGroup])
    /// A bridge's `bridge/state`.
    case bridgeState(bridge: String, online: Bool)
    /// `<bridge>/<device>/availability`; nil when it says neither online nor offline.
    case availability(bridge: String, device: String, online: Bool?)
    /// `<bridge>/<device>`: a device's state report (or a group's), JSON as Zigbee2MQTT sends it.
    /// It is parsed only once the device is known to be an accessory.
    case report(bridge: String, device: String, topic: String, payload: [UInt8])
    /// A value read from a `source: mqtt` accessory's state topic, or why it could not be.
    case value(topic: String, accessory: String, service: String, characteristic: String, Result<CharacteristicValue, Transforms.Failure>)
    /// A `source: mqtt` accessory's availability topic, or why it could not be read.
    case reachable(topic: String, accessory: String, Result<Bool, Transforms.Failure>)
    /// A message on a device topic that could not be read at all (not JSON, not a list).
    case unreadable(topic: String, problem: String)
}

/// A message for a device, as the core decides it; `DeviceSources.message(for:)` makes it MQTT.
public enum DeviceCommand: Sendable, Equatable {
    public enum Verb: String, Sendable { case set, get }

    /// `<bridge>/<device>[/<endpoint>]/set` or `/get` with a JSON object: one per device per batch.
    case zigbee2mqtt(bridge: String, device: String, endpoint: String?, Verb, JSONValue)
    /// A `source: mqtt` binding's set or get topic with the payload its template made.
    case mqtt(topic: String, payload: [UInt8], retain: Bool)
}

/// The device side of the gateway: which topics belong to Zigbee2MQTT bridges and to `source: mqtt`
/// accessories, what their messages say (as `DeviceInput`), and how the core's `DeviceCommand`s are
/// published. Built from the mapping files alone; rebuilt when they change.
public struct DeviceSources: Sendable {
    /// Base topics of the Zigbee2MQTT bridges.
    public let bridges: [String]
    /// `<base>/` for each bridge, made once; the longest first, so that a bridge whose base lies
    /// under another's (`zigbee2mqtt/garage` beside `zigbee2mqtt`) gets its own messages.
    private let prefixes: [(base: String, prefix: String)]
    private var stateRoutes: [String: [(accessory: String, binding: Int)]] = [:]
    private var availabilityRoutes: [String: [String]] = [:]
    private var explicit: [String: MQTTAccessoryMapping] = [:]

    public init(mappings: MappingSet) {
        bridges = mappings.zigbee2mqtt.map(\.baseTopic)
        prefixes = bridges.map { ($0, $0 + "/") }.sorted { $0.prefix.utf8.count > $1.prefix.utf8.count }
        for mapping in mappings.accessories {
            let id = mapping.accessory.id
            explicit[id] = mapping
            for (index, binding) in mapping.bindings.enumerated() {
                if let state = binding.state { stateRoutes[state.topic, default: []].append((id, index)) }
            }
            if let availability = mapping.availability { availabilityRoutes[availability.topic, default: []].append(id) }
        }
    }

    /// Every device topic filter to subscribe to.
    public var subscriptions: Set<String> {
        Set(bridges.map { "\($0)/#" }).union(stateRoutes.keys).union(availabilityRoutes.keys)
    }

    /// The device topic filters of the main connection when the bridges' device lists come on a
    /// connection of their own (`listFilters`): a bridge's every topic but `bridge/devices`. MQTT
    /// cannot subscribe to `<base>/#` less one topic, so it is `<base>/+` (a device's state),
    /// `<base>/+/availability`, `bridge/state` and `bridge/groups`, and for each friendly name of
    /// more than one level (`multiLevelNames`, from the bridge's lists) its state and availability.
    public func subscriptions(listsApart multiLevelNames: (String) -> [String]) -> Set<String> {
        var filters = Set(stateRoutes.keys).union(availabilityRoutes.keys)
        for base in bridges {
            filters.formUnion(["\(base)/+", "\(base)/+/availability", "\(base)/bridge/state", "\(base)/bridge/groups"])
            for name in multiLevelNames(base) where MQTTTopicFilter.isPlain(name) {
                filters.formUnion(["\(base)/\(name)", "\(base)/\(name)/availability"])
            }
        }
        return filters
    }

    /// The bridges' device lists, for the connection of their own.
    public var listFilters: Set<String> { Set(bridges.map { "\($0)/bridge/devices" }) }

    /// Whether the topic is a bridge's device list, which may be larger than `max_payload_bytes`.
    public func isInventory(_ topic: String) -> Bool { inventoryBase(topic) != nil }

    /// The bridge whose `bridge/devices` the topic is, as `read` routes it; nil for any other topic.
    public func inventoryBase(_ topic: String) -> String? {
        guard let (base, rest) = bridge(of: topic), BridgeTopic(rest) == .devices else { return nil }
        return base
    }

    /// The bridge a topic is under (the longest base that is a prefix of it), and the rest of the topic.
    private func bridge(of topic: String) -> (base: String, rest: Substring)? {
        // Topics are compared by their bytes, as the broker compares them (and faster than
        // String's Unicode-aware hasPrefix and dropFirst).
        for (base, prefix) in prefixes where Self.startsWith(topic, prefix) {
            return (base, Substring(topic.utf8.dropFirst(prefix.utf8.count)))
        }
        return nil
    }

    /// A bridge's `bridge/devices` read where it lies (on the network thread, before libmosquitto
    /// frees it: `MQTTClient.readLargePayloads`), as `read` reads it; nil for any other topic, which
    /// is left to be copied and read as usual.
    /// `reader` is the bridge's own: what it read last, it does not parse again.
    public func inventory(
        lent topic: String, _ payload: UnsafeRawBufferPointer, reader: inout Zigbee2MQTTDevice.ListReader
    ) -> DeviceInput? {
        guard let base = inventoryBase(topic) else { return nil }
        let devices = payload.withMemoryRebound(to: UInt8.self) { reader.read($0) }
        return Self.inventory(base: base, topic: topic, devices)
    }

    /// The same, read whole.
    public func inventory(lent topic: String, _ payload: UnsafeRawBufferPointer) -> DeviceInput? {
        var reader = Zigbee2MQTTDevice.ListReader()
        return inventory(lent: topic, payload, reader: &reader)
    }

    private static func inventory(base: String, topic: String, _ devices: [Zigbee2MQTTDevice]?) -> DeviceInput {
        guard let devices else { return .unreadable(topic: topic, problem: "expected a JSON array of devices") }
        return .devices(bridge: base, devices)
    }

    /// What a message on a device topic says; nothing for topics no source owns and for our own
    /// `/set` and `/get` coming back on a bridge's `#`.
    public func read(_ topic: String, _ payload: [UInt8]) -> [DeviceInput] {
        var inputs: [DeviceInput] = []
        read(topic, payload) { inputs.append($0) }
        return inputs
    }

    /// `read`, each input handed to `take` as it is read (no array per message on the hot path).
    public func read(_ topic: String, _ payload: [UInt8], _ take: (DeviceInput) -> Void) {
        if let (base, rest) = bridge(of: topic) {
            if let input = Self.zigbee2mqtt(base: base, rest: rest, topic: topic, payload) { take(input) }
            return
        }
        for route in stateRoutes[topic] ?? [] {
            guard let mapping = explicit[route.accessory], let state = mapping.bindings[route.binding].state else { continue }
            let binding = mapping.bindings[route.binding]
            guard let characteristic = mapping.accessory[binding.service]?[binding.characteristic] else { continue }
            take(
                .value(
                    topic: topic, accessory: route.accessory, service: binding.service, characteristic: binding.characteristic,
                    state.value(from: payload, for: characteristic)))
        }
        for id in availabilityRoutes[topic] ?? [] {
            guard let availability = explicit[id]?.availability else { continue }
            take(.reachable(topic: topic, accessory: id, availability.isOnline(payload)))
        }
    }

    /// Whether a message on `topic` is read at all. A bridge's topics homegate has no use for
    /// (`bridge/info`, `bridge/definitions`, `bridge/extensions`, …), our own `/set` and `/get`
    /// coming back, and topics no source owns are not: the front end lets them go whatever their
    /// size, where a message that would be read and is over `max_payload_bytes` is dropped with a warning.
    public func reads(_ topic: String) -> Bool {
        if let (_, rest) = bridge(of: topic) { return BridgeTopic(rest) != .unread }
        return stateRoutes[topic] != nil || availabilityRoutes[topic] != nil
    }

    /// What a topic under a bridge's base is, by the part after `<base>/`.
    private enum BridgeTopic: Equatable {
        case report(device: Substring), devices, groups, bridgeState, availability(device: Substring), unread

        init(_ rest: Substring) {
            // Most messages are a device's state, on a topic with no `/` after the base.
            if !DeviceSources.containsSlash(rest) {
                self = .report(device: rest)
                return
            }
            switch rest {
            case "bridge/devices": self = .devices
            case "bridge/groups": self = .groups
            case "bridge/state": self = .bridgeState
            case _ where rest.hasPrefix("bridge/"): self = .unread
            case _ where rest.hasSuffix("/availability"): self = .availability(device: rest.dropLast("/availability".count))
            // Our own /set and /get requests come back to us on <base>/#: `<name>/set`, `<name>/set/<key>`.
            case _ where DeviceSources.isRequest(rest): self = .unread
            default: self = .report(device: rest)
            }
        }
    }

    private static func zigbee2mqtt(base: String, rest: Substring, topic: String, _ payload: [UInt8]) -> DeviceInput? {
        switch BridgeTopic(rest) {
        case .report(let device):
            guard !payload.isEmpty else { return nil }  // a cleared retained state
            return .report(bridge: base, device: String(device), topic: topic, payload: payload)
        case .devices:
            return inventory(base: base, topic: topic, Zigbee2MQTTDevice.list(parsing: payload))
        case .groups:
            guard let groups = Zigbee2MQTTGroup.list(parsing: payload) else {
                return .unreadable(topic: topic, problem: "expected a JSON array of groups")
            }
            return .groups(bridge: base, groups)
        case .bridgeState:
            guard !payload.isEmpty, let online = availability(payload) else { return nil }
            return .bridgeState(bridge: base, online: online)
        case .availability(let device):
            guard !payload.isEmpty else { return nil }  // a cleared retained availability
            return .availability(bridge: base, device: String(device), online: availability(payload))
        case .unread:
            return nil
        }
    }

    /// Whether `topic`'s bytes begin with `prefix`'s (`memcmp`; the generic `starts(with:)` costs
    /// tens of instructions a byte, on every message).
    private static func startsWith(_ topic: String, _ prefix: String) -> Bool {
        if prefix.isEmpty { return true }
        guard topic.utf8.count >= prefix.utf8.count else { return false }
        var (topic, prefix) = (topic, prefix)
        return topic.withUTF8 { whole in prefix.withUTF8 { start in memcmp(whole.baseAddress!, start.baseAddress!, start.count) == 0 } }
    }

    /// Whether a part of `rest` after the first is `set` or `get` (`<name>/set`, `<name>/set/<key>`),
    /// read in place: every write the gateway makes comes back to it this way.
    private static func isRequest(_ rest: Substring) -> Bool {
        var rest = rest
        return rest.withUTF8 { bytes in
            let slash = UInt8(ascii: "/")
            guard var start = bytes.firstIndex(of: slash).map({ $0 + 1 }) else { return false }
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: slash) ?? bytes.count
                if end - start == 3, bytes[start] == UInt8(ascii: "s") || bytes[start] == UInt8(ascii: "g"),
                    bytes[start + 1] == UInt8(ascii: "e"), bytes[start + 2] == UInt8(ascii: "t")
                {
                    return true
                }
                start = end + 1
            }
            return false
        }
    }

    private static func containsSlash(_ text: Substring) -> Bool {
        var text = text
        return text.withUTF8 { bytes in !bytes.isEmpty && memchr(bytes.baseAddress!, Int32(UInt8(ascii: "/")), bytes.count) != nil }
    }

    /// `{"state":"online"}` (Zigbee2MQTT 2.x) or plain `online` (1.x).
    static func availability(_ payload: [UInt8]) -> Bool? {
        let text: String?
        if let json = try? JSONValue(parsing: payload) {
            text = json["state"]?.stringValue ?? json.stringValue
        } else {
            text = String(decoding: payload, as: UTF8.self)
        }
        switch text?.lowercased() {
        case "online": return true
        case "offline": return false
        default: return nil
        }
    }

    /// The MQTT message for a device command (QoS 1).
    public static func message(for command: DeviceCommand) -> Outgoing {
        switch command {
        case .zigbee2mqtt(let bridge, let device, let endpoint, let verb, let payload):
            Outgoing("\(bridge)/\(device)\(endpoint.map { "/\($0)" } ?? "")/\(verb.rawValue)", payload.serializedBytes(), qos: 1)
        case .mqtt(let topic, let payload, let retain):
            Outgoing(topic, payload, retain: retain, qos: 1)
        }
    }
}

/// What a friendly name may be in a subscription.
enum MQTTTopicFilter {
    /// A name with no wildcard and no empty level (`Zigbee2MQTTDevice.nameProblem` gives no accessory to others).
    static func isPlain(_ name: String) -> Bool {
        !name.isEmpty && !name.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") || $0 == 0 })
            && !name.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty)
    }
}

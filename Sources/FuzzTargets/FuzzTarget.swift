/// The parsers that take outside input, each as a function of raw bytes. The libFuzzer executables
/// in `Fuzz/` call them with the fuzzer's input; the replay test calls them with every file of
/// `Fuzz/Corpus` and `Fuzz/Crashes`. Bad input must give an error inside the parser, never a trap.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The JSON reader, and a round trip through the serialiser.
    case json
    /// A Zigbee2MQTT state payload into the characteristics of the fixture's devices.
    case zigbee2mqttState = "z2m-state"
    /// A `bridge/devices` payload into mappings.
    case zigbee2mqttDevices = "z2m-devices"
    /// A `bridge/groups` payload into group accessories over the fixture's devices.
    case zigbee2mqttGroups = "z2m-groups"
    /// A topic under a Zigbee2MQTT bridge's base, read as a device message's.
    case topic
    /// A mapping file's bytes into a mapping set, as `homegate validate` reads one.
    case mappingFile = "mapping-file"
    /// The first byte picks a `homegate/request/<command>`, the rest is its payload.
    case request
    /// A `homegate import` file, read and checked but not stored.
    case archive = "import"
    /// Matter TLV, and a round trip through the encoder.
    case matterTLV = "matter-tlv"
    /// A UDP datagram into the Matter node's message layer.
    case matterMessage = "matter-message"
    /// A Matter TLV certificate and its X.509 form.
    case matterCertificate = "matter-certificate"
    /// An Interaction Model request (first byte: the opcode) answered by a Matter node.
    case matterInteraction = "matter-interaction"
    /// A controller's invoke or attribute write to a device of the bridge's sample house (see `matterBridge`).
    case matterBridge = "matter-bridge"

    /// Feeds `bytes` to the parser. Returns what went wrong when a property that must hold did not
    /// (a JSON value that changes on a round trip), for the fuzzer to trap on and a test to report.
    public func run(_ bytes: [UInt8]) -> String? {
        switch self {
        case .json: Self.json(bytes)
        case .zigbee2mqttState: Self.zigbee2mqttState(bytes)
        case .zigbee2mqttDevices: Self.zigbee2mqttDevices(bytes)
        case .zigbee2mqttGroups: Self.zigbee2mqttGroups(bytes)
        case .topic: Self.topic(bytes)
        case .mappingFile: Self.mappingFile(bytes)
        case .request: Self.request(bytes)
        case .archive: Self.archive(bytes)
        case .matterTLV: Self.matterTLV(bytes)
        case .matterMessage: Self.matterMessage(bytes)
        case .matterCertificate: Self.matterCertificate(bytes)
        case .matterInteraction: Self.matterInteraction(bytes)
        case .matterBridge: Self.matterBridge(bytes)
        }
    }
}

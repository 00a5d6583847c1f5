import Matter

/// Identify (0x0003) on every bridged device type: the Matter Device Library makes it mandatory on
/// each one the bridge serves (plugs, sensors, coverings, thermostats, locks, fans, switches, alarms),
/// not only on lights. The commands are the lights' (`BridgedEndpoint.identify`): Identify with a
/// time, or IdentifyTime written, runs the house's `accessory/identify` (Zigbee2MQTT's `identify`
/// where the device exposes it), accepted and logged where the device cannot show itself.
extension BridgedDevice {
    /// A light shows itself by its light (IdentifyType 1, light output, `identifyAttributes`); any
    /// other device by what Zigbee2MQTT's identify does on it, most often an LED: IdentifyType 2,
    /// visible indicator.
    static let indicatorIdentifyAttributes: [UInt32: TLVValue] = [
        0x0000: .unsigned(0),  // IdentifyTime
        0x0001: .unsigned(2),  // IdentifyType: visible indicator
        0xFFFC: .unsigned(0), 0xFFFD: .unsigned(4),
    ]

    /// Identify where the device's clusters lack it (a light has its own).
    static func addIdentify(to clusters: inout [UInt32: [UInt32: TLVValue]]) {
        if clusters[Cluster.identify] == nil { clusters[Cluster.identify] = indicatorIdentifyAttributes }
    }
}

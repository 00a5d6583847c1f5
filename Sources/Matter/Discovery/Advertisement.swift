/// What a Matter node advertises over DNS-SD (Matter specification 4.3): the commissionable service
/// while it can be commissioned, and one operational service per fabric. The Matter module speaks
/// no mDNS itself; the embedding program publishes these (matter-demo through avahi).
public struct MatterAdvertisement: Sendable, Hashable {
    public var instanceName: String
    /// `_matterc._udp` or `_matter._tcp` (the operational type says TCP whatever the transport).
    public var serviceType: String
    public var subtypes: [String]
    public var txt: [String: String]

    /// `_matterc._udp` with the `_L`/`_S` discriminator and `_CM` subtypes (4.3.1).
    public static func commissionable(
        instanceID: UInt64, discriminator: UInt16, vendorID: UInt16, productID: UInt16, deviceType: UInt32, deviceName: String
    ) -> MatterAdvertisement {
        MatterAdvertisement(
            instanceName: hex16(instanceID), serviceType: "_matterc._udp",
            subtypes: ["_L\(discriminator)", "_S\(discriminator >> 8)", "_V\(vendorID)", "_CM"],
            txt: [
                "D": "\(discriminator)", "CM": "1", "VP": "\(vendorID)+\(productID)", "DT": "\(deviceType)", "DN": deviceName,
                "SII": "5000", "SAI": "300", "PH": "33",
            ])
    }

    /// `<compressed fabric id>-<node id>._matter._tcp` with the `_I<compressed fabric id>` subtype (4.3.2).
    public static func operational(_ fabric: Fabric) -> MatterAdvertisement {
        let compressed = fabric.compressedFabricID.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return MatterAdvertisement(
            instanceName: "\(hex16(compressed))-\(hex16(fabric.nodeID))", serviceType: "_matter._tcp", subtypes: ["_I\(hex16(compressed))"],
            txt: ["SII": "5000", "SAI": "300"])
    }

    static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

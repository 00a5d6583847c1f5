import HAP

/// A digest of the accessory set's shape (not its values, nor names people change), so that
/// `c#` is bumped when a controller must re-read `/accessories`, and only then.
enum Fingerprint {
    static func of(_ accessories: [HAPAccessory]) -> String {
        var text = ""
        for accessory in accessories {
            text += "A\(accessory.aid)"
            for service in accessory.services {
                text += "S\(service.iid):\(service.type):\(service.primary):\(service.hidden)"
                for c in service.characteristics {
                    text += "C\(c.iid):\(c.type):\(c.format.rawValue):\(c.perms.map(\.rawValue).joined(separator: ","))"
                    text += ":\(c.unit?.rawValue ?? ""):\(c.minValue.map { "\($0)" } ?? ""):\(c.maxValue.map { "\($0)" } ?? "")"
                    text += ":\(c.minStep.map { "\($0)" } ?? ""):\(c.validValues?.map(String.init).joined(separator: ",") ?? "")"
                }
            }
        }
        // FNV-1a, 64 bits: a change detector, not a security measure.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

import HAP

/// The AccessoryInformation service (3E) every HAP accessory has, at iids 1–7 on each accessory:
/// homegate's model keeps this information as accessory fields, not as a service.
enum AccessoryInformation {
    static let identify = HAPType(0x14)

    static func service(name: String, manufacturer: String, model: String, serial: String, firmware: String) -> HAPService {
        func text(_ iid: Int, _ type: UInt32, _ value: String) -> HAPCharacteristic {
            // HAP's strings are at most 64 bytes; device names and models can be longer.
            HAPCharacteristic(iid: iid, type: HAPType(type), format: .string, perms: [.pairedRead], value: .string(clipped(value)))
        }
        return HAPService(
            iid: 1, type: HAPType(0x3E),
            characteristics: [
                HAPCharacteristic(iid: 2, type: identify, format: .bool, perms: [.pairedWrite]),
                text(3, 0x20, manufacturer.isEmpty ? "homegate" : manufacturer),
                text(4, 0x21, model.isEmpty ? "unknown" : model),
                text(5, 0x23, homeKitName(name)),
                text(6, 0x30, serial),
                text(7, 0x52, firmwareRevision(firmware)),
            ])
    }

    /// HAP wants `major[.minor[.revision]]`; Zigbee firmware strings are often dates or build tags.
    static func firmwareRevision(_ text: String) -> String {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let numeric = (1...3).contains(parts.count) && parts.allSatisfy { !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
        return numeric ? text : "1.0.0"
    }

    /// The name as HomeKit takes it: letters, digits, spaces and `'.,-`, beginning with a letter
    /// or digit and ending with one (or `'`). The Home app rejects or warns about other names, and
    /// Zigbee2MQTT's friendly names often have `_` or `/` (`living_room/lamp` is `living room lamp`).
    static func homeKitName(_ text: String) -> String {
        var spaced = ""
        for character in text {
            let fits = character.isLetter || character.isNumber || " '.,-".contains(character)
            spaced.append(fits ? character : " ")
        }
        var words = spaced.split(separator: " ").joined(separator: " ")
        while let first = words.first, !(first.isLetter || first.isNumber) { words.removeFirst() }
        while let last = words.last, !(last.isLetter || last.isNumber || last == "'") { words.removeLast() }
        let name = clipped(words)
        return name.isEmpty ? "Accessory" : name
    }

    static func clipped(_ text: String) -> String {
        var result = ""
        for character in text {
            guard result.utf8.count + character.utf8.count <= 64 else { break }
            result.append(character)
        }
        return result
    }
}

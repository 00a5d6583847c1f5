import Foundation
import HAP
import HomeModel
import JSON

/// homegate's catalogue and values in HAP's terms. homegate already keeps HAP's units and ranges
/// (brightness 0–100, mireds, celsius), so values pass through; only their cases differ.
enum Conversion {
    /// A characteristic's metadata and value as `/accessories` lists them.
    static func characteristic(_ characteristic: Characteristic, iid: Int, value: HAPValue?) -> HAPCharacteristic {
        let type = characteristic.type
        return HAPCharacteristic(
            iid: iid, type: HAPType(type.uuid), format: format(type.format), perms: permissions(characteristic),
            unit: type.unit.flatMap { HAPUnit(rawValue: $0.rawValue) }, minValue: characteristic.minValue,
            maxValue: characteristic.maxValue, minStep: characteristic.minStep, validValues: characteristic.validValues,
            maxLength: type.maxLength, value: value)
    }

    static func format(_ format: CharacteristicType.Format) -> HAPFormat {
        switch format {
        case .bool: .bool
        case .uint8: .uint8
        case .uint16: .uint16
        case .uint32: .uint32
        case .uint64: .uint64
        case .int: .int
        case .float: .float
        case .string: .string
        case .tlv8: .tlv8
        case .data: .data
        }
    }

    /// The catalogue's permissions, less `pw` where this device's mapping gives no way to write
    /// (so a controller's write is refused as read-only, -70404, before it reaches the core).
    static func permissions(_ characteristic: Characteristic) -> [HAPPermission] {
        let granted = characteristic.type.permissions
        var perms: [HAPPermission] = []
        if granted.contains(.read) { perms.append(.pairedRead) }
        if granted.contains(.write) && characteristic.isWritable { perms.append(.pairedWrite) }
        if granted.contains(.notify) { perms.append(.events) }
        if granted.contains(.additionalAuthorization) { perms.append(.additionalAuthorization) }
        if granted.contains(.timedWrite) { perms.append(.timedWrite) }
        if granted.contains(.hidden) { perms.append(.hidden) }
        if granted.contains(.writeResponse) { perms.append(.writeResponse) }
        return perms
    }

    /// A value as HAP carries it; tlv8 and data characteristics hold base64 text in homegate.
    static func value(_ value: CharacteristicValue, format: CharacteristicType.Format) -> HAPValue {
        switch value {
        case .bool(let flag): return .bool(flag)
        case .int(let number): return format == .float ? .double(Double(number)) : .int(number)
        case .float(let number):
            if format != .float, number.rounded() == number, abs(number) < 9e18 { return .int(Int(number)) }
            return .double(number)
        case .string(let text):
            if format == .tlv8 || format == .data, let bytes = Data(base64Encoded: text) { return .data(Array(bytes)) }
            return .string(text)
        }
    }

    /// What a controller reads: the value, the placeholder before the device has said anything,
    /// or nil (null) for a button's press, which HAP only ever sends as an event: a press read
    /// back later would be taken for a new one.
    static func readValue(_ characteristic: Characteristic) -> HAPValue? {
        guard characteristic.type != .programmable_switch_event else { return nil }
        return characteristic.value.map { value($0, format: characteristic.type.format) } ?? placeholder(for: characteristic)
    }

    /// What a controller reads before the device has said anything: zero, or the valid value
    /// nearest to it (a first valid value, the range's bound), so that the answer is always valid
    /// for the characteristic and never a made-up extreme (-273.1 °C).
    static func placeholder(for characteristic: Characteristic) -> HAPValue {
        let minimum =
            characteristic.validValues?.first.map(Double.init)
            ?? min(max(0, characteristic.minValue ?? 0), characteristic.maxValue ?? .greatestFiniteMagnitude)
        switch characteristic.type.format {
        case .bool: return .bool(false)
        case .float: return .double(minimum)
        case .uint8, .uint16, .uint32, .uint64, .int: return .int(Int(minimum.rounded(.up)))
        case .string: return .string("")
        case .tlv8, .data: return .data([])
        }
    }

    /// A written value as the core's write request takes it.
    static func json(_ value: HAPValue) -> JSONValue {
        switch value {
        case .bool(let flag): .bool(flag)
        case .int(let number): .integer(number)
        case .double(let number): .double(number)
        case .string(let text): .string(text)
        case .data(let bytes): .string(Data(bytes).base64EncodedString())
        }
    }
}

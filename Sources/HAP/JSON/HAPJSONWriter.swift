import Foundation

/// Writes the server's JSON by hand, in a fixed key order, without Foundation's encoders.
struct HAPJSONWriter {
    private(set) var text = ""

    mutating func raw(_ fragment: String) {
        text += fragment
    }

    mutating func string(_ value: String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case let control where control.value < 0x20:
                text += "\\u00" + (control.value < 0x10 ? "0" : "") + String(control.value, radix: 16)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    mutating func number(_ value: Double) {
        if !value.isFinite {
            text += "null"
        } else if value == value.rounded(), abs(value) < 1e15 {
            text += String(Int(value))
        } else {
            text += "\(value)"
        }
    }

    mutating func value(_ value: HAPValue) {
        switch value {
        case .bool(let flag): text += flag ? "true" : "false"
        case .int(let number): text += String(number)
        case .double(let number): self.number(number)
        case .string(let string): self.string(string)
        case .data(let bytes): string(Data(bytes).base64EncodedString())
        }
    }

    /// A value, or `null` for none.
    mutating func value(orNull value: HAPValue?) {
        if let value { self.value(value) } else { text += "null" }
    }

    /// `"key":` with a comma before it unless it is the first in its object.
    mutating func key(_ key: String, first: Bool = false) {
        if !first { text += "," }
        string(key)
        text += ":"
    }
}

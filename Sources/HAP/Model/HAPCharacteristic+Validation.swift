import Foundation

extension HAPCharacteristic {
    /// Checks a written JSON value against format, range, valid values and length; the server
    /// does this before the provider sees a write.
    func validate(_ json: HAPJSON) -> Result<HAPValue, HAPStatus> {
        switch format {
        case .bool:
            switch json {
            case .bool(let flag): return .success(.bool(flag))
            case .int(let number) where number == 0 || number == 1: return .success(.bool(number == 1))
            default: return .failure(.invalidValue)
            }
        case .uint8, .uint16, .uint32, .uint64, .int:
            guard let number = json.int, let bounds = format.integerRange, bounds.contains(Double(number)),
                inRange(Double(number))
            else { return .failure(.invalidValue) }
            if let validValues, !validValues.contains(number) { return .failure(.invalidValue) }
            return .success(.int(number))
        case .float:
            let number: Double
            switch json {
            case .int(let value): number = Double(value)
            case .double(let value): number = value
            default: return .failure(.invalidValue)
            }
            guard number.isFinite, inRange(number) else { return .failure(.invalidValue) }
            return .success(.double(number))
        case .string:
            guard case .string(let text) = json, text.utf8.count <= (maxLength ?? 64) else { return .failure(.invalidValue) }
            return .success(.string(text))
        case .tlv8, .data:
            guard case .string(let text) = json, let bytes = Data(base64Encoded: text) else { return .failure(.invalidValue) }
            return .success(.data(Array(bytes)))
        }
    }

    private func inRange(_ number: Double) -> Bool {
        if let minValue, number < minValue { return false }
        if let maxValue, number > maxValue { return false }
        return true
    }
}

import HomeModel
public import JSON

extension Zigbee2MQTTMapping {
    /// A state payload as characteristic values. Unknown keys and nulls are ignored; a key with the
    /// wrong type is reported and skipped, and the rest of the message still counts.
    public func decode(_ payload: JSONValue) -> (updates: [CharacteristicUpdate], errors: [String]) {
        guard case .object(let fields) = payload else { return ([], ["expected a JSON object, got \(payload.kindDescription)"]) }
        var updates: [CharacteristicUpdate] = []
        var errors: [String] = []
        let mode = fields["color_mode"]?.stringValue
        // Characteristics whose update so far is a level from readings, not a device's word.
        var leveled: Set<Target> = []
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            guard let readers = readers[key], value != .null else { continue }
            for reader in readers {
                // In colour-temperature mode the colour shown is the white's own, below.
                if mode == "color_temp", case .hue = reader.rule { continue }
                if mode == "color_temp", case .saturation = reader.rule { continue }
                if mode == "xy" || mode == "hs", reader.target.characteristic == "color_temperature" { continue }
                switch Self.decode(value, reader.rule) {
                case .success(let decoded?):
                    let update = CharacteristicUpdate(
                        service: reader.target.service, characteristic: reader.target.characteristic, value: decoded)
                    if let index = updates.firstIndex(where: { $0.service == update.service && $0.characteristic == update.characteristic }),
                        case .int(let new) = decoded, case .int(let old) = updates[index].value
                    {
                        // Levels from readings: the worst of them, under the device's own word when
                        // it says one (unknown, 0, is no word).
                        if case .level = reader.rule {
                            if new > old, leveled.contains(reader.target) || old == 0 {
                                updates[index] = update
                                leveled.insert(reader.target)
                            }
                            continue
                        }
                        if leveled.contains(reader.target), new != 0 {
                            updates[index] = update
                            leveled.remove(reader.target)
                            continue
                        }
                    }
                    if case .level = reader.rule { leveled.insert(reader.target) }
                    updates.append(update)
                case .success(nil):
                    break
                case .failure(let problem):
                    let error = "\(key): \(value.serialized()) \(problem)"
                    if !errors.contains(error) { errors.append(error) }  // hue and saturation share a key
                }
            }
        }
        if mode == "color_temp" { updates += whiteAsColor(updates) }
        return (updates, errors)
    }

    /// Hue and saturation that follow a colour temperature, for lights that have both: HomeKit's
    /// colour picker then shows the white the light is at, as Zigbee2MQTT's own front end does.
    func whiteAsColor(_ updates: [CharacteristicUpdate]) -> [CharacteristicUpdate] {
        updates.flatMap { update -> [CharacteristicUpdate] in
            guard update.characteristic == "color_temperature", writers[Target(service: update.service, characteristic: "hue")] != nil,
                let mired = update.value.doubleValue
            else { return [] }
            let (x, y) = ColorConversion.xy(mired: mired)
            let hs = ColorConversion.hueSaturation(x: x, y: y)
            return [
                CharacteristicUpdate(
                    service: update.service, characteristic: "hue", value: .float(hs.hue.rounded().truncatingRemainder(dividingBy: 360))),
                CharacteristicUpdate(
                    service: update.service, characteristic: "saturation", value: .float(min(100, hs.saturation.rounded()))),
            ]
        }
    }

    struct Problem: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func decode(_ value: JSONValue, _ rule: Reader.Rule) -> Result<CharacteristicValue?, Problem> {
        switch rule {
        case .onOff(let on, let off), .binary(let on, let off, _, _):
            let isOn: Bool
            if value == on {
                isOn = true
            } else if value == off {
                isOn = false
            } else {
                return .failure(Problem("is not \(on.serialized()) or \(off.serialized())"))
            }
            if case .binary(_, _, let whenOn, let whenOff) = rule { return .success(isOn ? whenOn : whenOff) }
            return .success(.bool(isOn))
        case .number:
            guard let number = value.doubleValue else { return .failure(Problem("is not a number")) }
            return .success(value.intValue.map { .int($0) } ?? .float(number))
        case .whole:
            guard let number = value.doubleValue else { return .failure(Problem("is not a number")) }
            guard let whole = Int(exactly: number.rounded()) else { return .failure(Problem("is out of range")) }
            return .success(.int(whole))
        case .atLeast(let minimum):
            guard let number = value.doubleValue else { return .failure(Problem("is not a number")) }
            return .success(.float(max(minimum, number)))
        case .percentOf254:
            guard let raw = value.doubleValue else { return .failure(Problem("is not a number")) }
            // The dimmest a light goes is 1 %, not off: 1 of 254 would round to 0.
            let percent = Int((min(254, max(0, raw)) * 100 / 254).rounded())
            return .success(.int(raw > 0 ? max(1, percent) : percent))
        case .lowBelow(let threshold):
            guard let level = value.doubleValue else { return .failure(Problem("is not a number")) }
            return .success(.int(level < threshold ? 1 : 0))
        case .level(let bounds):
            guard let number = value.doubleValue else { return .failure(Problem("is not a number")) }
            return .success(.int(1 + (bounds.firstIndex { number <= $0 } ?? bounds.count)))
        case .wholeWithin(let low, let high):
            guard let number = value.doubleValue, number.isFinite else { return .failure(Problem("is not a number")) }
            return .success(.int(Int(min(high, max(low, number.rounded())))))
        case .within(let low, let high):
            guard let number = value.doubleValue else { return .failure(Problem("is not a number")) }
            return .success(.float(min(high, max(low, number))))
        case .scaled(let factor, let range):
            guard let number = value.doubleValue, number.isFinite else { return .failure(Problem("is not a number")) }
            return .success(.float(min(range.upperBound, max(range.lowerBound, (number * factor * 100).rounded() / 100))))
        case .text:
            guard let text = value.stringValue else { return .failure(Problem("is not a string")) }
            return .success(.string(text))
        case .mirroredPercent:
            guard let percent = value.doubleValue else { return .failure(Problem("is not a number")) }
            return .success(.int(100 - Int(min(100, max(0, percent)).rounded())))
        case .tiltAngle:
            guard let percent = value.doubleValue else { return .failure(Problem("is not a number")) }
            return .success(.int(Int((min(100, max(0, percent)) * 1.8 - 90).rounded())))
        case .above(let threshold):
            guard let number = value.doubleValue else { return .failure(Problem("is not a number")) }
            return .success(.int(number > threshold ? 1 : 0))
        case .positive(let above, let otherwise):
            guard let number = value.doubleValue else { return .failure(Problem("is not a number")) }
            return .success(number > 0 ? above : otherwise)
        case .enumeration(let map):
            guard let text = value.stringValue else { return .failure(Problem("is not a string")) }
            guard let mapped = map[text] ?? map[text.lowercased()] else { return .success(nil) }  // a value HomeKit has no word for
            return .success(.int(mapped))
        case .action(let events):
            guard let text = value.stringValue else { return .failure(Problem("is not a string")) }
            return .success(events[text].map { .int($0) })
        case .hue, .saturation:
            guard case .object(let color) = value else { return .failure(Problem("is not a colour object")) }
            if case .hue = rule { return colorComponent(color, hue: true) }
            return colorComponent(color, hue: false)
        }
    }

    /// Hue or saturation from `{hue, saturation}` (or `{h, s}`), else from `{x, y}`.
    static func colorComponent(_ color: [String: JSONValue], hue: Bool) -> Result<CharacteristicValue?, Problem> {
        let direct = hue ? (color["hue"] ?? color["h"]) : (color["saturation"] ?? color["s"])
        if let direct {
            guard let number = direct.doubleValue else {
                return .failure(Problem("has a \(hue ? "hue" : "saturation") that is not a number"))
            }
            return .success(.float(hue ? number.rounded().truncatingRemainder(dividingBy: 360) : min(100, max(0, number.rounded()))))
        }
        guard let x = color["x"]?.doubleValue, let y = color["y"]?.doubleValue else { return .success(nil) }
        // Zigbee2MQTT echoes whatever xy it was sent, even outside the CIE diagram.
        guard (0...1).contains(x), (0...1).contains(y) else { return .failure(Problem("has x and y outside 0…1")) }
        let hs = ColorConversion.hueSaturation(x: x, y: y)
        return .success(.float(hue ? hs.hue.rounded().truncatingRemainder(dividingBy: 360) : min(100, hs.saturation.rounded())))
    }
}

import GatewayCore
public import HomeModel
import Matter

/// Which characteristics of a service the Matter bridge carries, for `homegate validate --coverage`:
/// found by putting the service through the bridge's own mapping (`BridgedDevice`'s attributes and
/// events, `BridgedEndpoint`'s invokes and attribute writes), so a device type added there counts
/// here with no list to keep in step.
public struct BridgedCharacteristics: Sendable, Equatable {
    /// The Matter device type the service's endpoint has (Matter Device Library id: 0x0100 On/Off Light).
    public var deviceType: UInt32
    /// The characteristics that reach Matter: reported as an attribute or an event, or written by
    /// an invoke or an attribute write.
    public var carried: Set<String>

    /// nil when Matter has no device type for the service (it gets no endpoint). A battery service
    /// is Power Source (0x0011), the cluster every endpoint of its accessory carries (an accessory
    /// with nothing else bridged has no endpoint to carry it, which is rare: a battery powers something).
    public init?(_ service: Service) {
        let sampled = Self.sampled(service)
        if sampled.type == .battery_service {
            deviceType = 0x0011
            carried = Set(
                sampled.characteristics.filter { characteristic in
                    Self.samples(characteristic).contains { !PowerSource.attributes(characteristic.name, $0).isEmpty }
                }.map(\.name))
            return
        }
        guard let device = BridgedDevice(sampled) else { return nil }
        deviceType = device.deviceType.type
        let endpoint = Self.endpoint(sampled, device)
        carried = Set(sampled.characteristics.filter { Self.reported($0.name, on: endpoint, samples: Self.samples($0)) }.map(\.name))
        carried.formUnion(Self.written(sampled, device))
    }

    /// The service with a value for every characteristic that has none yet (a device that never
    /// reported, a saved device list): invokes read some (a toggle, a setpoint step).
    static func sampled(_ service: Service) -> Service {
        var service = service
        for index in service.characteristics.indices where service.characteristics[index].value == nil {
            service.characteristics[index].value = samples(service.characteristics[index]).first
        }
        return service
    }

    /// Values the characteristic can take: its own, its valid values, its bounds.
    static func samples(_ characteristic: Characteristic) -> [CharacteristicValue] {
        var values: [CharacteristicValue] = characteristic.value.map { [$0] } ?? []
        switch characteristic.type.format {
        case .bool:
            values += [.bool(true), .bool(false)]
        case .float:
            values += [characteristic.minValue, characteristic.maxValue, 0].compactMap { $0.map(CharacteristicValue.float) }
        case .string, .tlv8, .data:
            values.append(.string(characteristic.choices?.first ?? ""))
        default:
            values += (characteristic.validValues ?? []).map(CharacteristicValue.int)
            values += [characteristic.minValue, characteristic.maxValue, 0].compactMap { $0.map { .int(Int($0)) } }
        }
        return values
    }

    /// The service as the bridge lays it out, on an endpoint of its own.
    static func endpoint(_ service: Service, _ device: BridgedDevice) -> BridgedEndpoint {
        BridgedEndpoint(
            number: 2, accessory: "coverage", service: service.id, device: device,
            characteristics: Dictionary(service.characteristics.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }),
            reachable: true)
    }

    /// Whether a change of the characteristic reaches Matter, as the bridge takes a change
    /// (`BridgedEndpoint.changes`): from one sample value to another it sets an attribute of its
    /// own or emits an event, or the attributes several characteristics make together (a Smoke CO
    /// Alarm's ExpressedState, a fan's mode) come out different.
    static func reported(_ name: String, on endpoint: BridgedEndpoint, samples: [CharacteristicValue]) -> Bool {
        // A value alone (a button's one press).
        for value in samples
        where !endpoint.device.attributes(name, value).isEmpty || !endpoint.taking(name, value, previous: nil).events.isEmpty {
            return true
        }
        // From one value to another (a lock's turn, an alarm starting, a fan's mode).
        for from in samples {
            let start = endpoint.taking(name, from, previous: nil)
            for to in samples where to != from {
                let (_, attributes, events) = start.endpoint.taking(name, to, previous: from)
                if !events.isEmpty || !endpoint.device.attributes(name, to).isEmpty { return true }
                if "\(attributes.map { "\($0)" })" != "\(start.attributes.map { "\($0)" })" { return true }
            }
        }
        return false
    }

    /// The characteristics some invoke or attribute write of the endpoint's clusters writes.
    static func written(_ service: Service, _ device: BridgedDevice) -> Set<String> {
        let endpoint = Self.endpoint(service, device)
        // Field values to try: small numbers, and the service's own bounds (a colour temperature's mireds).
        var numbers: Set<UInt64> = [0, 1, 2, 3, 50, 100, 254]
        for characteristic in service.characteristics {
            for bound in [characteristic.minValue, characteristic.maxValue].compactMap({ $0 }) where bound >= 0 && bound < 1e9 {
                numbers.insert(UInt64(bound.rounded()))
            }
        }
        // No fields first (commands whose fields are all optional, a lock's PIN code), then each number in every field.
        let candidates =
            [TLVValue.structure([])]
            + numbers.sorted().map { number in
                TLVValue.structure((0...7).map { TLVElement(.context($0), .unsigned(number)) })
            }
        var written = Set<String>()
        func take(_ invoke: BridgedEndpoint.Invoke) -> Bool {
            guard case .writes(let requests) = invoke else { return false }
            written.formUnion(requests.map(\.characteristic))
            return true
        }
        for (cluster, content) in device.clusters(service) {
            // An unknown command answers UNSUPPORTED_COMMAND whatever its fields: one try tells.
            for command in UInt32(0)...0xFF {
                let path = CommandPath(endpoint: endpoint.number, cluster: cluster, command: command)
                if case .refused(.unsupportedCommand) = endpoint.writes(for: path, fields: candidates[1]) { continue }
                for fields in candidates where take(endpoint.writes(for: path, fields: fields)) { break }
            }
            for (attribute, value) in content.attributes {
                let path = AttributePath(endpoint: endpoint.number, cluster: cluster, attribute: attribute)
                if case .refused(.unsupportedWrite) = endpoint.writes(for: path, value: value) { continue }
                let values = [value] + numbers.sorted().flatMap { [TLVValue.unsigned($0), .signed(Int64($0) * 100)] }
                for value in values where take(endpoint.writes(for: path, value: value)) { break }
            }
        }
        return written
    }
}

/// One physical device (or group): services with characteristics, and where it lives.
public struct Accessory: Sendable, Hashable {
    public enum Category: String, Sendable, Hashable, CaseIterable {
        case other, bridge, lightbulb, outlet, `switch`, sensor, thermostat, door_lock, window_covering
        case programmable_switch, garage_door_opener, fan, security_system

        /// What an accessory is by its primary service, as HomeKit's apps show it, when nothing says.
        public init(primary service: ServiceType) {
            switch service {
            case .lightbulb: self = .lightbulb
            case .outlet: self = .outlet
            case .switch: self = .switch
            case .thermostat, .heater_cooler: self = .thermostat
            case .lock_mechanism: self = .door_lock
            case .window_covering: self = .window_covering
            case .garage_door_opener: self = .garage_door_opener
            case .fan, .fanv2, .air_purifier: self = .fan
            case .security_system: self = .security_system
            case .stateless_programmable_switch, .doorbell: self = .programmable_switch
            case .temperature_sensor, .humidity_sensor, .light_sensor, .motion_sensor, .occupancy_sensor, .contact_sensor, .leak_sensor,
                .smoke_sensor, .carbon_dioxide_sensor, .carbon_monoxide_sensor, .air_quality_sensor:
                self = .sensor
            default: self = .other
            }
        }
    }

    /// Topic-safe and stable: `living_room_light`.
    public let id: String
    public var name: String
    public var manufacturer: String?
    public var model: String?
    public var firmware: String?
    public var category: Category
    public var reachable: Bool
    /// Why it is not reachable (`not heard from since start`, `its Zigbee2MQTT bridge is offline`);
    /// nil while it is.
    public var unreachableReason: String?
    /// The bridge it came through (`zigbee2mqtt`), nil for a device of its own.
    public var bridge: String?
    /// The room its mapping names: where it lands when it first appears (created if missing).
    public var requestedRoom: String?
    /// The home and room it is in (ids), once the gateway has placed it.
    public var home: String?
    public var room: String?
    public var services: [Service]

    public init(
        id: String, name: String, manufacturer: String? = nil, model: String? = nil, firmware: String? = nil,
        category: Category = .other, reachable: Bool = true, bridge: String? = nil, requestedRoom: String? = nil, services: [Service]
    ) {
        self.id = id
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.firmware = firmware
        self.category = category
        self.reachable = reachable
        self.bridge = bridge
        self.requestedRoom = requestedRoom
        self.services = services
    }

    public func serviceIndex(_ service: String) -> Int? { services.firstIndex { $0.id == service } }

    public subscript(service: String) -> Service? { serviceIndex(service).map { services[$0] } }

    /// Where a characteristic lives, or the error that names what is missing.
    public func locate(service: String, characteristic: String) -> Result<(Int, Int), HomeModelError> {
        guard let s = serviceIndex(service) else { return .failure(.unknownService(accessory: id, service: service)) }
        guard let c = services[s].index(of: characteristic) else {
            return .failure(.unknownCharacteristic(accessory: id, service: service, characteristic: characteristic))
        }
        return .success((s, c))
    }

    /// Checks a write from any front end: the characteristic must exist, be writable and accept the
    /// value. Returns the value in its canonical form, a number in range but between steps put on
    /// the nearest step (as HomeKit's controllers expect: iOS converts a Fahrenheit user's setpoint
    /// and sends it unrounded); nothing is changed.
    public func validateWrite(
        service: String, characteristic: String, value: CharacteristicValue
    ) throws(HomeModelError) -> CharacteristicValue {
        let (s, c) = try locate(service: service, characteristic: characteristic).get()
        let target = services[s].characteristics[c]
        guard target.type.isWritable else { throw .readOnly(accessory: id, service: service, characteristic: characteristic) }
        guard target.isWritable else { throw .notWritableHere(accessory: id, service: service, characteristic: characteristic) }
        switch target.check(value, rounding: true) {
        case .success(let canonical): return canonical
        case .failure(let problem): throw .invalidValue(accessory: id, service: service, characteristic: characteristic, problem)
        }
    }

    /// Applies a value reported by the device (or confirmed after a write). Read-only characteristics
    /// are fine here. Returns the change, or nil when the value is the same as before.
    public mutating func update(
        service: String, characteristic: String, value: CharacteristicValue,
        source: ChangeSource = .device
    ) throws(HomeModelError) -> CharacteristicChange? {
        let (s, c) = try locate(service: service, characteristic: characteristic).get()
        let target = services[s].characteristics[c]
        let canonical: CharacteristicValue
        switch target.check(value, rounding: true) {
        case .success(let v): canonical = v
        case .failure(let problem): throw .invalidValue(accessory: id, service: service, characteristic: characteristic, problem)
        }
        // A stateless switch reports every press, even the same one twice.
        let isEvent = target.type == .programmable_switch_event
        if !isEvent, target.isSame(target.value, canonical) { return nil }
        let previous = target.value
        services[s].characteristics[c].value = canonical
        return CharacteristicChange(
            accessory: id, service: service, characteristic: characteristic, value: canonical,
            previous: previous, source: source)
    }
}

/// Who changed a value: `device`, `api`, `hap`, `matter`, `action_set:<id>`, `trigger:<id>`.
public enum ChangeSource: Sendable, Hashable, CustomStringConvertible {
    case device, api
    /// A HomeKit controller's write through the HAP bridge: the bridge keeps the change's event
    /// from the controller connection that wrote it, as HAP asks.
    case hap
    /// A Matter controller's invoke through the Matter bridge.
    case matter
    case actionSet(String)
    case trigger(String)

    public var description: String {
        switch self {
        case .device: "device"
        case .api: "api"
        case .hap: "hap"
        case .matter: "matter"
        case .actionSet(let id): "action_set:\(id)"
        case .trigger(let id): "trigger:\(id)"
        }
    }
}

/// One characteristic that took a new value.
public struct CharacteristicChange: Sendable, Hashable {
    public var accessory: String
    public var service: String
    public var characteristic: String
    public var value: CharacteristicValue
    public var previous: CharacteristicValue?
    public var source: ChangeSource

    public init(
        accessory: String, service: String, characteristic: String, value: CharacteristicValue,
        previous: CharacteristicValue?, source: ChangeSource
    ) {
        self.accessory = accessory
        self.service = service
        self.characteristic = characteristic
        self.value = value
        self.previous = previous
        self.source = source
    }

    public var path: CharacteristicPath { CharacteristicPath(accessory: accessory, service: service, characteristic: characteristic) }

    /// A button press: an event, not a state; not stored and never "the same as before".
    public var isPress: Bool { characteristic == CharacteristicType.programmable_switch_event.name }
}

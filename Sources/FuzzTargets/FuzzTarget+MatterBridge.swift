import Foundation
import GatewayCore
import HomeModel
import JSON
import Mappings
import Matter
import MatterBridge
import Synchronization

extension FuzzTarget {
    /// A controller's invoke or attribute write to one device of the bridge's sample house:
    /// `[device type: 2, flags, cluster: 2, command or attribute: 2]` (little endian) and the
    /// fields as TLV (none: an empty structure). Flags: bit 0 an attribute write, bit 1 a Timed
    /// interaction (for the node), bits 2–3 the house's values (sampled mid-range, the minimum,
    /// the maximum, none yet), bit 4 every device unreachable, bits 5–7 which endpoint of the
    /// device type (0: the first; a type the house lacks picks an endpoint by its number). The
    /// input goes to the endpoint's translation, its Move stepped to the end of its range, and the
    /// same request through a node with the bridge's model. What the bridge queues for the house
    /// must be a write the house takes.
    static func matterBridge(_ bytes: [UInt8]) -> String? {
        guard let request = MatterBridgeRequest(bytes) else { return nil }
        _ = request.answer()
        if let refused = MatterBridgeHouse.refusedByHouse(request.bridge.takeCommands(), request.house) { return refused }
        let (endpoint, cluster, id, flags, fields) = (request.endpoint, request.cluster, request.id, request.flags, request.fields)

        let node = request.bridge.node()
        let session = SessionContext(sessionID: 1, subject: .pase, attestationChallenge: [UInt8](repeating: 0, count: 16), now: .now)
        func send(_ opcode: InteractionOpcode, _ payload: TLVValue) {
            let header = ProtocolHeader(
                isInitiator: true, needsAcknowledgement: true, opcode: opcode.rawValue, exchangeID: 1, protocolID: .interactionModel)
            _ = node.respond(to: header, payload: TLVEncoder.encode(TLVElement(payload)), session: session)
        }
        let timed = flags & 2 != 0
        if timed { send(.timedRequest, .structure([TLVElement(.context(0), .unsigned(10_000))])) }
        // An InvokeRequest {0: suppress, 1: timed, 2: [{0: CommandPath {0: endpoint, 1: cluster, 2: command}, 1: fields}]},
        // or a WriteRequest {0: suppress, 1: timed, 2: [{1: AttributePath {2: endpoint, 3: cluster, 4: attribute}, 2: value}]}.
        let invoke = flags & 1 == 0
        let form: (opcode: InteractionOpcode, endpointTag: UInt8, pathTag: UInt8, dataTag: UInt8) =
            invoke ? (.invokeRequest, 0, 0, 1) : (.writeRequest, 2, 1, 2)
        let path = TLVValue.list([
            TLVElement(.context(form.endpointTag), .unsigned(UInt64(endpoint))),
            TLVElement(.context(form.endpointTag + 1), .unsigned(UInt64(cluster))),
            TLVElement(.context(form.endpointTag + 2), .unsigned(UInt64(id))),
        ])
        let item = TLVElement(.structure([TLVElement(.context(form.pathTag), path), TLVElement(.context(form.dataTag), fields.value)]))
        send(
            form.opcode,
            .structure([
                TLVElement(.context(0), .bool(false)), TLVElement(.context(1), .bool(timed)), TLVElement(.context(2), .array([item])),
            ]))
        return MatterBridgeHouse.refusedByHouse(request.bridge.takeCommands(), request.house)
    }
}

extension FuzzTarget {
    /// The status the bridge answers a `matter-bridge` input with (`success`, `constraintError`, …),
    /// nil when the input is no request: for the test that each seed is a valid one.
    public static func matterBridgeAnswer(_ bytes: [UInt8]) -> String? {
        MatterBridgeRequest(bytes).map { "\($0.answer())" }
    }
}

/// A `matter-bridge` input read: the house variant, a fresh bridge on it, the path and the fields.
struct MatterBridgeRequest {
    var house: HomeSnapshot
    var bridge: OfflineBridge
    var endpoint: UInt16
    var cluster: UInt32
    var id: UInt32
    var flags: UInt8
    var fields: TLVElement

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 7 else { return nil }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        flags = bytes[2]
        let laidOut: OfflineBridge
        (house, laidOut) = MatterBridgeHouse.variant(Int(flags >> 2) & 7)
        bridge = laidOut.restarted()
        guard let endpoint = MatterBridgeHouse.endpoint(bridge, deviceType: u16(0), index: Int(flags >> 5)) else { return nil }
        self.endpoint = endpoint
        (cluster, id) = (UInt32(u16(3)), UInt32(u16(5)))
        let rest = Array(bytes.dropFirst(7))
        if rest.isEmpty {
            fields = TLVElement(.structure([]))
        } else {
            guard let decoded = try? TLVDecoder.decode(rest) else { return nil }
            fields = decoded
        }
    }

    /// The invoke or write answered directly, a Move stepped to its end.
    func answer() -> InteractionStatus {
        let start = ContinuousClock.now
        guard flags & 1 == 0 else {
            return bridge.write(AttributePath(endpoint: endpoint, cluster: cluster, attribute: id), value: fields.value)
        }
        let status = bridge.invoke(CommandPath(endpoint: endpoint, cluster: cluster, command: id), fields: fields.value, now: start)
        // Steps as `RampRunner.run` takes them, then far on: every Move ends at its range's end.
        for seconds in [0.25, 1, 10, 1000, 1e7] { bridge.tick(now: start + .seconds(seconds)) }
        return status
    }
}

/// The house the `matter-bridge` target bridges: one device of every kind the bridge serves,
/// real Zigbee2MQTT definitions from the mapping tests' corpus, through the house's own mapping.
enum MatterBridgeHouse {
    /// Friendly names in `Tests/MappingsTests/Fixtures/corpus/devices.json`.
    static let devices = [
        "Philips 9290012573A",  // colour light with colour temperature
        "Immax 07073L",  // colour temperature light
        "Gledopto GL-SD-001",  // dimmable light
        "Aqara DLKZMK11LM",  // switch
        "Aqara MCCGQ11LM",  // contact, battery
        "Aqara RTCGQ11LM",  // occupancy, illuminance, battery
        "Aqara WSDCGQ11LM",  // temperature, humidity, pressure
        "Bosch BSD-2",  // smoke
        "Heiman HS1CA-E",  // carbon monoxide
        "Aqara SJCGQ11LM",  // leak
        "Develco AQSZB-110",  // air quality
        "Ubisys J1",  // cover with tilt
        "Bosch BTH-RA",  // heating thermostat (radiator valve)
        "Bosch BTH-RM",  // heating and cooling thermostat
        "Kwikset 99140-139",  // lock
        "Hampton Bay 99432",  // fan (and its light)
        "IKEA E2007",  // air purifier: fan with auto
        "Aqara WXKG11LM",  // button
    ]

    /// The house and the bridge laid out from it for each flag's variant (bits 2–4), built once
    /// and released at exit (see `requestCoreKept`).
    private static let kept = Mutex<[(HomeSnapshot, OfflineBridge)]?>(nil)

    static func variant(_ index: Int) -> (HomeSnapshot, OfflineBridge) {
        kept.withLock { kept in
            if let variants = kept { return variants[index] }
            let mapped = accessories()
            let variants = (0..<8).map { variant in
                let house = snapshot(mapped, values: variant & 3, reachable: variant & 4 == 0)
                return (house, OfflineBridge(house))
            }
            kept = variants
            atexit { MatterBridgeHouse.kept.withLock { $0 = nil } }
            return variants[index]
        }
    }

    /// The chosen devices as the Zigbee2MQTT mapping makes them accessories, with no values yet.
    static func accessories() -> [Accessory] {
        let path = FuzzTarget.repository.appendingPathComponent("Tests/MappingsTests/Fixtures/corpus/devices.json").path
        guard let data = FileManager.default.contents(atPath: path), let all = Zigbee2MQTTDevice.list(parsing: Array(data)) else {
            fatalError("the matter-bridge target needs \(path)")
        }
        let chosen = devices.map { name in
            guard let device = all.first(where: { $0.friendlyName == name }) else { fatalError("\(name) is not in \(path)") }
            return device
        }
        return Zigbee2MQTTMapping.build(chosen).mappings.map(\.accessory)
    }

    /// The house with every characteristic at a sample value: 0 mid-range, 1 its minimum, 2 its maximum, 3 none.
    static func snapshot(_ accessories: [Accessory], values: Int, reachable: Bool) -> HomeSnapshot {
        let accessories = accessories.map { accessory in
            var accessory = accessory
            accessory.reachable = reachable
            for s in accessory.services.indices {
                for c in accessory.services[s].characteristics.indices {
                    let characteristic = accessory.services[s].characteristics[c]
                    accessory.services[s].characteristics[c].value = values == 3 ? nil : sample(characteristic, values)
                }
            }
            return accessory
        }
        let structure = HomeStructure(
            homes: [Home(id: "home", name: "Home", defaultRoom: "default_room")], primaryHome: "home",
            rooms: [Room(id: "default_room", name: "Default Room", home: "home")], zones: [], placements: [:])
        return HomeSnapshot(accessories: accessories, lastSeen: [:], structure: structure)
    }

    /// A value the house would take for the characteristic: `which` 0 mid-range, 1 low, 2 high.
    static func sample(_ characteristic: Characteristic, _ which: Int) -> CharacteristicValue? {
        switch characteristic.type.format {
        case .bool: return .bool(which != 1)
        case .string, .tlv8, .data: return characteristic.choices.map { .string(which == 2 ? $0.last ?? "" : $0.first ?? "") }
        default: break
        }
        if let valid = characteristic.validValues, !valid.isEmpty {
            return .int(valid[which == 0 ? valid.count / 2 : which == 1 ? 0 : valid.count - 1])
        }
        let low = characteristic.minValue ?? 0
        let high = characteristic.maxValue ?? max(low, 100)
        var number = which == 0 ? (low + high) / 2 : which == 1 ? low : high
        if let step = characteristic.minStep, step > 0 { number = low + ((number - low) / step).rounded(.down) * step }
        let checked = characteristic.check(characteristic.type.format == .float ? .float(number) : .int(Int(number)), rounding: true)
        return try? checked.get()
    }

    /// The `index`th endpoint of that Matter device type (the last when there are fewer), else the
    /// one at that number modulo the endpoints.
    static func endpoint(_ bridge: OfflineBridge, deviceType: UInt16, index: Int) -> UInt16? {
        let endpoints = bridge.endpoints
        guard !endpoints.isEmpty else { return nil }
        let found = endpoints.filter { endpoint in
            guard case .array(let types)? = bridge.clusters(endpoint)[0x001D]?.attributes[0] else { return false }
            return types.first?.value[context: 0]?.unsignedValue == UInt64(deviceType)
        }
        return found.isEmpty ? endpoints[Int(deviceType) % endpoints.count] : found[min(index, found.count - 1)]
    }

    /// Why the house would refuse one of the writes the bridge queued (and so answered SUCCESS
    /// for), nil when it takes them all.
    static func refusedByHouse(_ commands: [HomeCommand], _ house: HomeSnapshot) -> String? {
        for command in commands {
            guard case .values(.write(let requests, _)) = command else { continue }
            for request in requests {
                guard let accessory = house.accessories.first(where: { $0.id == request.accessory }) else {
                    return "a write to \(request.accessory), which the house does not have"
                }
                guard let value = CharacteristicValue(json: request.value) else {
                    return "\(request.service)/\(request.characteristic) written with \(request.value), no characteristic value"
                }
                do {
                    _ = try accessory.validateWrite(service: request.service, characteristic: request.characteristic, value: value)
                } catch {
                    return "the bridge answered SUCCESS for a write the house refuses: \(error)"
                }
            }
        }
        return nil
    }
}

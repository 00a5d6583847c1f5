import HAP

/// A fake house for the aiohomekit tests: a bridge, a dimmable lightbulb, a stateless
/// programmable switch and a lightbulb that never answers (-70402).
actor DemoBridge: HAPAccessoryProvider {
    static let unreachableAID = 4
    private var values: [HAPCharacteristicID: HAPValue] = [:]
    private let database: [HAPAccessory]
    /// Where writes are reported (stdout, for the tests).
    private let report: @Sendable (String) -> Void
    /// How changes reach the server's `notify` (set once the server exists).
    private var changed: (@Sendable ([HAPCharacteristicChange], HAPConnectionID?) -> Void)?
    private var holding = false
    private var held: [CheckedContinuation<Void, Never>] = []

    init(report: @escaping @Sendable (String) -> Void) {
        self.report = report
        database = [
            HAPAccessory(aid: 1, services: [DemoBridge.information(name: "Demo Bridge", model: "hap-demo"), DemoBridge.protocolInformation()]),
            HAPAccessory(
                aid: 2,
                services: [
                    DemoBridge.information(name: "Lamp", model: "Dimmable"),
                    HAPService(
                        iid: 8, type: HAPType(0x43), primary: true,
                        characteristics: [
                            HAPCharacteristic(iid: 9, type: HAPType(0x25), format: .bool, perms: [.pairedRead, .pairedWrite, .events]),
                            HAPCharacteristic(
                                iid: 10, type: HAPType(0x08), format: .int, perms: [.pairedRead, .pairedWrite, .events], unit: .percentage,
                                minValue: 0, maxValue: 100, minStep: 1),
                            HAPCharacteristic(iid: 11, type: HAPType(0x23), format: .string, perms: [.pairedRead]),
                            // Hue with timed writes required, for the /prepare test.
                            HAPCharacteristic(
                                iid: 12, type: HAPType(0x13), format: .float, perms: [.pairedRead, .pairedWrite, .events, .timedWrite],
                                unit: .arcdegrees, minValue: 0, maxValue: 360, minStep: 1),
                            // A write-response characteristic, for PUT with "r": true.
                            HAPCharacteristic(iid: 13, type: HAPType(0x23), format: .string, perms: [.pairedRead, .pairedWrite, .writeResponse]),
                        ]),
                ]),
            HAPAccessory(
                aid: 3,
                services: [
                    DemoBridge.information(name: "Button", model: "Stateless"),
                    HAPService(
                        iid: 8, type: HAPType(0x89), primary: true,
                        characteristics: [
                            HAPCharacteristic(
                                iid: 9, type: .programmableSwitchEvent, format: .uint8, perms: [.pairedRead, .events],
                                minValue: 0, maxValue: 2, validValues: [0, 1, 2]),
                            HAPCharacteristic(iid: 10, type: HAPType(0xCB), format: .uint8, perms: [.pairedRead], minValue: 1),
                        ]),
                ]),
            HAPAccessory(
                aid: DemoBridge.unreachableAID,
                services: [
                    DemoBridge.information(name: "Gone Lamp", model: "Offline"),
                    HAPService(
                        iid: 8, type: HAPType(0x43), primary: true,
                        characteristics: [
                            HAPCharacteristic(iid: 9, type: HAPType(0x25), format: .bool, perms: [.pairedRead, .pairedWrite, .events])
                        ]),
                ]),
        ]
        var values: [HAPCharacteristicID: HAPValue] = [:]
        for accessory in database {
            for service in accessory.services {
                for characteristic in service.characteristics {
                    if let value = characteristic.value { values[HAPCharacteristicID(aid: accessory.aid, iid: characteristic.iid)] = value }
                }
            }
        }
        values[HAPCharacteristicID(aid: 2, iid: 9)] = .bool(false)
        values[HAPCharacteristicID(aid: 2, iid: 10)] = .int(0)
        values[HAPCharacteristicID(aid: 2, iid: 11)] = .string("Lamp")
        values[HAPCharacteristicID(aid: 2, iid: 12)] = .double(0)
        values[HAPCharacteristicID(aid: 2, iid: 13)] = .string("")
        values[HAPCharacteristicID(aid: 3, iid: 10)] = .int(1)
        self.values = values
    }

    static func information(name: String, model: String) -> HAPService {
        HAPService(
            iid: 1, type: HAPType(0x3E),
            characteristics: [
                HAPCharacteristic(iid: 2, type: HAPType(0x14), format: .bool, perms: [.pairedWrite]),
                HAPCharacteristic(iid: 3, type: HAPType(0x20), format: .string, perms: [.pairedRead], value: .string("homegate")),
                HAPCharacteristic(iid: 4, type: HAPType(0x21), format: .string, perms: [.pairedRead], value: .string(model)),
                HAPCharacteristic(iid: 5, type: HAPType(0x23), format: .string, perms: [.pairedRead], value: .string(name)),
                HAPCharacteristic(iid: 6, type: HAPType(0x30), format: .string, perms: [.pairedRead], value: .string("0001")),
                HAPCharacteristic(iid: 7, type: HAPType(0x52), format: .string, perms: [.pairedRead], value: .string("0.1.0")),
            ])
    }

    static func protocolInformation() -> HAPService {
        HAPService(
            iid: 8, type: HAPType(0xA2),
            characteristics: [
                HAPCharacteristic(iid: 9, type: HAPType(0x37), format: .string, perms: [.pairedRead, .events], value: .string("1.1.0"))
            ])
    }

    func accessories() -> [HAPAccessory] {
        database.map { accessory in
            var accessory = accessory
            guard accessory.aid != DemoBridge.unreachableAID else { return accessory }
            for serviceIndex in accessory.services.indices {
                for index in accessory.services[serviceIndex].characteristics.indices {
                    let iid = accessory.services[serviceIndex].characteristics[index].iid
                    if let value = values[HAPCharacteristicID(aid: accessory.aid, iid: iid)] {
                        accessory.services[serviceIndex].characteristics[index].value = value
                    }
                }
            }
            return accessory
        }
    }

    func read(_ ids: [HAPCharacteristicID]) async -> [HAPCharacteristicID: Result<HAPValue?, HAPStatus>] {
        if holding {
            // The request stays in flight until `release`: events meanwhile must queue behind its response.
            report("held")
            await withCheckedContinuation { held.append($0) }
        }
        var results: [HAPCharacteristicID: Result<HAPValue?, HAPStatus>] = [:]
        for id in ids {
            if id.aid == DemoBridge.unreachableAID && id.iid >= 8 {
                results[id] = .failure(.serviceCommunicationFailure)
            } else if id == HAPCharacteristicID(aid: 3, iid: 9) {
                // A stateless switch has no current value; HAP reads it as null.
                results[id] = .success(nil)
            } else {
                results[id] = values[id].map { .success($0) } ?? .failure(.resourceDoesNotExist)
            }
        }
        return results
    }

    func write(_ writes: [HAPWrite], from connection: HAPConnectionID) -> [HAPCharacteristicID: HAPStatus] {
        var statuses: [HAPCharacteristicID: HAPStatus] = [:]
        var changes: [HAPCharacteristicChange] = []
        defer { changed?(changes, connection) }
        for write in writes {
            if write.id.aid == DemoBridge.unreachableAID {
                statuses[write.id] = .serviceCommunicationFailure
                continue
            }
            values[write.id] = write.value
            changes.append(HAPCharacteristicChange(id: write.id, value: write.value))
            report("write \(write.id) \(write.value) \(connection.rawValue)")
        }
        return statuses
    }

    func identify(_ aid: Int?) {
        report("identify \(aid.map(String.init) ?? "bridge")")
    }

    /// A change on the device side (from the test's `set` command).
    func set(_ id: HAPCharacteristicID, _ value: HAPValue) {
        values[id] = value
        changed?([HAPCharacteristicChange(id: id, value: value)], nil)
    }

    /// From the test's `hold` command: the next reads wait for `release`.
    func hold() { holding = true }

    func release() {
        holding = false
        for waiting in held { waiting.resume() }
        held = []
    }

    func onChange(_ changed: @escaping @Sendable ([HAPCharacteristicChange], HAPConnectionID?) -> Void) {
        self.changed = changed
    }
}

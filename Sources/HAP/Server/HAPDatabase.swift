import Synchronization

/// The characteristics' metadata from the provider's last `accessories()`, for checking reads,
/// writes and subscriptions and for telling button events apart.
final class HAPDatabase: Sendable {
    /// Where a characteristic is in `accessories`: its accessory, service and place in the service.
    private struct Position {
        var accessory: Int32
        var service: Int32
        var characteristic: Int32
    }

    /// The accessories as the provider gave them (sharing its arrays, so no second copy) and where
    /// each characteristic is in them.
    private struct Index {
        var accessories: [HAPAccessory] = []
        var positions: [HAPCharacteristicID: Position] = [:]

        subscript(id: HAPCharacteristicID) -> HAPCharacteristic? {
            guard let position = positions[id] else { return nil }
            var characteristic =
                accessories[Int(position.accessory)].services[Int(position.service)].characteristics[Int(position.characteristic)]
            characteristic.value = nil  // metadata only: values come from the provider's reads
            return characteristic
        }
    }

    private let index = Mutex(Index())

    func replace(with accessories: [HAPAccessory]) {
        var fresh = Index(accessories: accessories)
        fresh.positions.reserveCapacity(
            accessories.reduce(0) { count, accessory in
                accessory.services.reduce(count) { $0 + $1.characteristics.count }
            })
        for (a, accessory) in accessories.enumerated() {
            for (s, service) in accessory.services.enumerated() {
                for (c, characteristic) in service.characteristics.enumerated() {
                    fresh.positions[HAPCharacteristicID(aid: accessory.aid, iid: characteristic.iid)] = Position(
                        accessory: Int32(a), service: Int32(s), characteristic: Int32(c))
                }
            }
        }
        index.withLock { $0 = fresh }
    }

    func characteristic(_ id: HAPCharacteristicID) -> HAPCharacteristic? {
        index.withLock { $0[id] }
    }

    func characteristics(_ ids: some Sequence<HAPCharacteristicID>) -> [HAPCharacteristicID: HAPCharacteristic] {
        index.withLock { index in
            var found: [HAPCharacteristicID: HAPCharacteristic] = [:]
            for id in ids { if let characteristic = index[id] { found[id] = characteristic } }
            return found
        }
    }

    /// Button events are delivered without the coalescing delay.
    func isImmediate(_ id: HAPCharacteristicID) -> Bool {
        index.withLock { index in
            guard let type = index[id]?.type else { return false }
            return type == .programmableSwitchEvent || type == .buttonEvent
        }
    }
}

import Synchronization

/// The characteristics' metadata from the provider's last `accessories()`, for checking reads,
/// writes and subscriptions and for telling button events apart.
final class HAPDatabase: Sendable {
    private let index = Mutex<[HAPCharacteristicID: HAPCharacteristic]>([:])

    func replace(with accessories: [HAPAccessory]) {
        var fresh: [HAPCharacteristicID: HAPCharacteristic] = [:]
        for accessory in accessories {
            for service in accessory.services {
                for var characteristic in service.characteristics {
                    characteristic.value = nil
                    fresh[HAPCharacteristicID(aid: accessory.aid, iid: characteristic.iid)] = characteristic
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

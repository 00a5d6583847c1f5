import GatewayCore
import HAP
import HomeModel

extension BridgeLayout {
    /// A value change of the home as the bridge sends it, with the change it came from.
    struct Taken: Sendable {
        var hap: HAPCharacteristicChange
        var change: CharacteristicChange
    }

    /// Takes a batch of the home's events into the layout: each characteristic's value and each
    /// accessory's reachability are kept, so reads need no snapshot. Returns the value changes of
    /// the bridge's characteristics, in order, for the subscribed controllers; other events (and
    /// changes of accessories on other bridges) only pass.
    mutating func take(_ events: some Sequence<HomeEvent>) -> [Taken] {
        var taken: [Taken] = []
        for event in events {
            switch event {
            case .characteristic(let change):
                guard let id = ids[change.path], case .home(let index)? = targets[id] else { continue }
                homes[index].characteristic.value = change.value
                let value = Conversion.value(change.value, format: homes[index].characteristic.type.format)
                taken.append(Taken(hap: HAPCharacteristicChange(id: id, value: value), change: change))
            case .accessory(let id, .reachability, let now?) where reachable[id] != nil:
                reachable[id] = now.reachable
            default:
                continue
            }
        }
        return taken
    }
}

import HomeModel
import JSON
import Mappings

extension HomeCore {
    /// Sends the accessory's device what makes it show itself: Zigbee2MQTT's `identify` where the
    /// device exposes it, else a light's `blink` effect. Refused (with why) for a device that has
    /// neither, a `source: mqtt` accessory, or one that is offline.
    mutating func identify(_ id: String) throws -> HomeResult {
        guard let entry = table[id] else { throw HomeError.notFound("\(id) is not in the house now") }
        guard case .zigbee2mqtt(let bridge, let mapping) = entry.source,
            let device = bridges[bridge]?.placed[mapping.ieeeAddress]
        else {
            throw HomeError.invalid(
                "\(entry.accessory.name) cannot show itself: only a Zigbee2MQTT device can be asked to (identify, or a light's blink effect)"
            )
        }
        let payload: JSONValue
        if let identify = Self.settable(device.exposes, where: { $0.property?.hasPrefix("identify") == true && $0.name == "identify" }),
            let property = identify.property
        {
            payload = [property: .string(identify.values.first ?? "identify")]
        } else if let effect = Self.settable(device.exposes, where: { $0.name == "effect" && $0.values.contains("blink") }),
            let property = effect.property
        {
            payload = [property: "blink"]
        } else {
            throw HomeError.invalid(
                "\(entry.accessory.name) cannot show itself: its device (\(device.model ?? "no model")) exposes neither identify nor a blink effect"
            )
        }
        guard entry.accessory.reachable else { throw HomeError.unreachable("\(entry.accessory.name) is offline: it cannot show itself") }
        counters.deviceWrites += 1
        emit(.device(.zigbee2mqtt(bridge: bridge, device: mapping.friendlyName, endpoint: nil, .set, payload)))
        return .identified(accessory: id, payload: payload)
    }

    /// The first settable expose, at any depth, that `matches`.
    private static func settable(_ exposes: [Expose], where matches: (Expose) -> Bool) -> Expose? {
        for expose in exposes {
            if expose.isSettable, matches(expose) { return expose }
            if let found = settable(expose.features, where: matches) { return found }
        }
        return nil
    }
}

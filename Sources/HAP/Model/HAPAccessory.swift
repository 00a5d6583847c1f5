/// One accessory of `GET /accessories`; aid 1 is the bridge itself.
public struct HAPAccessory: Sendable, Hashable {
    public var aid: Int
    public var services: [HAPService]

    public init(aid: Int, services: [HAPService]) {
        self.aid = aid
        self.services = services
    }
}

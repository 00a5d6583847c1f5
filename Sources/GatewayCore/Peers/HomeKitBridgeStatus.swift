/// One HomeKit bridge as a person adding it to Apple Home needs to see it: where it listens, its
/// setup code and URI, who has paired and, while it runs, whether it is advertised. The one status
/// type for a bridge: the HTTP API's `/api/homekit`, and `homegate hap …` reading the database.
public struct HomeKitBridgeStatus: Sendable, Equatable {
    /// A controller paired with the bridge: its pairing id and whether it may manage pairings.
    public struct Controller: Sendable, Equatable {
        public var id: String
        public var admin: Bool

        public init(id: String, admin: Bool) {
            self.id = id
            self.admin = admin
        }
    }

    /// What only the running bridge knows.
    public struct Running: Sendable, Equatable {
        public var accessories: Int
        /// Whether the bridge has compared its accessory set with the one it last published since the
        /// start, once every Zigbee2MQTT bridge's device list came (or 30 s passed): before, `c#` holds.
        public var settled: Bool
        public var advertisement: HomeKitAdvertisement

        public init(accessories: Int, settled: Bool = true, advertisement: HomeKitAdvertisement) {
            self.accessories = accessories
            self.settled = settled
            self.advertisement = advertisement
        }
    }

    /// 1 for the first bridge.
    public var number: Int
    public var name: String
    /// The port it listens on (the configured one until it listens; 0: any free one).
    public var port: Int
    public var deviceID: String
    /// `XXX-XX-XXX`.
    public var setupCode: String
    /// `X-HM://…`, the QR code's content.
    public var setupURI: String
    /// `c#`: goes up when the accessory set changes.
    public var configurationNumber: Int
    public var controllers: [Controller]
    /// Nil when read from the database, not from the running bridge (`homegate hap pairing`).
    public var running: Running?

    public var paired: Bool { !controllers.isEmpty }

    public init(
        number: Int, name: String, port: Int, deviceID: String, setupCode: String, setupURI: String, configurationNumber: Int,
        controllers: [Controller], running: Running?
    ) {
        self.number = number
        self.name = name
        self.port = port
        self.deviceID = deviceID
        self.setupCode = setupCode
        self.setupURI = setupURI
        self.configurationNumber = configurationNumber
        self.controllers = controllers
        self.running = running
    }

    /// A running bridge's status.
    public init(
        number: Int, name: String, port: Int, deviceID: String, setupCode: String, setupURI: String, configurationNumber: Int,
        accessories: Int, settled: Bool = true, advertisement: HomeKitAdvertisement, controllers: [Controller]
    ) {
        self.init(
            number: number, name: name, port: port, deviceID: deviceID, setupCode: setupCode, setupURI: setupURI,
            configurationNumber: configurationNumber, controllers: controllers,
            running: Running(accessories: accessories, settled: settled, advertisement: advertisement))
    }
}

/// Whether a bridge is announced on the local network (`_hap._tcp`), and one line saying why.
public struct HomeKitAdvertisement: Sendable, Equatable {
    public enum State: String, Sendable {
        case starting
        case advertised
        case notAdvertised = "not_advertised"
    }

    public var state: State
    public var detail: String

    public init(_ state: State, detail: String) {
        self.state = state
        self.detail = detail
    }
}

public import Secrets

/// Everything needed to open and keep a broker connection.
public struct MQTTConfiguration: Sendable {
    /// As `mqtt.protocol` spells it: `5` or `3.1.1`.
    public enum ProtocolVersion: String, Sendable, Equatable, CaseIterable {
        case v5 = "5"
        case v311 = "3.1.1"
    }

    public struct TLS: Sendable, Equatable {
        /// PEM file of the CA that signed the broker's certificate; nil uses the system's store.
        public var caFile: String?
        public var certificateFile: String?
        public var keyFile: String?
        /// Skips hostname verification. Off by default; only for test rigs.
        public var allowInsecure: Bool

        public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil, allowInsecure: Bool = false) {
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.allowInsecure = allowInsecure
        }
    }

    /// A retained message: the will, or what is published on each CONNACK (the birth).
    public struct StatusMessage: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
        public var qos: QoS
        public var retain: Bool

        public init(topic: String, payload: [UInt8], qos: QoS = .atLeastOnce, retain: Bool = true) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
        }
    }

    public var broker: BrokerAddress
    public var clientID: String
    public var username: String?
    public var password: Secret?
    public var tls: TLS?
    public var keepAlive: Int32
    public var protocolVersion: ProtocolVersion
    /// A clean session forgets subscriptions on disconnect; the client subscribes again on every CONNACK either way.
    public var cleanSession: Bool
    /// With a persistent session on MQTT 5: how long the broker keeps it after a disconnect, in seconds.
    public var sessionExpiry: UInt32 = 86_400
    public var will: StatusMessage?
    public var birth: StatusMessage?
    /// When true, the birth waits on the first connection for `announce()`, so that it can follow
    /// the first subscriptions: a client that waits for it then finds them in place. On every
    /// later CONNACK the subscriptions are restored before the birth anyway.
    public var birthWaitsForAnnounce = false
    /// Reconnect back-off: first delay and ceiling, in seconds, doubling in between.
    public var reconnectDelay: (initial: UInt32, maximum: UInt32)
    /// How many received messages may wait for the consumer before the oldest are dropped.
    public var inboxLimit: Int
    /// How many QoS 1/2 publishes are kept while the broker is away.
    public var outboxLimit: Int

    public init(
        broker: BrokerAddress,
        clientID: String,
        username: String? = nil,
        password: Secret? = nil,
        tls: TLS? = nil,
        keepAlive: Int32 = 30,
        protocolVersion: ProtocolVersion = .v5,
        cleanSession: Bool = true,
        will: StatusMessage? = nil,
        birth: StatusMessage? = nil,
        reconnectDelay: (initial: UInt32, maximum: UInt32) = (1, 30),
        inboxLimit: Int = 100_000,
        outboxLimit: Int = 10_000
    ) {
        self.broker = broker
        self.clientID = clientID
        self.username = username
        self.password = password
        self.tls = tls ?? (broker.usesTLS ? TLS() : nil)
        self.keepAlive = keepAlive
        self.protocolVersion = protocolVersion
        self.cleanSession = cleanSession
        self.will = will
        self.birth = birth
        self.reconnectDelay = reconnectDelay
        self.inboxLimit = inboxLimit
        self.outboxLimit = outboxLimit
    }
}

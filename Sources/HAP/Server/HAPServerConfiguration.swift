/// Where and how the HAP server listens.
public struct HAPServerConfiguration: Sendable {
    /// The address to bind; nil for every interface, IPv6 and IPv4 alike (`::` with IPv6-only
    /// off, as Apple devices prefer the IPv6 addresses the bridge is advertised with), or
    /// `0.0.0.0` where the host has no IPv6.
    public var host: String?
    /// The TCP port; 0 picks a free one (see `HAPServer.listeningPort()`).
    public var port: Int
    /// The TXT record's `md`.
    public var model: String
    public var category: HAPCategory
    /// The code to pair with; nil keeps the stored one, or makes a random one on the first start.
    public var setupCode: HAPSetupCode?
    /// The events' gathering window (`HAPEventGathering`): a change after a quiet window goes at
    /// once, the ones within the window after it go out together at its end (button events at once). 240 ms:
    /// HAP's quarter second less what the path from the device's message to this server takes
    /// (broker, gateway, scheduling; docs/performance.md, "The HomeKit bridge"), so that an event
    /// reaches the controller within 255 ms of the device's message at p99.
    public var eventCoalescingDelay: Duration
    /// A connection that has not pair-verified is closed after this long without a request. A
    /// verified one (a home hub, a phone) stays open however quiet it is, as HAP-NodeJS keeps
    /// them: closing it would drop its subscriptions, and an event in the gap would be lost.
    public var unverifiedIdleTimeout: Duration
    /// Past this many verified connections the one idle longest is closed, so that controllers
    /// that vanished without a goodbye cannot pile up (HAP-NodeJS starts at 16, HomeKitADK has 17
    /// sessions; a house with several home hubs, phones, tablets and Home Assistant needs more).
    public var verifiedConnectionLimit: Int
    /// The largest request body accepted.
    public var maxBodyBytes: Int
    /// Called when the accessory becomes paired or unpaired (the TXT record's `sf` changes).
    public var onPairedChange: (@Sendable (_ isPaired: Bool) -> Void)?
    /// Called once the server listens, with its port.
    public var onListening: (@Sendable (_ port: Int) -> Void)?

    public init(
        host: String? = nil, port: Int = 51826, model: String = "homegate", category: HAPCategory = .bridge,
        setupCode: HAPSetupCode? = nil, eventCoalescingDelay: Duration = .milliseconds(240),
        unverifiedIdleTimeout: Duration = .seconds(300), verifiedConnectionLimit: Int = 32, maxBodyBytes: Int = 1 << 20,
        onPairedChange: (@Sendable (_ isPaired: Bool) -> Void)? = nil
    ) {
        self.host = host
        self.port = port
        self.model = model
        self.category = category
        self.setupCode = setupCode
        self.eventCoalescingDelay = eventCoalescingDelay
        self.unverifiedIdleTimeout = unverifiedIdleTimeout
        self.verifiedConnectionLimit = verifiedConnectionLimit
        self.maxBodyBytes = maxBodyBytes
        self.onPairedChange = onPairedChange
    }
}

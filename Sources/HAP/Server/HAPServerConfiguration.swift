/// Where and how the HAP server listens.
public struct HAPServerConfiguration: Sendable {
    /// The address to bind, "0.0.0.0" for every interface.
    public var host: String
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
    /// (broker, gateway, scheduling: a few ms, 10 on a busy host), so that an event reaches the
    /// controller within 255 ms of the device's message at p99.
    public var eventCoalescingDelay: Duration
    /// A connection with no traffic for this long is closed.
    public var idleTimeout: Duration
    /// The largest request body accepted.
    public var maxBodyBytes: Int
    /// Called when the accessory becomes paired or unpaired (the TXT record's `sf` changes).
    public var onPairedChange: (@Sendable (_ isPaired: Bool) -> Void)?

    public init(
        host: String = "0.0.0.0", port: Int = 51826, model: String = "homegate", category: HAPCategory = .bridge,
        setupCode: HAPSetupCode? = nil, eventCoalescingDelay: Duration = .milliseconds(240),
        idleTimeout: Duration = .seconds(3600), maxBodyBytes: Int = 1 << 20,
        onPairedChange: (@Sendable (_ isPaired: Bool) -> Void)? = nil
    ) {
        self.host = host
        self.port = port
        self.model = model
        self.category = category
        self.setupCode = setupCode
        self.eventCoalescingDelay = eventCoalescingDelay
        self.idleTimeout = idleTimeout
        self.maxBodyBytes = maxBodyBytes
        self.onPairedChange = onPairedChange
    }
}

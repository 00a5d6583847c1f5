/// Advertises one DNS-SD service through avahi-daemon, and keeps it advertised: it re-registers
/// when the daemon restarts, takes avahi's alternative name when the name is taken, and replaces
/// the TXT record in place. It never fails for want of a daemon or a bus: `state` says why the
/// service is not advertised, and it keeps trying.
///
/// ```swift
/// let advertiser = try ServiceAdvertiser(DNSSDService(name: "homegate", port: 51826, txt: txt))
/// try advertiser.start()
/// Task { for await state in advertiser.stateChanges() { logger.info("HAP bridge \(state)") } }
/// try advertiser.update(txt: txt.merging(["c#": "2"]) { $1 })  // in place
/// advertiser.stop()
/// ```
///
/// The daemon is reached over the system D-Bus, at `DBUS_SYSTEM_BUS_ADDRESS` if set, else at
/// /run/dbus/system_bus_socket. A stopped advertiser stays stopped: make another.
public final class ServiceAdvertiser: Sendable {
    /// The service as first asked for (the name avahi chose is in `state`).
    public let service: DNSSDService
    private let session: AvahiSession

    public init(_ service: DNSSDService) throws(DNSSDError) {
        try service.validate()
        self.service = service
        self.session = try AvahiSession(service)
    }

    deinit { session.stop() }

    /// Starts advertising in the background; `state` and `stateChanges()` tell how it goes.
    /// Throws only when called twice or after `stop()`.
    public func start() throws(DNSSDError) {
        try session.start()
    }

    /// Replaces the whole TXT record, in place when it is on the network (as HAP wants when `c#` or
    /// `sf` change: no withdrawal, so controllers keep the service and re-read `/accessories`).
    @discardableResult
    public func update(txt: [String: String]) throws(DNSSDError) -> TXTUpdate {
        try DNSSDService.validate(txt: txt)
        return session.update(txt: txt)
    }

    /// Withdraws the service and ends avahi's thread. Safe to call more than once.
    public func stop() {
        session.stop()
    }

    public var state: AdvertisementState { session.board.state }

    /// The current state, then each change, until `stop()`. Each call makes a stream of its own.
    public func stateChanges() -> AsyncStream<AdvertisementState> {
        session.board.stream()
    }

    /// Waits for a state that satisfies `condition`, up to `timeout`; nil when none came in time.
    public func state(
        where condition: @escaping @Sendable (AdvertisementState) -> Bool, within timeout: Duration
    ) async -> AdvertisementState? {
        let changes = stateChanges()
        return await withTaskGroup(of: AdvertisementState?.self) { group in
            group.addTask {
                for await state in changes where condition(state) { return state }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

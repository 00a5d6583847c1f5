import DNSSD
import GatewayCore
import HAP
import Logging

/// `_hap._tcp` through avahi-daemon, with the HAP module's TXT record, updated in place when `c#`
/// or `sf` change. Without a daemon the bridge still serves (a controller that knows the address
/// can pair), and the log says why it is not advertised.
struct BridgeAdvertisement: Sendable {
    let server: HAPServer
    let name: String
    let logger: Logger
    /// Hears each change, for health and the web page.
    let changed: @Sendable (HomeKitAdvertisement) -> Void

    /// The server says nothing when a controller pairs or the last pairing goes: the TXT record is
    /// compared this often (one read of the pairing store, no network traffic unless it changed).
    static let txtCheckInterval: Duration = .seconds(1)

    /// Until cancelled.
    func run() async {
        guard let port = await boundPort(), var txt = try? await server.txtRecord() else { return }
        let advertiser: ServiceAdvertiser
        do {
            advertiser = try ServiceAdvertiser(DNSSDService(name: name, type: "_hap._tcp", port: UInt16(port), txt: txt))
            try advertiser.start()
        } catch {
            logger.warning("the HomeKit bridge is not advertised (controllers that know its address can still pair): \(error)")
            changed(HomeKitAdvertisement(.notAdvertised, detail: "\(error)"))
            return
        }
        defer { advertiser.stop() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var last: AdvertisementState?
                // `.stopped` comes first, before the advertiser has tried: nothing to tell yet.
                for await state in advertiser.stateChanges() where state != last && state != .stopped {
                    last = state
                    if let shown = Self.shown(state) { changed(shown) }
                    switch state {
                    case .notAdvertised: logger.warning("HomeKit bridge \(state)")
                    default: logger.info("HomeKit bridge \(state)")
                    }
                }
            }
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: Self.txtCheckInterval)
                } catch {
                    break
                }
                guard let fresh = try? await server.txtRecord(), fresh != txt else { continue }
                txt = fresh
                do {
                    try advertiser.update(txt: fresh)
                } catch {
                    logger.warning("cannot update the HomeKit bridge's TXT record: \(error)")
                }
            }
            advertiser.stop()
            group.cancelAll()
        }
    }

    /// The state as the HTTP API and health tell it; nil for `.stopped`, which says nothing yet.
    static func shown(_ state: AdvertisementState) -> HomeKitAdvertisement? {
        switch state {
        case .stopped: nil
        case .registering: HomeKitAdvertisement(.starting, detail: "\(state)")
        case .advertised: HomeKitAdvertisement(.advertised, detail: "\(state)")
        case .notAdvertised(let reason): HomeKitAdvertisement(.notAdvertised, detail: reason)
        }
    }

    private func boundPort() async -> Int? {
        while !Task.isCancelled {
            if let port = server.listeningPort() { return port }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}

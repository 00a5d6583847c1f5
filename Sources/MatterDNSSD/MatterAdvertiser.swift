import DNSSD
public import Logging
public import Matter
import Synchronization

/// Publishes what a Matter node advertises through avahi-daemon (the DNSSD module, as the HomeKit
/// bridge does), for matter-demo and homegate's Matter bridge alike: the commissionable service
/// while the node belongs to no fabric, an operational one per fabric.
public final class MatterAdvertiser: Sendable {
    private let commissionable: @Sendable (UInt16) -> MatterAdvertisement
    private let discriminator: UInt16
    private let port: Mutex<UInt16?> = Mutex(nil)
    private let published = Mutex<[MatterAdvertisement: ServiceAdvertiser]>([:])
    private let current = Mutex(MatterNode.Advertising(fabrics: [], openWindow: nil))
    private let logger: Logger

    /// `commissionable` makes the commissionable service for a discriminator: the device's own
    /// while it is on no fabric, an administrator's window's while one is open.
    public init(discriminator: UInt16, commissionable: @escaping @Sendable (UInt16) -> MatterAdvertisement, logger: Logger) {
        self.discriminator = discriminator
        self.commissionable = commissionable
        self.logger = logger
    }

    /// Starts publishing once the node listens on `port`.
    public func start(port: UInt16, advertising: MatterNode.Advertising) {
        self.port.withLock { $0 = port }
        update(advertising)
    }

    public func update(_ advertising: MatterNode.Advertising) {
        current.withLock { $0 = advertising }
        guard let port = port.withLock({ $0 }) else { return }
        var wanted = Set(advertising.fabrics.map(MatterAdvertisement.operational))
        if let window = advertising.openWindow ?? (advertising.fabrics.isEmpty ? discriminator : nil) {
            wanted.insert(commissionable(window))
        }
        published.withLock { published in
            for (advertisement, advertiser) in published where !wanted.contains(advertisement) {
                advertiser.stop()
                published[advertisement] = nil
            }
            for advertisement in wanted where published[advertisement] == nil {
                let service = DNSSDService(
                    name: advertisement.instanceName, type: advertisement.serviceType, port: port, txt: advertisement.txt,
                    subtypes: advertisement.subtypes)
                do {
                    let advertiser = try ServiceAdvertiser(service)
                    try advertiser.start()
                    published[advertisement] = advertiser
                    logger.info("advertising", metadata: ["service": "\(advertisement.instanceName).\(advertisement.serviceType)"])
                } catch {
                    logger.error("cannot advertise \(advertisement.instanceName).\(advertisement.serviceType): \(error)")
                }
            }
        }
    }

    /// Each service published now (`instance._type`): whether avahi advertises it, and how it stands.
    public var states: [String: (advertised: Bool, detail: String)] {
        published.withLock { published in
            Dictionary(
                published.map { entry -> (String, (advertised: Bool, detail: String)) in
                    ("\(entry.key.instanceName).\(entry.key.serviceType)", (entry.value.state.isAdvertised, "\(entry.value.state)"))
                },
                uniquingKeysWith: { a, _ in a })
        }
    }

    public func stop() {
        published.withLock { published in
            for advertiser in published.values { advertiser.stop() }
            published = [:]
        }
    }
}

import DNSSD
import Logging
import Matter
import Synchronization

/// Publishes what the node advertises through avahi-daemon (the DNSSD module, as the HomeKit bridge
/// does): the commissionable service while the node belongs to no fabric, an operational one per fabric.
final class DemoAdvertiser: Sendable {
    private let commissionable: MatterAdvertisement
    private let port: Mutex<UInt16?> = Mutex(nil)
    private let published = Mutex<[MatterAdvertisement: ServiceAdvertiser]>([:])
    private let fabrics = Mutex<[Fabric]>([])
    private let logger: Logger

    init(commissionable: MatterAdvertisement, logger: Logger) {
        self.commissionable = commissionable
        self.logger = logger
    }

    /// Starts publishing once the node listens on `port`.
    func start(port: UInt16, fabrics current: [Fabric]) {
        self.port.withLock { $0 = port }
        update(fabrics: current)
    }

    func update(fabrics current: [Fabric]) {
        fabrics.withLock { $0 = current }
        guard let port = port.withLock({ $0 }) else { return }
        let wanted = Set(current.isEmpty ? [commissionable] : current.map(MatterAdvertisement.operational))
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

    func stop() {
        published.withLock { published in
            for advertiser in published.values { advertiser.stop() }
            published = [:]
        }
    }
}

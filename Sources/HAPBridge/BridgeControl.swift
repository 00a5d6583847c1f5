public import GatewayCore
import HAP
import JSON
import Logging
import Synchronization

/// The running bridges as the HTTP API sees them (`HomeKitControl`): their pairing state, a new
/// setup code, pairings removed; and their advertisement in the gateway's health. Made before the
/// gateway (`homegate run` hands it to both the HTTP API and `HomeKitBridges`); the service
/// adds each bridge as it starts.
public final class BridgeControl: HomeKitControl {
    private struct Entry: Sendable {
        let bridge: HomeKitBridge
        var advertisement = HomeKitAdvertisement(.starting, detail: "waiting for the HAP server to listen")
        /// Why the bridge does not serve (it cannot listen), nil while it does or is starting.
        var problem: String?
    }

    /// Whether `hap.setup_code` is set: it replaces the first bridge's code at each start.
    let setupCodeConfigured: Bool
    private let entries = Mutex<[Int: Entry]>([:])
    private let access = Mutex<(any GatewayAccess)?>(nil)

    public init(settings: GatewayConfiguration.HAP) {
        setupCodeConfigured = settings.revealedSetupCode != nil
    }

    /// Bridge `bridge.index + 1` runs from now on; `access` hears its advertisement for health.
    func add(_ bridge: HomeKitBridge, access: any GatewayAccess) {
        self.access.withLock { $0 = access }
        entries.withLock { $0[bridge.index] = Entry(bridge: bridge) }
        reportHealth()
    }

    /// Bridge `index` (0: the first) is advertised, or not, and why.
    func advertisement(_ index: Int, _ state: HomeKitAdvertisement) {
        entries.withLock { $0[index]?.advertisement = state }
        reportHealth()
    }

    /// Bridge `index` cannot listen, and why; it is tried again.
    func cannotServe(_ index: Int, reason: String) {
        entries.withLock {
            $0[index]?.problem = reason
            $0[index]?.advertisement = HomeKitAdvertisement(.starting, detail: "not serving: \(reason)")
        }
        reportHealth()
    }

    /// Bridge `index` listens on `port`.
    func serving(_ index: Int, port: Int) {
        let recovered = entries.withLock { entries -> Bool in
            guard entries[index]?.problem != nil else { return false }
            entries[index]?.problem = nil
            entries[index]?.advertisement = HomeKitAdvertisement(.starting, detail: "listening on port \(port), not yet advertised")
            return true
        }
        if recovered, let bridge = entries.withLock({ $0[index]?.bridge }) {
            bridge.logger.notice("HomeKit bridge \(index + 1) serves again", metadata: ["port": "\(port)"])
        }
        reportHealth()
    }

    /// Tells health every bridge's advertisement. Under the lock, so that two bridges changing at
    /// once cannot leave the older picture in place.
    private func reportHealth() {
        let access = access.withLock { $0 }
        entries.withLock { entries in
            let bridges = entries.sorted { $0.key < $1.key }.map {
                (number: $0.key + 1, advertisement: $0.value.advertisement, problem: $0.value.problem)
            }
            let shown = bridges.map { bridge -> JSONValue in
                var fields: [String: JSONValue] = [
                    "number": .integer(bridge.number), "serving": .bool(bridge.problem == nil),
                    "advertisement": .string(bridge.advertisement.state.rawValue), "detail": .string(bridge.advertisement.detail),
                ]
                if let problem = bridge.problem { fields["problem"] = .string(problem) }
                return .object(fields)
            }
            let notServing = bridges.compactMap { bridge in
                bridge.problem.map {
                    "HomeKit bridge \(bridge.number) does not serve: \($0); homegate tries again every minute at the most"
                }
            }
            let warnings =
                notServing
                + bridges.filter { $0.advertisement.state == .notAdvertised }.map { bridge in
                    "HomeKit bridge \(bridge.number) is not advertised: \(bridge.advertisement.detail); "
                        + "controllers that know its address can still pair"
                }
            access?.report("homekit", AdapterStatus(section: ["bridges": .array(shown)], warnings: warnings))
        }
    }

    // MARK: HomeKitControl

    public func bridges() async throws(HomeKitControlError) -> [HomeKitBridgeStatus] {
        let numbers = entries.withLock { $0.keys.sorted() }
        var statuses: [HomeKitBridgeStatus] = []
        for index in numbers { statuses.append(try await status(try entry(index + 1).bridge)) }
        return statuses
    }

    public func resetSetupCode(bridge number: Int) async throws(HomeKitControlError) -> HomeKitBridgeStatus {
        let entry = try entry(number)
        if number == 1, setupCodeConfigured {
            throw .conflict(
                "hap.setup_code (or HOMEGATE_HAP_SETUP_CODE) is set, and it replaces bridge 1's setup code at each start: "
                    + "remove it from the configuration and restart homegate, then make a new code here")
        }
        do {
            _ = try await entry.bridge.server.resetSetupCode()
        } catch {
            throw .failed("HomeKit bridge \(number): cannot store the new setup code: \(error)")
        }
        entry.bridge.logger.notice("made a new HomeKit setup code (from the HTTP API)")
        return try await status(entry.bridge)
    }

    public func removePairing(bridge number: Int, controller: String) async throws(HomeKitControlError) -> HomeKitBridgeStatus {
        let entry = try entry(number)
        let found: Bool
        do {
            found = try await entry.bridge.server.removePairing(controllerID: controller)
        } catch {
            throw .failed("HomeKit bridge \(number): cannot remove the pairing: \(error)")
        }
        guard found else { throw .notFound("HomeKit bridge \(number) has no paired controller '\(controller)'") }
        return try await status(entry.bridge)
    }

    public func removeAllPairings(bridge number: Int) async throws(HomeKitControlError) -> HomeKitBridgeStatus {
        let entry = try entry(number)
        do {
            try await entry.bridge.server.removeAllPairings()
        } catch {
            throw .failed("HomeKit bridge \(number): cannot remove the pairings: \(error)")
        }
        return try await status(entry.bridge)
    }

    public func resetIdentity(bridge number: Int) async throws(HomeKitControlError) -> HomeKitBridgeStatus {
        let entry = try entry(number)
        do {
            let identity = try await entry.bridge.server.resetIdentity()
            await entry.bridge.accessories.setBridge(
                BridgeIdentity(name: entry.bridge.name, serialNumber: identity.deviceID.description, firmware: HomeKitBridge.firmware))
        } catch {
            throw .failed("HomeKit bridge \(number): cannot store the new identity: \(error)")
        }
        return try await status(entry.bridge)
    }

    private func entry(_ number: Int) throws(HomeKitControlError) -> Entry {
        let (found, count) = entries.withLock { ($0[number - 1], $0.count) }
        guard let found else {
            throw .notFound("no HomeKit bridge \(number) (this house has \(count == 1 ? "1 bridge" : "\(count) bridges"), numbered from 1)")
        }
        return found
    }

    private func status(_ bridge: HomeKitBridge) async throws(HomeKitControlError) -> HomeKitBridgeStatus {
        let server = bridge.server
        do {
            let identity = try await server.identity()
            return HomeKitBridgeStatus(
                number: bridge.index + 1, name: bridge.name, port: server.listeningPort() ?? server.configuration.port,
                deviceID: identity.deviceID.description, setupCode: identity.setupCode.description,
                setupURI: try await server.setupURI(), configurationNumber: Int(try await bridge.store.configurationNumber()),
                accessories: await bridge.accessories.bridgedCount, settled: await bridge.accessories.settled,
                advertisement: entries.withLock { $0[bridge.index]?.advertisement } ?? HomeKitAdvertisement(.starting, detail: "starting"),
                controllers: try await server.pairings().map { .init(id: $0.controllerID, admin: $0.isAdmin) })
        } catch {
            throw .failed("HomeKit bridge \(bridge.index + 1): cannot read its pairing store: \(error)")
        }
    }
}

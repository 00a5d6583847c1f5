import Foundation
public import GatewayCore
import Matter
import Synchronization

/// The running Matter bridge as the HTTP API sees it (`MatterControl`): its codes and fabrics, an
/// enhanced commissioning window opened from homegate (for another ecosystem), a fabric removed.
/// `homegate run` makes one, hands it to the bridge and to the HTTP API; the bridge attaches its
/// node once it serves.
public final class MatterBridgeControl: MatterControl {
    struct Running: Sendable {
        var node: MatterNode
        var setup: MatterSetup
        var port: Int
    }

    /// A window homegate opened: its passcode, which the node does not keep (only its verifier).
    struct OwnWindow: Sendable {
        var passcode: UInt32
        var discriminator: UInt16
        var deadline: ContinuousClock.Instant
    }

    private let running = Mutex<Running?>(nil)
    private let ownWindow = Mutex<OwnWindow?>(nil)

    public init() {}

    func attach(node: MatterNode, setup: MatterSetup, port: Int) {
        running.withLock { $0 = Running(node: node, setup: setup, port: port) }
    }

    func detach() {
        running.withLock { $0 = nil }
        ownWindow.withLock { $0 = nil }
    }

    private func serving() throws(MatterControlError) -> Running {
        guard let running = running.withLock({ $0 }) else {
            throw .conflict("the Matter bridge does not serve yet (GET /api/health says why)")
        }
        return running
    }

    // MARK: MatterControl

    public func status() async throws(MatterControlError) -> MatterBridgeStatus {
        guard let running = running.withLock({ $0 }) else {
            return MatterBridgeStatus(serving: false, port: nil, manualPairingCode: nil, qrCodePayload: nil, window: nil, fabrics: [])
        }
        return status(running)
    }

    public func openWindow(seconds: Int) async throws(MatterControlError) -> MatterBridgeStatus {
        let running = try serving()
        let passcode = SetupPayload.randomPasscode()
        var discriminator: UInt16
        repeat { discriminator = UInt16.random(in: 0...0xFFF) } while discriminator == running.setup.discriminator
        let verifier: PASEVerifier
        do {
            verifier = try PASEVerifier(
                passcode: passcode, salt: (0..<32).map { _ in UInt8.random(in: 0...255) }, iterations: MatterSetup.iterations)
        } catch {
            throw .failed("cannot make the window's verifier: \(error)")
        }
        let now = ContinuousClock.now
        do {
            try running.node.openWindow(verifier: verifier, discriminator: discriminator, timeout: .seconds(seconds), now: now)
        } catch {
            throw .conflict("cannot open a commissioning window: \(error)")
        }
        let deadline = running.node.window?.deadline ?? now + .seconds(seconds)
        ownWindow.withLock { $0 = OwnWindow(passcode: passcode, discriminator: discriminator, deadline: deadline) }
        return status(running)
    }

    public func revokeWindow() async throws(MatterControlError) -> MatterBridgeStatus {
        let running = try serving()
        do {
            try running.node.revokeWindow()
        } catch {
            throw .notFound("no commissioning window is open")
        }
        ownWindow.withLock { $0 = nil }
        return status(running)
    }

    public func removeFabric(index: Int) async throws(MatterControlError) -> MatterBridgeStatus {
        let running = try serving()
        guard let number = UInt8(exactly: index) else { throw .notFound("no fabric \(index) (GET /api/matter lists them)") }
        do {
            try running.node.removeFabric(number)
        } catch {
            throw .notFound("the Matter bridge belongs to no fabric \(index) (GET /api/matter lists them)")
        }
        return status(running)
    }

    // MARK: The answer

    private func status(_ running: Running) -> MatterBridgeStatus {
        let now = ContinuousClock.now
        let fabrics = running.node.fabrics.map {
            MatterBridgeStatus.Fabric(index: Int($0.index), label: $0.label, vendorID: Int($0.vendorID), nodeID: $0.nodeID)
        }
        var window: MatterBridgeStatus.Window?
        var codes: SetupPayload?
        if let open = running.node.window, open.deadline > now {
            let own = ownWindow.withLock { own in
                own.flatMap { $0.discriminator == open.discriminator && $0.deadline == open.deadline && open.fabricIndex == nil ? $0 : nil }
            }
            let payload = own.flatMap {
                try? SetupPayload(
                    passcode: $0.passcode, discriminator: $0.discriminator, vendorID: MatterSetup.vendorID, productID: MatterSetup.productID)
            }
            codes = payload
            let left = open.deadline - now
            window = MatterBridgeStatus.Window(
                discriminator: Int(open.discriminator), secondsLeft: Int(left.components.seconds) + (left.components.attoseconds > 0 ? 1 : 0),
                manualPairingCode: payload?.manualPairingCode, qrCodePayload: payload?.qrCodePayload, openedHere: own != nil)
        } else {
            ownWindow.withLock { $0 = nil }
        }
        if window == nil, fabrics.isEmpty { codes = try? running.setup.payload() }
        return MatterBridgeStatus(
            serving: true, port: running.port, manualPairingCode: codes?.manualPairingCode, qrCodePayload: codes?.qrCodePayload,
            window: window, fabrics: fabrics)
    }
}

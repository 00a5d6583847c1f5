import GatewayCore
import Matter
import Testing

@testable import MatterBridge

@Suite("the Matter bridge's control for the HTTP API: codes, a window of homegate's, fabrics")
struct ControlTests {
    static func running() async throws -> (MatterBridgeControl, MatterNode, MatterSetup) {
        var settings = GatewayConfiguration.Matter()
        settings.discriminator = 3850
        let setup = try await MatterSetup.load(settings: settings, stored: nil, save: { _ in })
        let node = MatterNode(model: DataModel(endpoints: [:]), attestation: nil)
        let control = MatterBridgeControl()
        control.attach(node: node, setup: setup, port: 5540)
        return (control, node, setup)
    }

    @Test("before the bridge serves: not serving, no code, and the changes are refused (409)")
    func notServing() async throws {
        let control = MatterBridgeControl()
        let status = try await control.status()
        #expect(!status.serving && status.manualPairingCode == nil && status.fabrics.isEmpty)
        await #expect(throws: MatterControlError.self) { try await control.openWindow(seconds: 900) }
    }

    @Test("on no fabric its own code; a window has a code of its own with a fresh passcode until revoked")
    func window() async throws {
        let (control, node, setup) = try await Self.running()
        let own = try setup.payload()
        var status = try await control.status()
        #expect(status.serving && status.port == 5540 && status.manualPairingCode == own.manualPairingCode && status.window == nil)

        status = try await control.openWindow(seconds: 600)
        let window = try #require(status.window)
        #expect(window.openedHere && (599...600).contains(window.secondsLeft) && window.discriminator != 3850)
        #expect(window.manualPairingCode != own.manualPairingCode && status.manualPairingCode == window.manualPairingCode)
        #expect(node.advertising.openWindow == UInt16(window.discriminator))
        #expect(node.commissioningVerifier(default: try setup.verifier()) != (try setup.verifier()))
        await #expect(throws: MatterControlError.self) { try await control.openWindow(seconds: 600) }

        status = try await control.revokeWindow()
        #expect(status.window == nil && status.manualPairingCode == own.manualPairingCode)
        await #expect(throws: MatterControlError.notFound("no commissioning window is open")) { try await control.revokeWindow() }
        await #expect(throws: MatterControlError.self) { try await control.removeFabric(index: 3) }
    }

    @Test("known vendor ids are named for their ecosystems")
    func vendorNames() {
        let google = MatterBridgeStatus.Fabric(index: 1, label: "", vendorID: 0x6006, nodeID: 1)
        #expect(google.vendorName == "Google Home")
        #expect(MatterBridgeStatus.Fabric(index: 2, label: "", vendorID: 0x1349, nodeID: 1).vendorName == "Apple Home")
        #expect(MatterBridgeStatus.Fabric(index: 3, label: "", vendorID: 0x1234, nodeID: 1).vendorName == nil)
    }
}

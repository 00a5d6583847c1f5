import Crypto
import Synchronization
import Testing

@testable import Matter

@Suite("The device's own commissioning window and fabric removal (its user interface, not a controller's invoke)")
struct AdministrationTests {
    static let setup = PASEVerifier(w0: [UInt8](repeating: 1, count: 32), L: [UInt8](repeating: 2, count: 65), salt: [UInt8](repeating: 7, count: 16), iterations: 1000)
    static let windowVerifier = PASEVerifier(w0: [UInt8](repeating: 3, count: 32), L: [UInt8](repeating: 4, count: 65), salt: [UInt8](repeating: 9, count: 16), iterations: 1000)

    @Test("a window it opens: its verifier answers PASE, it is advertised, no administrator is named; revoked, it is gone")
    func window() throws {
        let node = try Commissioning().node
        let now = ContinuousClock.now
        try node.openWindow(verifier: Self.windowVerifier, discriminator: 0x123, timeout: .seconds(600), now: now)
        #expect(node.window == MatterNode.Window(discriminator: 0x123, deadline: now + .seconds(600), fabricIndex: nil))
        #expect(node.advertising.openWindow == 0x123)
        #expect(node.commissioningVerifier(default: Self.setup) == Self.windowVerifier)
        let attributes = node.model.endpoints[0]?[0x3C]?.attributes
        #expect(attributes?[0] == .unsigned(1) && attributes?[1] == .null && attributes?[2] == .null)
        #expect(throws: MatterNode.Refusal.busy("a commissioning window is open already")) {
            try node.openWindow(verifier: Self.windowVerifier, discriminator: 0x124, timeout: .seconds(600))
        }
        try node.revokeWindow()
        #expect(node.window == nil && node.advertising.openWindow == nil)
        #expect(node.model.endpoints[0]?[0x3C]?.attributes[0] == .unsigned(0))
        #expect(node.commissioningVerifier(default: Self.setup) == Self.setup)  // on no fabric: its own code again
        #expect(throws: MatterNode.Refusal.noWindow) { try node.revokeWindow() }
    }

    @Test("a window lasts 3 to 15 minutes whatever is asked, and closes at its deadline")
    func timeouts() throws {
        let node = try Commissioning().node
        let now = ContinuousClock.now
        try node.openWindow(verifier: Self.windowVerifier, discriminator: 1, timeout: .seconds(3600), now: now)
        #expect(node.window?.deadline == now + .seconds(900))
        node.tick(now: now + .seconds(899))
        #expect(node.window != nil)
        node.tick(now: now + .seconds(900))
        #expect(node.window == nil && node.advertising.openWindow == nil)
        try node.openWindow(verifier: Self.windowVerifier, discriminator: 1, timeout: .seconds(10), now: now)
        #expect(node.window?.deadline == now + .seconds(180))
    }

    @Test("a fabric removed: its ACL entries go, the stored state no longer has it, and the node is commissionable again")
    func removeFabric() throws {
        var commissioner = try Commissioning()
        _ = try commissioner.addNOC(authority: try TestFabricAuthority(), nodeID: 0x1234, adminSubject: 0x0001_B669)
        let admin = Subject.caseSession(fabricIndex: 1, nodeID: 0x0001_B669, tags: [])
        #expect(try commissioner.invoke(0x30, 0x04, [], as: admin).fields?[context: 0] == .unsigned(0))  // CommissioningComplete
        let node = commissioner.node
        #expect(node.commissioningVerifier(default: Self.setup) == nil)  // on a fabric, no window: no PASE
        #expect(throws: MatterNode.Refusal.noFabric(2)) { try node.removeFabric(2) }
        try node.removeFabric(1)
        #expect(node.fabrics.isEmpty && node.state.withLock { $0.acl.isEmpty })
        #expect(node.commissioningVerifier(default: Self.setup) == Self.setup)
        #expect(node.model.endpoints[0]?[ClusterID.operationalCredentials]?.attributes[3] == .unsigned(0))  // CommissionedFabrics
        let restored = MatterNode(model: DataModel(endpoints: [:]), attestation: nil)
        try restored.restore(node.persistentState)
        #expect(restored.fabrics.isEmpty)
    }
}

import Foundation
public import GatewayCore
import Matter

/// What `homegate matter pairing` prints: the codes a Matter controller adds the bridge with, and
/// the fabrics (ecosystems) it belongs to, read from the database.
public struct MatterPairing: Sendable {
    public struct Member: Sendable {
        public var index: Int
        public var vendorID: Int
        public var label: String
        public var nodeID: UInt64
    }

    public var manualPairingCode: String
    public var qrCodePayload: String
    public var discriminator: Int
    public var fabrics: [Member]

    /// The bridge's pairing as stored (`load` reads a key of `adapter_state`); before the bridge's
    /// first start it makes and keeps the setup through `save`, so the code printed is the one that
    /// works (nil `save`, next to a running homegate: nothing is made).
    public static func load(
        settings: GatewayConfiguration.Matter, load: (String) throws -> String?, save: ((String, String) async throws -> Void)?
    ) async throws -> MatterPairing {
        let setup = try await MatterSetup.load(
            settings: settings, stored: try load(MatterSetup.key), save: save.map { save in { try await save(MatterSetup.key, $0) } })
        let payload = try setup.payload()
        var fabrics: [Member] = []
        if let text = try load(MatterBridge.nodeKey), let bytes = Data(base64Encoded: text) {
            let node = MatterNode(model: DataModel(endpoints: [:]), attestation: nil)
            try node.restore(Array(bytes))
            fabrics = node.fabrics.map { Member(index: Int($0.index), vendorID: Int($0.vendorID), label: $0.label, nodeID: $0.nodeID) }
        }
        return MatterPairing(
            manualPairingCode: payload.manualPairingCode, qrCodePayload: payload.qrCodePayload, discriminator: Int(setup.discriminator),
            fabrics: fabrics)
    }
}

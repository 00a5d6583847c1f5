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
        if let node = try storedNode(load) { fabrics = members(node) }
        return MatterPairing(
            manualPairingCode: payload.manualPairingCode, qrCodePayload: payload.qrCodePayload, discriminator: Int(setup.discriminator),
            fabrics: fabrics)
    }

    /// Removes fabric `index`, or every fabric (nil), from the node as stored: what `homegate matter
    /// unpair` does while homegate is not running. The fabrics removed and those left.
    public static func removeFabrics(
        _ index: Int?, load: (String) throws -> String?, save: (String, String) async throws -> Void
    ) async throws -> (removed: [Member], left: [Member]) {
        guard let node = try storedNode(load) else { return ([], []) }
        let before = members(node)
        let removing = before.filter { index == nil || $0.index == index }
        if let index, removing.isEmpty {
            throw MatterError.storage("the Matter bridge belongs to no fabric \(index) (homegate matter pairing lists them)")
        }
        for member in removing { try node.removeFabric(UInt8(member.index)) }
        if !removing.isEmpty { try await save(MatterBridge.nodeKey, Data(node.persistentState).base64EncodedString()) }
        return (removing, members(node))
    }

    /// The node as stored, with Basic Information's NodeLabel and Location so that they are kept.
    static func storedNode(_ load: (String) throws -> String?) throws -> MatterNode? {
        guard let text = try load(MatterBridge.nodeKey) else { return nil }
        guard let bytes = Data(base64Encoded: text) else { throw MatterError.storage("\(MatterBridge.nodeKey) in the database is not base64") }
        let basic = DataModel.Cluster(attributes: [5: .utf8(""), 6: .utf8("XX")])
        let node = MatterNode(model: DataModel(endpoints: [0: [0x0028: basic]]), attestation: nil)
        try node.restore(Array(bytes))
        return node
    }

    static func members(_ node: MatterNode) -> [Member] {
        node.fabrics.map { Member(index: Int($0.index), vendorID: Int($0.vendorID), label: $0.label, nodeID: $0.nodeID) }
    }
}

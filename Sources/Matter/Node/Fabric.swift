public import Crypto

/// A fabric this node belongs to (Matter specification 2.5.1): its root, the node's operational
/// certificate and key, the IPK, and the ids derived from them.
public struct Fabric: Sendable {
    public var index: UInt8
    public var rootCertificate: [UInt8]
    public var noc: [UInt8]
    public var icac: [UInt8]?
    public var operationalKey: P256.Signing.PrivateKey
    /// The identity protection key's epoch key (16 bytes), from AddNOC.
    public var ipkEpochKey: [UInt8]
    public var vendorID: UInt16
    public var label: String
    public let fabricID: UInt64
    public let nodeID: UInt64
    public let rootPublicKey: [UInt8]
    public let compressedFabricID: [UInt8]

    /// Checks the chain NOC → (ICAC →) root and that the NOC carries `operationalKey`.
    public init(
        index: UInt8, rootCertificate: [UInt8], noc: [UInt8], icac: [UInt8]?, operationalKey: P256.Signing.PrivateKey,
        ipkEpochKey: [UInt8], vendorID: UInt16, label: String = ""
    ) throws(FabricError) {
        let root: MatterCertificate
        let node: MatterCertificate
        let intermediate: MatterCertificate?
        do {
            root = try MatterCertificate(tlv: rootCertificate)
            node = try MatterCertificate(tlv: noc)
            intermediate = try icac.map { try MatterCertificate(tlv: $0) }
        } catch {
            throw .invalidNOC("\(error)")
        }
        guard root.isCA, root.isSigned(by: root.publicKey) else { throw .invalidNOC("the root certificate is not a self-signed CA") }
        if let intermediate {
            guard intermediate.isCA, intermediate.isSigned(by: root.publicKey) else {
                throw .invalidNOC("the ICAC is not signed by the root")
            }
        }
        guard !node.isCA, node.isSigned(by: (intermediate ?? root).publicKey) else {
            throw .invalidNOC("the NOC is not signed by its issuer")
        }
        guard node.publicKey == Array(operationalKey.publicKey.x963Representation) else { throw .invalidPublicKey }
        guard let nodeID = node.nodeID, Fabric.isOperational(nodeID) else { throw .invalidNodeID }
        guard let fabricID = node.fabricID, fabricID != 0 else { throw .invalidNOC("the NOC has no fabric id") }
        if let rootFabric = root.fabricID, rootFabric != fabricID { throw .invalidNOC("the root is of fabric \(rootFabric)") }
        if let intermediateFabric = intermediate?.fabricID, intermediateFabric != fabricID {
            throw .invalidNOC("the ICAC is of another fabric")
        }
        guard ipkEpochKey.count == 16 else { throw .invalidNOC("the IPK is not 16 bytes") }
        self.index = index
        self.rootCertificate = rootCertificate
        self.noc = noc
        self.icac = icac
        self.operationalKey = operationalKey
        self.ipkEpochKey = ipkEpochKey
        self.vendorID = vendorID
        self.label = label
        self.fabricID = fabricID
        self.nodeID = nodeID
        self.rootPublicKey = root.publicKey
        self.compressedFabricID = Fabric.compressedID(rootPublicKey: root.publicKey, fabricID: fabricID)
    }

    /// What tells fabrics apart on the network: the index, the compressed fabric id and the node id.
    var identity: [UInt64] {
        [UInt64(index), compressedFabricID.reduce(0) { $0 << 8 | UInt64($1) }, nodeID]
    }

    /// Operational node ids: 0x0000_0000_0000_0001 … 0xFFFF_FFEF_FFFF_FFFF (Matter specification 2.5.5.1).
    static func isOperational(_ nodeID: UInt64) -> Bool {
        nodeID >= 1 && nodeID <= 0xFFFF_FFEF_FFFF_FFFF
    }

    /// HKDF-SHA256 over the root public key (without its 0x04), salted with the fabric id (4.3.2.2).
    static func compressedID(rootPublicKey: [UInt8], fabricID: UInt64) -> [UInt8] {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: rootPublicKey.dropFirst()), salt: bigEndian(fabricID),
            info: Array("CompressedFabric".utf8), outputByteCount: 8
        ).withUnsafeBytes { Array($0) }
    }

    /// The operational group key derived from the IPK epoch key (4.17.2): what CASE's destination id uses.
    public var operationalIPK: [UInt8] {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: ipkEpochKey), salt: compressedFabricID, info: Array("GroupKey v1.0".utf8),
            outputByteCount: 16
        ).withUnsafeBytes { Array($0) }
    }
}

/// Why AddNOC or UpdateNOC refused (NodeOperationalCertStatusEnum, Matter specification 11.18.4.3).
public enum FabricError: Error, Sendable, Equatable {
    case invalidPublicKey
    case invalidNodeID
    case invalidNOC(String)
    case missingCSR
    case tableFull
    case invalidAdminSubject
    case fabricConflict
    case labelConflict
    case invalidFabricIndex

    var status: UInt8 {
        switch self {
        case .invalidPublicKey: 1
        case .invalidNodeID: 2
        case .invalidNOC: 3
        case .missingCSR: 4
        case .tableFull: 5
        case .invalidAdminSubject: 6
        case .fabricConflict: 9
        case .labelConflict: 10
        case .invalidFabricIndex: 11
        }
    }
}

func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

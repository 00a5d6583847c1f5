import Crypto

/// What the node keeps across restarts (Matter specification 2.5, 6.6): the committed fabrics with
/// their keys, the access control entries and the writable Basic Information attributes, as one
/// TLV structure the embedding program stores (matter-demo: a file of the owner's alone), with the
/// next event number so that event numbers only grow across restarts.
/// A fabric still under a fail-safe is not kept: a restart rolls it back as the fail-safe would.
extension NodeState {
    func persistentState() -> [UInt8] {
        let pending = failSafe?.addedFabric
        let committed = fabrics.compactMap { fabric -> Fabric? in
            if fabric.index == pending { return nil }
            if let replaced = failSafe?.replacedFabric, replaced.index == fabric.index { return replaced }
            return fabric
        }
        let fabricElements = committed.map { fabric -> TLVElement in
            var fields = [
                TLVElement(.context(1), .unsigned(UInt64(fabric.index))),
                TLVElement(.context(2), .bytes(fabric.rootCertificate)),
                TLVElement(.context(3), .bytes(fabric.noc)),
                TLVElement(.context(5), .bytes(Array(fabric.operationalKey.rawRepresentation))),
                TLVElement(.context(6), .bytes(fabric.ipkEpochKey)),
                TLVElement(.context(7), .unsigned(UInt64(fabric.vendorID))),
                TLVElement(.context(8), .utf8(fabric.label)),
            ]
            if let icac = fabric.icac { fields.append(TLVElement(.context(4), .bytes(icac))) }
            return TLVElement(.structure(fields))
        }
        let basic = model.endpoints[0]?[ClusterID.basicInformation]?.attributes ?? [:]
        return TLVEncoder.encode(
            .structure([
                TLVElement(.context(1), .array(fabricElements)),
                TLVElement(.context(2), .array(acl.filter { $0.fabricIndex != pending }.map { TLVElement($0.tlv) })),
                TLVElement(.context(3), basic[5] ?? .utf8("")),
                TLVElement(.context(4), basic[6] ?? .utf8("XX")),
                TLVElement(.context(5), .unsigned(nextEventNumber)),
            ]))
    }

    /// Restores what `persistentState()` kept; a fabric whose certificates no longer check out is left out.
    mutating func restore(_ bytes: [UInt8]) throws {
        let stored = try TLVDecoder.decode(bytes).value
        fabrics = try (stored[context: 1]?.members ?? []).map { element in
            let value = element.value
            let key: P256.Signing.PrivateKey
            do {
                key = try P256.Signing.PrivateKey(rawRepresentation: try value.bytesField(5, "operational key", length: 32...32))
            } catch {
                throw MatterError.storage("a fabric's operational key is not a P-256 key")
            }
            do {
                return try Fabric(
                    index: try value.field(1, "index", as: UInt8.self), rootCertificate: try value.bytesField(2, "root", length: 1...400),
                    noc: try value.bytesField(3, "NOC", length: 1...400),
                    icac: value[context: 4] == nil ? nil : try value.bytesField(4, "ICAC", length: 1...400), operationalKey: key,
                    ipkEpochKey: try value.bytesField(6, "IPK", length: 16...16), vendorID: try value.field(7, "vendor", as: UInt16.self),
                    label: { if case .utf8(let label)? = value[context: 8] { label } else { "" } }())
            } catch let error as FabricError {
                throw MatterError.storage("a stored fabric does not check out: \(error)")
            }
        }
        acl = try (stored[context: 2]?.members ?? []).map { element in
            try AccessControlEntry(tlv: element.value, fabricIndex: try element.value.field(0xFE, "FabricIndex", as: UInt8.self))
        }
        for (attribute, tag) in [(UInt32(5), UInt8(3)), (6, 4)] {
            if case .utf8? = stored[context: tag] {
                model.set(endpoint: 0, cluster: ClusterID.basicInformation, attribute: attribute, to: stored[context: tag]!)
            }
        }
        if let next = stored[context: 5]?.unsignedValue { nextEventNumber = max(nextEventNumber, next) }
        refresh()
    }
}

import Crypto

/// Operational Credentials (Matter specification 11.18): attestation, the CSR for an operational
/// key, and the fabric table (AddTrustedRootCertificate, AddNOC, UpdateNOC, labels, RemoveFabric).
extension NodeState {
    mutating func operationalCredentials(_ command: UInt32, _ fields: TLVValue, session: SessionContext) throws -> CommandResult {
        switch command {
        case 0x00:  // AttestationRequest
            let nonce = try fields.bytesField(0, "AttestationNonce", length: 32...32)
            guard let attestation else { return .status(.failure) }
            let (elements, signature) = try attestation.attestationElements(nonce: nonce, challenge: session.attestationChallenge)
            return .response(
                command: 0x01, fields: [TLVElement(.context(0), .bytes(elements)), TLVElement(.context(1), .bytes(signature))])
        case 0x02:  // CertificateChainRequest: 1 DAC, 2 PAI
            guard let attestation else { return .status(.failure) }
            switch try fields.field(0, "CertificateType", as: UInt8.self) {
            case 1: return .response(command: 0x03, fields: [TLVElement(.context(0), .bytes(attestation.dac))])
            case 2: return .response(command: 0x03, fields: [TLVElement(.context(0), .bytes(attestation.pai))])
            default: return .status(.invalidCommand)
            }
        case 0x04:  // CSRRequest
            let nonce = try fields.bytesField(0, "CSRNonce", length: 32...32)
            let forUpdate = fields[context: 1]?.boolValue ?? false
            guard let attestation else { return .status(.failure) }
            guard failSafe != nil else { return .status(.failsafeRequired) }
            if forUpdate, case .pase = session.subject { return .status(.invalidCommand) }
            if failSafe?.addedFabric != nil || failSafe?.replacedFabric != nil { return .status(.constraintError) }
            let key = P256.Signing.PrivateKey()
            pendingKey = (key, forUpdate)
            let csr = try CertificateSigningRequest.make(for: key)
            let (elements, signature) = try attestation.csrElements(csr: csr, nonce: nonce, challenge: session.attestationChallenge)
            return .response(
                command: 0x05, fields: [TLVElement(.context(0), .bytes(elements)), TLVElement(.context(1), .bytes(signature))])
        case 0x0B:  // AddTrustedRootCertificate
            let root = try fields.bytesField(0, "RootCACertificate", length: 1...400)
            guard failSafe != nil else { return .status(.failsafeRequired) }
            guard pendingRoot == nil, failSafe?.addedFabric == nil else { return .status(.constraintError) }
            guard let parsed = try? MatterCertificate(tlv: root), parsed.isCA, parsed.isSigned(by: parsed.publicKey) else {
                return .status(.invalidCommand)
            }
            pendingRoot = root
            return .success
        case 0x06:  // AddNOC
            return nocResponse(try addNOC(fields, session: session))
        case 0x07:  // UpdateNOC
            return nocResponse(try updateNOC(fields, session: session))
        case 0x09:  // UpdateFabricLabel
            guard case .utf8(let label)? = fields[context: 0], label.utf8.count <= 32 else { return .status(.constraintError) }
            let index = accessingFabric(session)
            guard let position = fabrics.firstIndex(where: { $0.index == index }) else { return nocResponse(.failure(.invalidFabricIndex)) }
            if !label.isEmpty, fabrics.contains(where: { $0.index != index && $0.label == label }) {
                return nocResponse(.failure(.labelConflict))
            }
            fabrics[position].label = label
            return nocResponse(.success(index))
        case 0x0A:  // RemoveFabric
            let index = try fields.field(0, "FabricIndex", as: UInt8.self)
            guard fabrics.contains(where: { $0.index == index }) else { return nocResponse(.failure(.invalidFabricIndex)) }
            fabrics.removeAll { $0.index == index }
            acl.removeAll { $0.fabricIndex == index }
            if failSafe?.addedFabric == index { failSafe?.addedFabric = nil }
            return nocResponse(.success(index))
        default:
            return .status(.unsupportedCommand)
        }
    }

    private func nocResponse(_ result: Result<UInt8, FabricError>) -> CommandResult {
        switch result {
        case .success(let index):
            return .response(
                command: 0x08, fields: [TLVElement(.context(0), .unsigned(0)), TLVElement(.context(1), .unsigned(UInt64(index)))])
        case .failure(let error):
            var fields = [TLVElement(.context(0), .unsigned(UInt64(error.status)))]
            if case .invalidNOC(let reason) = error { fields.append(TLVElement(.context(2), .utf8(String(reason.prefix(128))))) }
            return .response(command: 0x08, fields: fields)
        }
    }

    /// AddNOC {0: NOCValue, 1: ICACValue, 2: IPKValue, 3: CaseAdminSubject, 4: AdminVendorId}.
    private mutating func addNOC(_ fields: TLVValue, session: SessionContext) throws -> Result<UInt8, FabricError> {
        let noc = try fields.bytesField(0, "NOCValue", length: 1...400)
        let icac = fields[context: 1] == nil ? nil : try fields.bytesField(1, "ICACValue", length: 1...400)
        let ipk = try fields.bytesField(2, "IPKValue", length: 16...16)
        let adminSubject = try fields.field(3, "CaseAdminSubject", as: UInt64.self)
        let adminVendor = try fields.field(4, "AdminVendorId", as: UInt16.self)
        guard failSafe != nil else { return .failure(.invalidNOC("no fail-safe armed")) }
        guard failSafe?.addedFabric == nil, failSafe?.replacedFabric == nil else {
            return .failure(.invalidNOC("a NOC was already added under this fail-safe"))
        }
        guard let pending = pendingKey, !pending.forUpdate else { return .failure(.missingCSR) }
        guard let root = pendingRoot else { return .failure(.invalidNOC("no trusted root was added")) }
        guard fabrics.count < Self.supportedFabrics, let index = (UInt8(1)...254).first(where: { i in !fabrics.contains { $0.index == i } })
        else {
            return .failure(.tableFull)
        }
        let fabric: Fabric
        do {
            fabric = try Fabric(
                index: index, rootCertificate: root, noc: noc, icac: icac, operationalKey: pending.key, ipkEpochKey: ipk,
                vendorID: adminVendor)
        } catch {
            return .failure(error)
        }
        guard !fabrics.contains(where: { $0.rootPublicKey == fabric.rootPublicKey && $0.fabricID == fabric.fabricID }) else {
            return .failure(.fabricConflict)
        }
        guard Fabric.isOperational(adminSubject) || AccessControl.isCAT(adminSubject) else { return .failure(.invalidAdminSubject) }
        fabrics.append(fabric)
        acl.append(AccessControlEntry(fabricIndex: index, privilege: .administer, authMode: .case, subjects: [adminSubject], targets: nil))
        failSafe?.addedFabric = index
        pendingKey = nil
        pendingRoot = nil
        return .success(index)
    }

    /// UpdateNOC {0: NOCValue, 1: ICACValue}: a new NOC for the session's own fabric, under the same root.
    private mutating func updateNOC(_ fields: TLVValue, session: SessionContext) throws -> Result<UInt8, FabricError> {
        let noc = try fields.bytesField(0, "NOCValue", length: 1...400)
        let icac = fields[context: 1] == nil ? nil : try fields.bytesField(1, "ICACValue", length: 1...400)
        guard case .caseSession(let index, _, _) = session.subject, let position = fabrics.firstIndex(where: { $0.index == index }) else {
            return .failure(.invalidFabricIndex)
        }
        guard failSafe != nil, failSafe?.replacedFabric == nil, failSafe?.addedFabric == nil else {
            return .failure(.invalidNOC("no fail-safe for it"))
        }
        guard let pending = pendingKey, pending.forUpdate else { return .failure(.missingCSR) }
        let old = fabrics[position]
        let updated: Fabric
        do {
            updated = try Fabric(
                index: index, rootCertificate: old.rootCertificate, noc: noc, icac: icac, operationalKey: pending.key,
                ipkEpochKey: old.ipkEpochKey,
                vendorID: old.vendorID, label: old.label)
        } catch {
            return .failure(error)
        }
        guard updated.fabricID == old.fabricID else { return .failure(.invalidNOC("the new NOC is of another fabric")) }
        fabrics[position] = updated
        failSafe?.replacedFabric = old
        pendingKey = nil
        return .success(index)
    }
}

extension AccessControl {
    /// A CASE Authenticated Tag as a subject: 0xFFFF_FFFD_iiii_vvvv with a version of at least 1.
    static func isCAT(_ subject: UInt64) -> Bool {
        subject >> 32 == 0xFFFF_FFFD && subject & 0xFFFF != 0
    }
}

/// Administrator Commissioning (Matter specification 11.19): an administrator opens an enhanced
/// commissioning window with a new PASE verifier, so another ecosystem can join (multi-admin).
extension NodeState {
    struct CommissioningWindow: Sendable {
        var verifier: PASEVerifier
        var discriminator: UInt16
        var deadline: ContinuousClock.Instant
        /// The administrator that opened it; nil for one the device opened itself (its own user interface).
        var fabricIndex: UInt8?
        var vendorID: UInt16?
    }

    /// StatusCode of the cluster: Busy (2), PAKEParameterError (3), WindowNotOpen (4). Both
    /// commands are timed (`ClusterID.timedCommands`, checked by `invoke`).
    mutating func administratorCommissioning(_ command: UInt32, _ fields: TLVValue, session: SessionContext) throws -> CommandResult {
        switch command {
        case 0x00:  // OpenCommissioningWindow {0: timeout, 1: PAKEPasscodeVerifier (w0 ‖ L), 2: Discriminator, 3: Iterations, 4: Salt}
            let timeout = try fields.field(0, "CommissioningTimeout", as: UInt16.self)
            let verifier = try fields.bytesField(1, "PAKEPasscodeVerifier", length: 0...200)
            let discriminator = try fields.field(2, "Discriminator", as: UInt16.self)
            let iterations = try fields.field(3, "Iterations", as: UInt32.self)
            let salt = try fields.bytesField(4, "Salt", length: 0...64)
            guard window == nil, failSafe == nil else { return .status(.failure, cluster: 2) }  // Busy
            guard (180...900).contains(timeout) else { return .status(.invalidCommand) }
            guard verifier.count == 97, discriminator <= 0xFFF, PASEVerifier.iterationRange.contains(Int(iterations)),
                PASEVerifier.saltLengths.contains(salt.count)
            else { return .status(.failure, cluster: 3) }  // PAKEParameterError
            guard case .caseSession(let fabricIndex, _, _) = session.subject, let fabric = fabrics.first(where: { $0.index == fabricIndex })
            else {
                return .status(.unsupportedAccess)
            }
            window = CommissioningWindow(
                verifier: PASEVerifier(w0: Array(verifier[0..<32]), L: Array(verifier[32...]), salt: salt, iterations: Int(iterations)),
                discriminator: discriminator, deadline: session.now + .seconds(Int(timeout)), fabricIndex: fabricIndex,
                vendorID: fabric.vendorID)
            return .success
        case 0x02:  // RevokeCommissioning
            guard window != nil else { return .status(.failure, cluster: 4) }  // WindowNotOpen
            window = nil
            if failSafe != nil { rollBack() }
            return .success
        default:
            return .status(.unsupportedCommand)
        }
    }

    /// The verifier PASE answers with: an open window's, else the device's own while it is on no fabric.
    func commissioningVerifier(default setup: PASEVerifier) -> PASEVerifier? {
        if let window { return window.verifier }
        return fabrics.isEmpty ? setup : nil
    }
}

extension NodeState {
    var advertising: MatterNode.Advertising {
        MatterNode.Advertising(fabrics: fabrics, openWindow: window?.discriminator)
    }
}

/// PBKDFParamRequest (Matter specification 4.14.1.2), sent by the commissioner.
struct PBKDFParamRequest: Sendable {
    var initiatorRandom: [UInt8]
    var initiatorSessionID: UInt16
    var passcodeID: UInt16
    var hasPBKDFParameters: Bool
    var initiatorParameters: SessionParameters?

    init(tlv bytes: [UInt8]) throws {
        let message = try TLVDecoder.decode(bytes).value
        initiatorRandom = try message.bytesField(1, "initiatorRandom", length: 32...32)
        initiatorSessionID = try message.field(2, "initiatorSessionId", as: UInt16.self)
        passcodeID = try message.field(3, "passcodeId", as: UInt16.self)
        guard let has = message[context: 4]?.boolValue else { throw MatterError.unexpectedTLV("hasPBKDFParameters (tag 4) is missing") }
        hasPBKDFParameters = has
        initiatorParameters = try message[context: 5].map(SessionParameters.init(tlv:))
    }
}

/// PBKDFParamResponse, sent by the device.
struct PBKDFParamResponse: Sendable {
    var initiatorRandom: [UInt8]
    var responderRandom: [UInt8]
    var responderSessionID: UInt16
    /// Left out when the commissioner already has them.
    var pbkdf: (iterations: Int, salt: [UInt8])?
    var responderParameters: SessionParameters

    func encoded() -> [UInt8] {
        var fields: [TLVElement] = [
            TLVElement(.context(1), .bytes(initiatorRandom)),
            TLVElement(.context(2), .bytes(responderRandom)),
            TLVElement(.context(3), .unsigned(UInt64(responderSessionID))),
        ]
        if let pbkdf {
            fields.append(
                TLVElement(
                    .context(4),
                    .structure([
                        TLVElement(.context(1), .unsigned(UInt64(pbkdf.iterations))),
                        TLVElement(.context(2), .bytes(pbkdf.salt)),
                    ])))
        }
        fields.append(TLVElement(.context(5), responderParameters.tlv))
        return TLVEncoder.encode(.structure(fields))
    }
}

/// A node's MRP intervals, as it announces them during session establishment (Matter specification 4.13.1.1.3).
public struct SessionParameters: Sendable, Equatable {
    public var idleInterval: Duration
    public var activeInterval: Duration
    public var activeThreshold: Duration

    public init(_ mrp: MRPParameters = MRPParameters()) {
        idleInterval = mrp.idleInterval
        activeInterval = mrp.activeInterval
        activeThreshold = mrp.activeThreshold
    }

    init(tlv: TLVValue) throws {
        self.init()
        if tlv[context: 1] != nil { idleInterval = .milliseconds(try tlv.field(1, "SESSION_IDLE_INTERVAL", as: UInt32.self)) }
        if tlv[context: 2] != nil { activeInterval = .milliseconds(try tlv.field(2, "SESSION_ACTIVE_INTERVAL", as: UInt32.self)) }
        if tlv[context: 3] != nil { activeThreshold = .milliseconds(try tlv.field(3, "SESSION_ACTIVE_THRESHOLD", as: UInt16.self)) }
    }

    var tlv: TLVValue {
        func milliseconds(_ duration: Duration) -> UInt64 {
            UInt64(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        }
        return .structure([
            TLVElement(.context(1), .unsigned(milliseconds(idleInterval))),
            TLVElement(.context(2), .unsigned(milliseconds(activeInterval))),
            TLVElement(.context(3), .unsigned(milliseconds(activeThreshold))),
        ])
    }
}

/// The three PAKE messages: Pake1 {1: pA}, Pake2 {1: pB, 2: cB}, Pake3 {1: cA}.
enum PakeMessage {
    static func pake1(_ bytes: [UInt8]) throws -> [UInt8] {
        try TLVDecoder.decode(bytes).value.bytesField(1, "pA", length: 65...65)
    }

    static func pake2(pB: [UInt8], cB: [UInt8]) -> [UInt8] {
        TLVEncoder.encode(.structure([TLVElement(.context(1), .bytes(pB)), TLVElement(.context(2), .bytes(cB))]))
    }

    static func pake3(_ bytes: [UInt8]) throws -> [UInt8] {
        try TLVDecoder.decode(bytes).value.bytesField(1, "cA", length: 32...32)
    }
}

/// A Secure Channel StatusReport (Matter specification 4.11.1.2 and appendix D).
public struct StatusReport: Sendable, Equatable {
    public enum GeneralCode: UInt16, Sendable {
        case success = 0
        case failure = 1
        case badPrecondition = 2
        case outOfRange = 3
        case badRequest = 4
        case unsupported = 5
        case unexpected = 6
        case resourceExhausted = 7
        case busy = 8
        case timeout = 9
    }

    /// The Secure Channel protocol's own codes.
    public enum SecureChannelCode: UInt16, Sendable {
        case sessionEstablishmentSuccess = 0
        case noSharedTrustRoots = 1
        case invalidParameter = 2
        case closeSession = 3
        case busy = 4
    }

    public var generalCode: UInt16
    public var protocolID: ProtocolID
    public var protocolCode: UInt16

    public init(_ general: GeneralCode, protocolID: ProtocolID = .secureChannel, code: SecureChannelCode) {
        self.generalCode = general.rawValue
        self.protocolID = protocolID
        self.protocolCode = code.rawValue
    }

    public var isSuccess: Bool { generalCode == GeneralCode.success.rawValue }

    public func encoded() -> [UInt8] {
        littleEndian(generalCode) + littleEndian(protocolID.number) + littleEndian(protocolID.vendor) + littleEndian(protocolCode)
    }

    public static func decode(_ bytes: [UInt8]) throws -> StatusReport {
        var reader = ByteReader(bytes, what: "status report")
        let general = try reader.uint16()
        let protocolNumber = try reader.uint16()
        let vendor = try reader.uint16()
        let code = try reader.uint16()
        var report = StatusReport(.success, code: .sessionEstablishmentSuccess)
        report.generalCode = general
        report.protocolID = ProtocolID(vendor: vendor, number: protocolNumber)
        report.protocolCode = code
        return report
    }
}

/// A Matter TLV value (Matter specification, appendix A): what the decoder returns and the encoder takes.
/// Not `indirect` (the members are arrays, which already hold them apart): an indirect enum puts
/// every value, each attribute's number, in a heap box of its own.
public enum TLVValue: Sendable, Equatable {
    case signed(Int64)
    case unsigned(UInt64)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case utf8(String)
    case bytes([UInt8])
    case null
    case structure([TLVElement])
    case array([TLVElement])
    case list([TLVElement])
}

/// A tagged TLV value.
public struct TLVElement: Sendable, Equatable {
    public var tag: TLVTag
    public var value: TLVValue

    public init(_ tag: TLVTag, _ value: TLVValue) {
        self.tag = tag
        self.value = value
    }

    /// An anonymous element.
    public init(_ value: TLVValue) {
        self.init(.anonymous, value)
    }
}

extension TLVValue {
    /// The members of a structure, array or list; nil for a scalar.
    public var members: [TLVElement]? {
        switch self {
        case .structure(let members), .array(let members), .list(let members): members
        default: nil
        }
    }

    /// The member with a context tag, for reading a structure's fields.
    public subscript(context tag: UInt8) -> TLVValue? {
        members?.first { $0.tag == .context(tag) }?.value
    }

    /// An unsigned or non-negative signed integer.
    public var unsignedValue: UInt64? {
        switch self {
        case .unsigned(let value): value
        case .signed(let value) where value >= 0: UInt64(value)
        default: nil
        }
    }

    public var bytesValue: [UInt8]? {
        if case .bytes(let value) = self { value } else { nil }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }
}

extension TLVValue {
    /// The field `tag` of a structure as an unsigned integer that fits `T`, or a clear error naming it.
    public func field<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt8, _ name: String, as: T.Type) throws -> T {
        guard let value = self[context: tag] else { throw MatterError.unexpectedTLV("\(name) (tag \(tag)) is missing") }
        guard let number = value.unsignedValue, let fitting = T(exactly: number) else {
            throw MatterError.unexpectedTLV("\(name) (tag \(tag)) is not an unsigned integer of \(T.bitWidth) bits")
        }
        return fitting
    }

    /// The field `tag` of a structure as a byte string of an allowed length.
    public func bytesField(_ tag: UInt8, _ name: String, length: ClosedRange<Int>) throws -> [UInt8] {
        guard let value = self[context: tag] else { throw MatterError.unexpectedTLV("\(name) (tag \(tag)) is missing") }
        guard let bytes = value.bytesValue, length.contains(bytes.count) else {
            throw MatterError.unexpectedTLV("\(name) (tag \(tag)) is not a byte string of \(length) bytes")
        }
        return bytes
    }
}

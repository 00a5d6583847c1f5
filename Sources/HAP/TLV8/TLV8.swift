/// A TLV8 message: type, length and value items, as the pairing endpoints exchange them.
///
/// Values longer than 255 bytes travel as consecutive items of the same type; decoding joins
/// them back. Two different items of the same type are kept apart by a separator item (0xFF).
public struct TLV8: Sendable, Hashable {
    public struct Item: Sendable, Hashable {
        public var type: UInt8
        public var value: [UInt8]

        public init(_ type: UInt8, _ value: [UInt8]) {
            self.type = type
            self.value = value
        }
    }

    public var items: [Item]

    public init(_ items: [Item] = []) {
        self.items = items
    }

    public init(_ pairs: [(TLV8.Tag, [UInt8])]) {
        self.items = pairs.map { Item($0.0.rawValue, $0.1) }
    }

    /// The first item of this type.
    public subscript(tag: Tag) -> [UInt8]? {
        items.first { $0.type == tag.rawValue }?.value
    }

    /// A one-byte item (State, Method, Error, Permissions) read as a number.
    public func byte(_ tag: Tag) -> UInt8? {
        guard let value = self[tag], value.count == 1 else { return nil }
        return value[0]
    }

    public mutating func append(_ tag: Tag, _ value: [UInt8]) {
        items.append(Item(tag.rawValue, value))
    }

    public mutating func append(_ tag: Tag, byte: UInt8) {
        items.append(Item(tag.rawValue, [byte]))
    }

    /// The item lists between separators (as in a list-pairings answer).
    public var groups: [TLV8] {
        var result: [TLV8] = [TLV8()]
        for item in items {
            if item.type == Tag.separator.rawValue {
                result.append(TLV8())
            } else {
                result[result.count - 1].items.append(item)
            }
        }
        return result.filter { !$0.items.isEmpty }
    }
}

extension TLV8 {
    /// The bytes on the wire: each value cut into fragments of at most 255 bytes.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(items.reduce(0) { $0 + $1.value.count + 2 })
        var previousType: UInt8?
        for item in items {
            // Two items of one type in a row would read back as one value.
            if previousType == item.type, item.type != Tag.separator.rawValue {
                bytes.append(Tag.separator.rawValue)
                bytes.append(0)
            }
            previousType = item.type
            if item.value.isEmpty {
                bytes.append(item.type)
                bytes.append(0)
                continue
            }
            var offset = 0
            while offset < item.value.count {
                let length = min(255, item.value.count - offset)
                bytes.append(item.type)
                bytes.append(UInt8(length))
                bytes.append(contentsOf: item.value[offset..<offset + length])
                offset += length
            }
        }
        return bytes
    }

    /// Reads TLV8 bytes, joining the fragments of a long value (a 255-byte item followed by one
    /// of the same type).
    public init(decoding bytes: some Collection<UInt8>) throws(HAPError) {
        let bytes = Array(bytes)
        var items: [Item] = []
        var index = 0
        var continuing = false
        while index < bytes.count {
            guard index + 1 < bytes.count else {
                throw .malformedTLV("item of type \(bytes[index]) at offset \(index) has no length byte")
            }
            let type = bytes[index]
            let length = Int(bytes[index + 1])
            let start = index + 2
            guard start + length <= bytes.count else {
                throw .malformedTLV(
                    "item of type \(type) at offset \(index) says \(length) bytes but only \(bytes.count - start) follow")
            }
            let value = bytes[start..<start + length]
            if continuing, let last = items.last, last.type == type {
                items[items.count - 1].value.append(contentsOf: value)
            } else {
                items.append(Item(type, Array(value)))
            }
            continuing = length == 255
            index = start + length
        }
        self.items = items
    }
}

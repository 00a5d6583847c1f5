import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The topics of arriving messages, made into Strings once: a house's devices publish on a few
/// hundred topics over and over, so each message can share its topic's storage instead of
/// allocating its own. In a flood, 50,000 waiting messages then hold a thousand topics, not 50,000
/// (what that saved: docs/performance.md), and the network thread skips an allocation per message.
///
/// Looked up by a hash of the C string's bytes and confirmed byte by byte, so a collision only
/// costs a new String. Bounded: past `limit` topics (a client subscribed to `#` on a busy broker)
/// it starts over.
final class TopicCache: Sendable {
    private let table = Mutex<[UInt64: String]>([:])
    let limit: Int
    private let hash: @Sendable (UnsafeRawBufferPointer) -> UInt64

    /// `hash` is FNV-1a but for tests, which make every topic collide.
    init(limit: Int = 4_096, hash: @escaping @Sendable (UnsafeRawBufferPointer) -> UInt64 = TopicCache.fnv1a) {
        self.limit = limit
        self.hash = hash
    }

    /// The topic as a String, the cached one when these are its bytes.
    func topic(_ cString: UnsafePointer<CChar>) -> String {
        let length = strlen(cString)
        let bytes = UnsafeRawBufferPointer(start: cString, count: length)
        let key = hash(bytes)
        return table.withLock { table in
            if let known = table[key], Self.same(known, bytes) { return known }
            if table.count >= limit { table.removeAll(keepingCapacity: true) }
            let made = String(decoding: bytes, as: UTF8.self)
            table[key] = made
            return made
        }
    }

    var count: Int { table.withLock { $0.count } }

    /// Whether the String's UTF-8 is exactly these bytes (with `memcmp`: the generic `elementsEqual`
    /// cost more than the rest of the lookup).
    private static func same(_ string: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard string.utf8.count == bytes.count else { return false }
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return true }
        var string = string
        return string.withUTF8 { memcmp($0.baseAddress!, start, bytes.count) == 0 }
    }

    /// FNV-1a, 64 bits.
    static func fnv1a(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}

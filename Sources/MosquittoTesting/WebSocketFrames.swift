/// Just enough of RFC 6455 for a test or a benchmark to be a WebSocket client of the gateway's
/// event stream on a plain socket: the upgrade request, the frames a server sends (never masked),
/// and the pong a client owes a ping.
public enum WebSocketFrames {
    /// The opening handshake for `path` (with its query) on `host:port`.
    public static func upgradeRequest(host: String, port: Int, path: String) -> [UInt8] {
        Array(
            ("GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
    }

    /// Calls `frame` with the opcode and the payload of every whole frame at the start of `bytes`,
    /// in order; returns how many bytes they took (what is left is the start of a frame to come).
    public static func forEach(in bytes: UnsafeBufferPointer<UInt8>, _ frame: (UInt8, UnsafeBufferPointer<UInt8>) -> Void) -> Int {
        var position = 0
        while bytes.count - position >= 2 {
            let opcode = bytes[position] & 0x0f
            var length = Int(bytes[position + 1] & 0x7f)
            var header = 2
            if length == 126 {
                guard bytes.count - position >= 4 else { break }
                length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
                header = 4
            } else if length == 127 {
                guard bytes.count - position >= 10 else { break }
                length = (2..<10).reduce(0) { $0 << 8 | Int(bytes[position + $1]) }
                header = 10
            }
            guard bytes.count - position >= header + length else { break }
            frame(opcode, UnsafeBufferPointer(rebasing: bytes[(position + header)..<(position + header + length)]))
            position += header + length
        }
        return position
    }

    /// The answer to a ping: a client's frames are masked (§5.3), and a zero mask leaves the payload as it is.
    public static func pong(_ payload: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        [0x8a, 0x80 | UInt8(min(payload.count, 125)), 0, 0, 0, 0] + payload.prefix(125)
    }

    public static let text: UInt8 = 1
    public static let binary: UInt8 = 2
    public static let close: UInt8 = 8
    public static let ping: UInt8 = 9
}

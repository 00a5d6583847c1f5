import Foundation
import JSON
import MosquittoTesting
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A WebSocket client of the gateway's event stream, on a plain socket (RFC 6455 is small enough
/// to speak by hand, and the tests then see exactly what the server sends). It reads on a thread
/// of its own, unless made to stall: then nothing reads its socket until `resume()`. End it with
/// `disconnect()`.
final class WebSocketClient: @unchecked Sendable {
    struct Closed: Equatable {
        var code: UInt16
        var reason: String
    }

    private let fd: Int32
    /// Until the reading thread closes `fd`: after that the number may be another socket's (this
    /// process's HTTP client's, say), which `disconnect` must then leave alone.
    private let open = Mutex<Bool>(true)
    private let state = Mutex<(messages: [String], closed: Closed?, ended: Bool)>(([], nil, false))
    private let gate = Mutex<Bool>(false)

    /// `base` is the gateway's `http://host:port`; `receiveBuffer` shrinks the socket's, so a client
    /// that does not read is seen as stuck after little. `reading: false` starts it stalled.
    init(base: String, path: String, receiveBuffer: Int32? = nil, reading: Bool = true) throws {
        let url = URL(string: base)!
        let fd = try connectSocket(base, receiveBuffer: receiveBuffer)
        _ = WebSocketFrames.upgradeRequest(host: url.host!, port: url.port!, path: path).withUnsafeBytes {
            write(fd, $0.baseAddress, $0.count)
        }
        var received: [UInt8] = []
        var byte = [UInt8](repeating: 0, count: 1)
        // Byte by byte up to the blank line, so no frame is taken with the head.
        while !received.suffix(4).elementsEqual("\r\n\r\n".utf8) {
            guard read(fd, &byte, 1) == 1 else {
                close(fd)
                throw HarnessError("the gateway closed the handshake: \(String(decoding: received, as: UTF8.self))")
            }
            received += byte
        }
        let head = String(decoding: received, as: UTF8.self)
        guard head.hasPrefix("HTTP/1.1 101") else {
            close(fd)
            throw HarnessError("not upgraded: \(head)")
        }
        self.fd = fd
        gate.withLock { $0 = reading }
        Thread { [self] in readLoop() }.start()
    }

    /// The text messages so far, in order.
    var messages: [String] { state.withLock { $0.messages } }
    /// The close frame the server sent, if any.
    var closed: Closed? { state.withLock { $0.closed } }
    /// The server has ended the connection.
    var ended: Bool { state.withLock { $0.ended } }

    /// Starts reading (a client made with `reading: false`).
    func resume() { gate.withLock { $0 = true } }

    /// Ends the connection from this side; the reading thread ends and closes the socket.
    func disconnect() {
        open.withLock { if $0 { shutdown(fd, Int32(SHUT_RDWR)) } }
        resume()
    }

    func waitFor(timeout: Duration = .seconds(20), _ what: String, _ condition: (WebSocketClient) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(self) {
            guard ContinuousClock.now < deadline else {
                throw HarnessError(
                    "no \(what) within \(timeout): \(messages.count) messages, closed \(String(describing: closed)), ended \(ended)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func readLoop() {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            while !gate.withLock({ $0 }) { usleep(5_000) }
            let n = read(fd, &chunk, chunk.count)
            guard n > 0 else { break }
            buffer += chunk[0..<n]
            let used = buffer.withUnsafeBufferPointer { bytes in
                WebSocketFrames.forEach(in: bytes) { opcode, payload in
                    switch opcode {
                    case WebSocketFrames.text: state.withLock { $0.messages.append(String(decoding: payload, as: UTF8.self)) }
                    case WebSocketFrames.close:
                        let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : 1005
                        state.withLock { $0.closed = Closed(code: code, reason: String(decoding: payload.dropFirst(2), as: UTF8.self)) }
                    case WebSocketFrames.ping: _ = WebSocketFrames.pong(payload).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                    default: break
                    }
                }
            }
            buffer.removeFirst(used)
        }
        state.withLock { $0.ended = true }
        open.withLock {
            $0 = false
            close(fd)
        }
    }
}

/// A TCP connection to the gateway at `base` (`http://host:port`); `receiveBuffer` shrinks the socket's.
func connectSocket(_ base: String, receiveBuffer: Int32? = nil) throws -> Int32 {
    let url = URL(string: base)!
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
    if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(url.port!).bigEndian)
    address.sin_addr.s_addr = inet_addr(url.host!)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        throw HarnessError("cannot connect to \(base): errno \(errno)")
    }
    return fd
}

/// A Server-Sent Events client on a plain socket that can stall like `WebSocketClient`: the
/// response as it came (head, chunk sizes and all), read on a thread of its own once reading.
final class RawEventStream: @unchecked Sendable {
    private let fd: Int32
    private let open = Mutex<Bool>(true)
    private let received = Mutex<[UInt8]>([])
    private let gate = Mutex<Bool>(false)

    init(base: String, path: String, receiveBuffer: Int32? = nil, reading: Bool = true) throws {
        fd = try connectSocket(base, receiveBuffer: receiveBuffer)
        let host = URL(string: base)!.host!
        _ = Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nAccept: text/event-stream\r\n\r\n".utf8).withUnsafeBytes {
            write(fd, $0.baseAddress, $0.count)
        }
        gate.withLock { $0 = reading }
        Thread { [self] in readLoop() }.start()
    }

    /// Everything received so far.
    var text: String { String(decoding: received.withLock { $0 }, as: UTF8.self) }
    /// How many events of `type` have arrived.
    func count(_ type: String) -> Int { text.components(separatedBy: "event: \(type)\n").count - 1 }
    /// The response is over: its last chunk has come.
    var finished: Bool { received.withLock { $0.suffix(7).elementsEqual("\r\n0\r\n\r\n".utf8) } }

    func resume() { gate.withLock { $0 = true } }

    func disconnect() {
        open.withLock { if $0 { shutdown(fd, Int32(SHUT_RDWR)) } }
        resume()
    }

    func waitFor(timeout: Duration = .seconds(20), _ what: String, _ condition: (RawEventStream) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(self) {
            guard ContinuousClock.now < deadline else { throw HarnessError("no \(what) within \(timeout): \(text.suffix(300))") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func readLoop() {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            while !gate.withLock({ $0 }) { usleep(5_000) }
            let n = read(fd, &chunk, chunk.count)
            guard n > 0 else { break }
            received.withLock { $0 += chunk[0..<n] }
        }
        open.withLock {
            $0 = false
            close(fd)
        }
    }
}

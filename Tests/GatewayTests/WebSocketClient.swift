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

    private let socket: StallableSocket
    private let state = Mutex<(messages: [String], closed: Closed?, ended: Bool)>(([], nil, false))

    /// `base` is the gateway's `http://host:port`; `receiveBuffer` shrinks the socket's, so a client
    /// that does not read is seen as stuck after little. `reading: false` starts it stalled.
    init(base: String, path: String, receiveBuffer: Int32? = nil, reading: Bool = true) throws {
        let url = URL(string: base)!
        socket = try StallableSocket(base, receiveBuffer: receiveBuffer, reading: reading)
        let fd = socket.fd
        socket.send(WebSocketFrames.upgradeRequest(host: url.host!, port: url.port!, path: path))
        var received: [UInt8] = []
        var byte = [UInt8](repeating: 0, count: 1)
        // Byte by byte up to the blank line, so no frame is taken with the head.
        while !received.suffix(4).elementsEqual("\r\n\r\n".utf8) {
            guard read(fd, &byte, 1) == 1 else {
                socket.abandon()
                throw HarnessError("the gateway closed the handshake: \(String(decoding: received, as: UTF8.self))")
            }
            received += byte
        }
        let head = String(decoding: received, as: UTF8.self)
        guard head.hasPrefix("HTTP/1.1 101") else {
            socket.abandon()
            throw HarnessError("not upgraded: \(head)")
        }
        socket.start { [self] buffer in
            let used = buffer.withUnsafeBufferPointer { bytes in
                WebSocketFrames.forEach(in: bytes) { opcode, payload in
                    switch opcode {
                    case WebSocketFrames.text: state.withLock { $0.messages.append(String(decoding: payload, as: UTF8.self)) }
                    case WebSocketFrames.close:
                        let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : 1005
                        state.withLock { $0.closed = Closed(code: code, reason: String(decoding: payload.dropFirst(2), as: UTF8.self)) }
                    case WebSocketFrames.ping: socket.send(WebSocketFrames.pong(payload))
                    default: break
                    }
                }
            }
            buffer.removeFirst(used)
        } ended: { [self] in
            state.withLock { $0.ended = true }
        }
    }

    /// The text messages so far, in order.
    var messages: [String] { state.withLock { $0.messages } }
    /// The close frame the server sent, if any.
    var closed: Closed? { state.withLock { $0.closed } }
    /// The server has ended the connection.
    var ended: Bool { state.withLock { $0.ended } }

    /// Starts reading (a client made with `reading: false`).
    func resume() { socket.resume() }

    /// Ends the connection from this side; the reading thread ends and closes the socket.
    func disconnect() { socket.disconnect() }

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
}

/// A Server-Sent Events client on a plain socket that can stall like `WebSocketClient`: the
/// response as it came (head, chunk sizes and all), read on a thread of its own once reading.
final class RawEventStream: @unchecked Sendable {
    private let socket: StallableSocket
    private let received = Mutex<[UInt8]>([])

    init(base: String, path: String, receiveBuffer: Int32? = nil, reading: Bool = true) throws {
        socket = try StallableSocket(base, receiveBuffer: receiveBuffer, reading: reading)
        socket.send(Array("GET \(path) HTTP/1.1\r\nHost: \(URL(string: base)!.host!)\r\nAccept: text/event-stream\r\n\r\n".utf8))
        socket.start { [self] buffer in
            received.withLock { $0 += buffer }
            buffer = []
        } ended: {
        }
    }

    /// Everything received so far.
    var text: String { String(decoding: received.withLock { $0 }, as: UTF8.self) }
    /// How many events of `type` have arrived.
    func count(_ type: String) -> Int { text.components(separatedBy: "event: \(type)\n").count - 1 }
    /// The response is over: its last chunk has come.
    var finished: Bool { received.withLock { $0.suffix(7).elementsEqual("\r\n0\r\n\r\n".utf8) } }

    func resume() { socket.resume() }

    func disconnect() { socket.disconnect() }

    func waitFor(timeout: Duration = .seconds(20), _ what: String, _ condition: (RawEventStream) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(self) {
            guard ContinuousClock.now < deadline else { throw HarnessError("no \(what) within \(timeout): \(text.suffix(300))") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// A TCP connection to the gateway, read on a thread of its own that can be held: while it is,
/// nothing reads the socket, and what the server sends piles up as for a client that stopped reading.
final class StallableSocket: @unchecked Sendable {
    let fd: Int32
    /// Until the reading thread closes `fd`: after that the number may be another socket's (this
    /// process's HTTP client's, say), which `disconnect` must then leave alone.
    private let open = Mutex<Bool>(true)
    private let gate: Mutex<Bool>

    /// `base` is the gateway's `http://host:port`; `receiveBuffer` shrinks the socket's, so a client
    /// that does not read is seen as stuck after little. `reading: false` starts it held.
    init(_ base: String, receiveBuffer: Int32?, reading: Bool) throws {
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
        self.fd = fd
        gate = Mutex(reading)
    }

    /// Reads until the connection ends, handing over what has come and not yet been taken (the
    /// handler removes what it used); then closes the socket.
    func start(_ received: @escaping @Sendable (inout [UInt8]) -> Void, ended: @escaping @Sendable () -> Void) {
        Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            var buffer: [UInt8] = []
            while true {
                while !gate.withLock({ $0 }) { usleep(5_000) }
                let n = read(fd, &chunk, chunk.count)
                guard n > 0 else { break }
                buffer += chunk[0..<n]
                received(&buffer)
            }
            ended()
            abandon()
        }.start()
    }

    func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }

    /// Starts reading (a socket made with `reading: false`).
    func resume() { gate.withLock { $0 = true } }

    /// Ends the connection from this side; the reading thread ends and closes the socket.
    func disconnect() {
        open.withLock { if $0 { shutdown(fd, Int32(SHUT_RDWR)) } }
        resume()
    }

    /// Closes the socket, once (a client that never started reading, or the reading thread at its end).
    func abandon() {
        open.withLock {
            if $0 { close(fd) }
            $0 = false
        }
    }
}

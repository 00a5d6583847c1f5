import Foundation
import Histogram
import JSON
import MosquittoTesting
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Many WebSocket clients of the gateway's `/api/events`, read by one thread with poll(2) so the
/// benchmark's own cost stays small: every client counts the events it gets, and a few of them
/// (spread over the connection order, which is the order the gateway hands events out) also read
/// each event's accessory and value to time it against the moment its reading was published.
final class EventSockets: @unchecked Sendable {
    private struct Connection {
        var fd: Int32
        var buffer: [UInt8] = []
        var timed: Bool
        var open = true
        /// Whether it has had an event yet.
        var heard = false
    }

    /// Send times by key ("<sensor>|<tenths>"), written by the publisher, never removed: every
    /// client times the same reading.
    private let sent = Mutex<[String: UInt64]>([:])
    private let timings = Mutex(Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three))
    private let frames = Atomic<Int>(0)
    private let heard = Atomic<Int>(0)
    private let closed = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let finished = Mutex<Bool>(false)
    private var connections: [Connection] = []
    let count: Int
    let timedCount: Int

    /// Connects `count` clients to `ws://127.0.0.1:<port><path>` and completes their handshakes;
    /// `timed` of them time events.
    init(port: Int, path: String, count: Int, timed: Int) throws {
        self.count = count
        let every = max(1, count / max(1, timed))
        for index in 0..<count {
            let fd = try Self.handshake(port: port, path: path)
            connections.append(Connection(fd: fd.fd, buffer: fd.leftover, timed: index % every == 0 || index == count - 1))
        }
        timedCount = connections.filter(\.timed).count
        for connection in connections { _ = fcntl(connection.fd, F_SETFL, fcntl(connection.fd, F_GETFL) | O_NONBLOCK) }
        let thread = Thread { [self] in readLoop() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// What the publisher calls for each reading.
    func published(_ key: String, at nanos: UInt64) { sent.withLock { $0[key] = nanos } }

    /// Events received by all clients so far; clients the gateway has closed.
    var received: Int { frames.load(ordering: .relaxed) }
    var closedByGateway: Int { closed.load(ordering: .relaxed) }
    /// Clients that have had at least one event: all of them once the server sends to each.
    var clientsHeard: Int { heard.load(ordering: .relaxed) }

    /// The timed clients' latencies so far, and a fresh start.
    func takeTimings() -> Histogram<UInt64> {
        timings.withLock { histogram in
            defer { histogram.reset() }
            return histogram
        }
    }

    func forgetSent() { sent.withLock { $0.removeAll(keepingCapacity: true) } }

    func close() {
        stopping.store(true, ordering: .relaxed)
        while !finished.withLock({ $0 }) { usleep(10_000) }
        for connection in connections { Glibc.close(connection.fd) }
    }

    private static func handshake(port: Int, path: String) throws -> (fd: Int32, leftover: [UInt8]) {
        guard let fd = connectLoopback(port: Int32(port)) else { throw BenchError("cannot connect to 127.0.0.1:\(port): errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let request = WebSocketFrames.upgradeRequest(host: "127.0.0.1", port: port, path: path)
        guard request.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == request.count else {
            throw BenchError("cannot send the WebSocket handshake: errno \(errno)")
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw BenchError("the gateway closed the WebSocket handshake") }
            received += chunk[0..<n]
            if let range = received.firstRange(of: end) {
                let head = String(decoding: received[..<range.lowerBound], as: UTF8.self)
                guard head.hasPrefix("HTTP/1.1 101") else {
                    throw BenchError("the gateway refused the WebSocket: \(head.split(separator: "\r\n").first ?? "")")
                }
                return (fd, Array(received[range.upperBound...]))
            }
        }
    }

    private func readLoop() {
        var polled = connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        // What handshakes brought along with the 101.
        for index in connections.indices where !connections[index].buffer.isEmpty { parse(index, at: now()) }
        while !stopping.load(ordering: .relaxed) {
            let ready = polled.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), 100) }
            guard ready > 0 else { continue }
            for index in polled.indices where polled[index].revents != 0 {
                guard connections[index].open else {
                    polled[index].fd = -1  // poll skips it from now on
                    continue
                }
                while true {
                    let n = chunk.withUnsafeMutableBytes { read(connections[index].fd, $0.baseAddress, $0.count) }
                    if n > 0 {
                        connections[index].buffer += chunk[0..<n]
                        if n < chunk.count { break }
                    } else {
                        if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { end(index) }
                        break
                    }
                }
                parse(index, at: now())
            }
        }
        finished.withLock { $0 = true }
    }

    private func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    private func end(_ index: Int) {
        guard connections[index].open else { return }
        connections[index].open = false
        closed.add(1, ordering: .relaxed)
    }

    /// Every whole frame in the connection's buffer (the gateway never fragments). What a close or
    /// a ping asks is done after: `connections` is not touched while its buffer is being read.
    private func parse(_ index: Int, at arrived: UInt64) {
        var texts = 0
        var closing = false
        var pongs: [[UInt8]] = []
        let timed = connections[index].timed
        let used = connections[index].buffer.withUnsafeBufferPointer { buffer in
            WebSocketFrames.forEach(in: buffer) { opcode, payload in
                switch opcode {
                case WebSocketFrames.text, WebSocketFrames.binary:
                    texts += 1
                    if timed { time(payload, arrived: arrived) }
                case WebSocketFrames.close: closing = true
                case WebSocketFrames.ping: pongs.append(WebSocketFrames.pong(payload))
                default: break
                }
            }
        }
        connections[index].buffer.removeFirst(used)
        if texts > 0 {
            frames.add(texts, ordering: .relaxed)
            if !connections[index].heard {
                connections[index].heard = true
                heard.add(1, ordering: .relaxed)
            }
        }
        for pong in pongs { _ = pong.withUnsafeBytes { write(connections[index].fd, $0.baseAddress, $0.count) } }
        if closing { end(index) }
    }

    private func time(_ payload: UnsafeBufferPointer<UInt8>, arrived: UInt64) {
        guard let message = try? JSONValue(parsing: Array(payload)), let data = message["data"],
            let accessory = data["accessory"]?.stringValue, let value = data["value"]?.doubleValue
        else { return }
        let key = "\(accessory)|\(Int((value * 10).rounded()))"
        guard let start = sent.withLock({ $0[key] }), arrived > start else { return }
        timings.withLock { _ = $0.record((arrived - start) / 1000) }
    }
}

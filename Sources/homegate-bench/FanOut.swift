import ArgumentParser
import CMosquitto
import Foundation
import Glibc
import MosquittoTesting
import Synchronization

/// The stream benchmark's reference: a WebSocket fan-out that does no work. It takes homegate's
/// events from the broker and writes each, framed once as the gateway frames it, to every client:
/// one `write` per event and client, nothing else (no filter, no buffer, no event loop). What it
/// costs is what the kernel charges for sending that many messages over loopback, the floor under
/// any server that sends each event as it comes. It answers only the handshake `WebSocketFrames`
/// sends (the RFC's sample key), as it serves nothing but the benchmark's own clients.
struct FanOut: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout",
        abstract: "Write every event on --filter to every WebSocket client, one write each (a no-work floor for `stream`).")

    @Option(help: "The broker's port on 127.0.0.1.") var port: Int32
    @Option(help: "The port on 127.0.0.1 the clients connect to.") var listen: Int32
    @Option(help: "The events to fan out.") var filter = "homegate/event/#"

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        let (listener, _) = try bindLoopback(port: listen, listen: 1024)
        let clients = FanOutClients()
        let acceptor = Thread { clients.accept(from: listener) }
        acceptor.start()
        try BareClient(filter: filter) { _, message in
            guard let topic = message.pointee.topic else { return }
            clients.send(
                topic: topic, payload: UnsafeRawBufferPointer(start: message.pointee.payload, count: Int(message.pointee.payloadlen)))
        }.run(id: "bench-fanout", port: port)
    }
}

final class FanOutClients: Sendable {
    private let sockets = Mutex<[Int32]>([])

    /// Completes each client's handshake and adds it; runs on a thread of its own.
    func accept(from listener: Int32) {
        let answer = Array(
            ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n").utf8)
        while true {
            let fd = Glibc.accept(listener, nil, nil)
            guard fd >= 0 else { continue }
            var request: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 2048)
            while request.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { break }
                request += chunk[0..<n]
            }
            guard String(decoding: request, as: UTF8.self).contains("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n") else {
                close(fd)
                continue
            }
            // The same send buffer and Nagle setting as the gateway gives its clients.
            var size: Int32 = 64 * 1024
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            // Answered and added under the lock: no event is written to it before its 101, and
            // every event after the 101 is.
            sockets.withLock { sockets in
                _ = answer.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                sockets.append(fd)
            }
        }
    }

    /// The event framed once, as the gateway frames it, and written to every client; a client
    /// whose socket is full or gone is closed.
    func send(topic: UnsafePointer<CChar>, payload: UnsafeRawBufferPointer) {
        let levels = String(cString: topic).split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count >= 4 else { return }  // <base>/event/<type>/<id> or …/<accessory>/<service>/<characteristic>
        let type = levels.count == 5 ? "characteristic" : String(levels[2])
        var json = Array(#"{"event":""#.utf8) + Array(type.utf8) + Array(#"","data":"#.utf8)
        json += payload
        json.append(UInt8(ascii: "}"))
        var frame: [UInt8] = [0x81]
        if json.count < 126 {
            frame.append(UInt8(json.count))
        } else if json.count <= Int(UInt16.max) {
            frame += [126, UInt8(json.count >> 8), UInt8(json.count & 0xFF)]
        } else {
            frame.append(127)
            frame += (0..<8).reversed().map { UInt8((json.count >> ($0 * 8)) & 0xFF) }
        }
        frame += json
        let clients = sockets.withLock { $0 }
        var failed: [Int32] = []
        frame.withUnsafeBytes { bytes in
            for fd in clients where write(fd, bytes.baseAddress, bytes.count) != bytes.count { failed.append(fd) }
        }
        guard !failed.isEmpty else { return }
        sockets.withLock { $0.removeAll(where: failed.contains) }
        for fd in failed { close(fd) }
    }
}

import Foundation
import Testing

@testable import HAPBridge

#if canImport(Glibc)
import Glibc
#endif

@Suite("Who holds a port (/proc/net/tcp)")
struct PortHolderTests {
    // 0xCA12 = 51730. A listener on it, a connection from it (not listening), a listener elsewhere.
    static let table = """
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 00000000:CA12 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 51443 1 0000000000000000 100 0 0 10 0
           1: 0100007F:CA12 0100007F:91E4 01 00000000:00000000 00:00000000 00000000     0        0 51450 1 0000000000000000 20 4 30 10 -1
           2: 0100007F:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 61001 1 0000000000000000 100 0 0 10 0
        """

    @Test("the listening sockets' inodes on the port, and no others")
    func inodes() {
        #expect(PortHolder.listeningInodes(port: 51730, table: Self.table) == ["51443"])
        #expect(PortHolder.listeningInodes(port: 80, table: Self.table) == ["61001"])
        #expect(PortHolder.listeningInodes(port: 51731, table: Self.table).isEmpty)
    }

    /// A socket of this process listening on 127.0.0.1 at a port the kernel picks: its descriptor and port.
    static func listenOnLoopback() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard listening && listen(fd, 1) == 0 else {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test("a port this process listens on is held by this process, by its pid", .enabled(if: FileManager.default.fileExists(atPath: "/proc/net/tcp")))
    func thisProcess() throws {
        let (fd, port) = try Self.listenOnLoopback()
        defer { close(fd) }
        let holder = try #require(PortHolder.describe(port: port))
        #expect(holder.contains("(pid \(getpid()))"), "\(holder)")
    }

    @Test(
        "two processes on the port, on different addresses: both are named",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/net/tcp6") && FileManager.default.fileExists(atPath: "/usr/bin/python3")))
    func twoHolders() throws {
        let (fd, port) = try Self.listenOnLoopback()
        defer { close(fd) }
        // Another process listens on the same port on ::1 (IPv6 only), as a second program may.
        let other = Process()
        other.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        other.arguments = [
            "-c",
            """
            import socket, sys
            s = socket.socket(socket.AF_INET6)
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            s.bind(("::1", \(port)))
            s.listen()
            print("listening", flush=True)
            sys.stdin.read()
            """,
        ]
        let output = Pipe()
        let input = Pipe()
        other.standardOutput = output
        other.standardInput = input
        try other.run()
        defer {
            try? input.fileHandleForWriting.close()
            other.waitUntilExit()
        }
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        try #require(line.hasPrefix("listening"), "the second listener did not start: \(line)")
        let holder = try #require(PortHolder.describe(port: port))
        #expect(holder.contains("(pid \(getpid()))"), "\(holder)")
        #expect(holder.contains("(pid \(other.processIdentifier))"), "\(holder)")
    }
}

import Foundation
import Mosquitto
import MosquittoTesting
import Persistence
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("homegate doctor: the Matter bridge", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct DoctorMatterTests {
    /// A UDP socket on a free loopback port: without SO_REUSEADDR it keeps the bridge (which sets
    /// it) off the port; with it, the bridge could bind too and share the port's messages.
    static func holdUDPPort(reusable: Bool) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var one: Int32 = 1
        if reusable { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(fd >= 0 && bound)
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    static func environment(_ broker: TestBroker) throws -> [String: String] {
        let mappings = broker.directory.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        return [
            "HOMEGATE_MQTT_URL": broker.url, "HOMEGATE_DATABASE": broker.database, "HOMEGATE_MAPPINGS": mappings.path, "TZ": "UTC",
            "HOMEGATE_MATTER_ENABLED": "true",
        ]
    }

    @Test("with homegate stopped: a UDP port another program holds fails, naming it; one it shares warns; avahi-daemon is checked")
    func port() async throws {
        let broker = try TestBroker()
        var environment = try Self.environment(broker)
        let (fd, port) = try Self.holdUDPPort(reusable: false)
        defer { close(fd) }
        environment["HOMEGATE_MATTER_PORT"] = "\(port)"
        let taken = try await homegate(["doctor", "--timeout", "2"], environment: environment)
        #expect(taken.status == 1, "\(taken.output)")
        #expect(taken.output.contains("fail  matter       UDP port \(port) is in use by "), "\(taken.output)")
        #expect(taken.output.contains("(pid \(getpid()))"), "the holder is this test's process: \(taken.output)")
        #expect(taken.output.contains("  mdns "), "avahi-daemon is checked: \(taken.output)")
        #expect(taken.output.contains("info  matter       not commissioned yet"), "\(taken.output)")

        let (shared, sharedPort) = try Self.holdUDPPort(reusable: true)
        defer { close(shared) }
        environment["HOMEGATE_MATTER_PORT"] = "\(sharedPort)"
        let also = try await homegate(["doctor", "--timeout", "2"], environment: environment)
        #expect(also.output.contains("warn  matter       UDP port \(sharedPort) is also bound by "), "\(also.output)")
        #expect(also.output.contains("(pid \(getpid()))"), "\(also.output)")
    }

    @Test("the stored state: readable with no fabric yet, and a broken endpoint map fails")
    func stored() async throws {
        let broker = try TestBroker()
        var environment = try Self.environment(broker)
        environment["HOMEGATE_MATTER_PORT"] = "0"
        let pairing = try await homegate(["matter", "pairing"], environment: environment)
        #expect(pairing.status == 0, "\(pairing.output)")
        let readable = try await homegate(["doctor", "--timeout", "2"], environment: environment)
        #expect(readable.output.contains("info  matter       matter.port is 0: the bridge takes any free UDP port"), "\(readable.output)")
        #expect(readable.output.contains("info  matter       stored state readable; on no fabric yet"), "\(readable.output)")

        let store = try SQLiteHomeStore(path: broker.database)
        try await store.saveAdapterState("matter.endpoints", "{")
        store.close()
        let broken = try await homegate(["doctor", "--timeout", "2"], environment: environment)
        #expect(broken.status == 1, "\(broken.output)")
        #expect(broken.output.contains("fail  matter       stored state not readable: "), "\(broken.output)")
        #expect(broken.output.contains("matter.endpoints in the database is not homegate's Matter endpoint map"), "\(broken.output)")
    }

    @Test("with homegate running: the bridge's port and endpoints, its advertisements from health, its numbered devices")
    func running() async throws {
        let broker = try TestBroker()
        defer { withExtendedLifetime(broker) {} }
        var environment = try Self.environment(broker)
        environment["HOMEGATE_MATTER_PORT"] = "0"
        environment["HOMEGATE_HTTP_LISTEN"] = "127.0.0.1:0"
        let watch = try await watcher(broker, "homegate/bridge/state")
        let pid = try spawn([homegateExecutable, "run"], output: broker.directory.appendingPathComponent("homegate.out").path, environment: environment)
        defer {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        _ = await awaitMessages(watch) { $0.contains { $0.payloadString == #"{"state":"online"}"# } }
        await watch.shutdown()
        // avahi-daemon answers (or is found missing) in the background: health says so once it did,
        // within 30 s (a loaded machine's avahi can take seconds; 20 quick tries were not enough).
        var output = ""
        let deadline = ContinuousClock.now + .seconds(30)
        while !output.contains("._matterc._udp"), ContinuousClock.now < deadline {
            output = try await homegate(["doctor", "--timeout", "2"], environment: environment).output
            if !output.contains("._matterc._udp") { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(output.contains("pass  matter       the bridge serves on UDP port "), "\(output)")
        #expect(output.contains("with 0 bridged endpoints"), "\(output)")
        #expect(output.contains("  mdns         commissionable "), "\(output)")
        #expect(output.contains("._matterc._udp"), "\(output)")
        #expect(output.contains("info  matter       stored state readable"), "\(output)")
    }
}

import Foundation
import MosquittoTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("homegate doctor: the HomeKit bridge", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct DoctorHomeKitTests {
    /// A TCP socket on a free loopback port: listening, as another program holding the bridge's
    /// port; or only bound, with SO_REUSEADDR, which keeps the port from other tests while leaving
    /// it free for a listener with SO_REUSEADDR (as the bridge and doctor's probe are).
    static func holdPort(listening: Bool) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        if !listening { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(fd >= 0 && bound && (!listening || listen(fd, 1) == 0))
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test("with homegate stopped: a taken hap.port fails, naming who holds it; the bridge's pairings are told")
    func portTaken() async throws {
        let broker = try TestBroker()
        let mappings = broker.directory.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        let (fd, port) = try Self.holdPort(listening: true)
        defer { close(fd) }
        var environment = [
            "HOMEGATE_MQTT_URL": broker.url, "HOMEGATE_DATABASE": broker.database, "HOMEGATE_MAPPINGS": mappings.path, "TZ": "UTC",
            "HOMEGATE_HAP_ENABLED": "true", "HOMEGATE_HAP_PORT": "\(port)",
        ]
        let taken = try await homegate(["doctor", "--timeout", "2"], environment: environment)
        #expect(taken.status == 1, "\(taken.output)")
        #expect(taken.output.contains("fail  homekit      port \(port) is in use by "), "\(taken.output)")
        #expect(taken.output.contains("(pid \(getpid()))"), "the holder is this test's process: \(taken.output)")
        #expect(taken.output.contains("  mdns "), "avahi-daemon is checked: \(taken.output)")
        #expect(taken.output.contains("info  homekit      not paired yet"), "\(taken.output)")

        let (reserved, freePort) = try Self.holdPort(listening: false)
        defer { close(reserved) }
        environment["HOMEGATE_HAP_PORT"] = "\(freePort)"
        let free = try await homegate(["doctor", "--timeout", "2"], environment: environment)
        #expect(free.output.contains("pass  homekit      port \(freePort) is free for the bridge"), "\(free.output)")
    }

    @Test("with the bridge off: one line says so")
    func off() async throws {
        let broker = try TestBroker()
        let result = try await homegate(
            ["doctor", "--timeout", "2"],
            environment: ["HOMEGATE_MQTT_URL": broker.url, "HOMEGATE_DATABASE": broker.database, "HOMEGATE_MAPPINGS": broker.directory.path])
        #expect(result.output.contains("info  homekit      the bridge is off (hap.enabled: false)"), "\(result.output)")
    }
}

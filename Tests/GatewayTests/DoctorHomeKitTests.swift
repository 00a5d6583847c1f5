import Foundation
import MosquittoTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("homegate doctor: the HomeKit bridge", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct DoctorHomeKitTests {
    /// A TCP socket listening on a free loopback port, as another program holding the bridge's port.
    static func holdPort() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(fd >= 0 && bound && listen(fd, 1) == 0)
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test("with homegate stopped: a taken hap.port fails, naming who holds it; the bridge's pairings are told")
    func portTaken() async throws {
        let broker = try TestBroker()
        let mappings = broker.directory.appendingPathComponent("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        let (fd, port) = try Self.holdPort()
        var held = true
        defer { if held { close(fd) } }
        let environment = [
            "HOMEGATE_MQTT_URL": broker.url, "HOMEGATE_DATABASE": broker.database, "HOMEGATE_MAPPINGS": mappings.path, "TZ": "UTC",
            "HOMEGATE_HAP_ENABLED": "true", "HOMEGATE_HAP_PORT": "\(port)",
        ]
        let taken = try await homegate(["doctor", "--timeout", "2"], environment: environment)
        #expect(taken.status == 1, "\(taken.output)")
        #expect(taken.output.contains("fail  homekit      port \(port) is in use by "), "\(taken.output)")
        #expect(taken.output.contains("(pid \(getpid()))"), "the holder is this test's process: \(taken.output)")
        #expect(taken.output.contains("  mdns  ") || taken.output.contains("mdns         "), "\(taken.output)")
        #expect(taken.output.contains("info  homekit      not paired yet"), "\(taken.output)")

        close(fd)
        held = false
        let free = try await homegate(["doctor", "--timeout", "2"], environment: environment)
        #expect(free.output.contains("pass  homekit      port \(port) is free for the bridge"), "\(free.output)")
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

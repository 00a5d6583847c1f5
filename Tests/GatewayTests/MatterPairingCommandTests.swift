import Foundation
import MosquittoTesting
import Testing

@Suite("homegate matter pairing --svg: the QR code as an image", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct MatterPairingCommandTests {
    @Test("the image draws the printed QR payload and only its owner can read it; a path that cannot be written fails and says so")
    func svg() async throws {
        let broker = try TestBroker()
        var environment = try DoctorMatterTests.environment(broker)
        environment["HOMEGATE_MATTER_PORT"] = "0"
        let image = broker.directory.appendingPathComponent("qr.svg").path
        let pairing = try await homegate(["matter", "pairing", "--svg", image], environment: environment)
        #expect(pairing.status == 0, "\(pairing.output)")
        let payload = try #require(
            pairing.output.split(separator: "\n").first { $0.hasPrefix("QR code:") }?.split(separator: " ").last.map(String.init))
        #expect(payload.hasPrefix("MT:"))
        #expect(pairing.output.contains("QR code image:       \(image) (the bridge's own code)"), "\(pairing.output)")
        let svg = try String(contentsOfFile: image, encoding: .utf8)
        #expect(svg.hasPrefix("<svg ") && svg.contains("<title>Matter setup code \(payload)</title>"))
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: image)[.posixPermissions] as? Int)
        #expect(mode == 0o600)

        let missing = broker.directory.appendingPathComponent("no-such-directory/qr.svg").path
        let refused = try await homegate(["matter", "pairing", "--svg", missing], environment: environment)
        #expect(refused.status == 1)
        #expect(refused.output.contains("homegate matter pairing: cannot write the QR code to \(missing): No such file or directory"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: broker.directory.path).allSatisfy { !$0.hasSuffix(".tmp") })
    }
}

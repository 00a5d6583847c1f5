import Crypto
import Foundation
import Matter

/// The demo device's setup kept in `DIR/setup` (owner-only): passcode, discriminator and PBKDF2
/// salt, chosen at random on first start unless given, so the printed codes stay valid across restarts.
struct DemoSetup {
    static let vendorID = TestCredentials.vendorID  // the specification's test vendor id, as the SDK's test PAI has it
    static let productID = TestCredentials.productID
    static let iterations = 1000

    var passcode: UInt32
    var discriminator: UInt16
    var salt: [UInt8]
    var folder = ""

    static func load(folder: String, passcode given: UInt32?, discriminator givenDiscriminator: UInt16?) throws -> DemoSetup {
        let path = folder + "/setup"
        var stored: [String: String] = [:]
        if let text = try? String(contentsOfFile: path, encoding: .utf8) {
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { stored[parts[0]] = parts[1] }
            }
        }
        let salt = stored["salt"].map(hex) ?? (0..<32).map { _ in UInt8.random(in: 0...255) }
        guard PASEVerifier.saltLengths.contains(salt.count) else { throw MatterError.storage("\(path): the salt is not 16 to 32 bytes") }
        let setup = DemoSetup(
            passcode: given ?? stored["passcode"].flatMap { UInt32($0) } ?? SetupPayload.randomPasscode(),
            discriminator: givenDiscriminator ?? stored["discriminator"].flatMap { UInt16($0) } ?? UInt16.random(in: 0...0xFFF),
            salt: salt, folder: folder)
        try SetupPayload.validate(passcode: setup.passcode)
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let text =
                "passcode=\(setup.passcode)\ndiscriminator=\(setup.discriminator)\nsalt=\(salt.map { String(format: "%02x", $0) }.joined())\n"
            guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw MatterError.storage("cannot write \(path)")
            }
        } catch let error as MatterError {
            throw error
        } catch {
            throw MatterError.storage("\(folder): \(error)")
        }
        return setup
    }

    func payload() throws -> SetupPayload {
        try SetupPayload(passcode: passcode, discriminator: discriminator, vendorID: Self.vendorID, productID: Self.productID)
    }

    /// The device's attestation: its DAC key made at first start and kept in `DIR/dac-key.pem`, its
    /// DAC (signed by the SDK's test PAI) in `DIR/dac.der`, both the owner's alone.
    func attestation() throws -> DeviceAttestation {
        let keyPath = folder + "/dac-key.pem"
        let dacPath = folder + "/dac.der"
        let key: P256.Signing.PrivateKey
        let dac: [UInt8]
        if let pem = try? String(contentsOfFile: keyPath, encoding: .utf8), let stored = FileManager.default.contents(atPath: dacPath) {
            do {
                key = try P256.Signing.PrivateKey(pemRepresentation: pem)
            } catch {
                throw MatterError.storage("\(keyPath): not a P-256 private key (\(error))")
            }
            dac = Array(stored)
        } else {
            key = P256.Signing.PrivateKey()
            dac = try DeviceAttestation.issueTestDAC(for: key.publicKey, notBefore: Int64(Date().timeIntervalSince1970) - 3600)
            guard
                FileManager.default.createFile(
                    atPath: keyPath, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600]),
                FileManager.default.createFile(atPath: dacPath, contents: Data(dac), attributes: [.posixPermissions: 0o600])
            else { throw MatterError.storage("cannot write \(keyPath) and \(dacPath)") }
        }
        return try DeviceAttestation.test(dacKey: key, dac: dac, deviceType: 0x0016)
    }

    /// Replaces `path` with `bytes` whole (a new file renamed over the old), the owner's alone.
    static func write(_ bytes: [UInt8], to path: String) throws {
        let temporary = path + ".new"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
            throw MatterError.storage("cannot write \(temporary)")
        }
        guard rename(temporary, path) == 0 else { throw MatterError.storage("cannot rename \(temporary) to \(path)") }
    }

    func verifier() throws -> PASEVerifier {
        try PASEVerifier(passcode: passcode, salt: salt, iterations: Self.iterations)
    }
}

import Crypto
import Foundation
import GatewayCore
import Matter
import Secrets

/// The bridge's commissioning secrets and identity, kept in the database (`adapter_state`, key
/// `matter.setup`): the passcode, discriminator and PBKDF2 salt (so printed codes stay valid across
/// restarts), and its attestation (a DAC key made at first start, its DAC signed by the Matter
/// SDK's test PAI: ecosystems call such a device uncertified).
struct MatterSetup: Codable, Sendable {
    static let key = "matter.setup"
    static let iterations = 1000
    static let vendorID = TestCredentials.vendorID
    static let productID = TestCredentials.productID
    /// Aggregator: what the commissionable advertisement and the attestation name.
    static let deviceType: UInt32 = 0x000E

    var passcode: UInt32
    var discriminator: UInt16
    var salt: [UInt8]
    var dacKey: String
    var dac: [UInt8]

    /// The stored setup, made on the first start; the configured passcode and discriminator win (and are kept).
    static func load(_ access: any GatewayAccess, settings: GatewayConfiguration.Matter) async throws -> MatterSetup {
        try await load(settings: settings, stored: try access.adapterState(key)) { try await access.saveAdapterState(key, $0) }
    }

    /// `stored`: the setup kept under `key`, if any; `save` keeps it when it is new or changed (nil: it cannot be kept).
    static func load(
        settings: GatewayConfiguration.Matter, stored: String?, save: ((String) async throws -> Void)?
    ) async throws -> MatterSetup {
        let passcode = try settings.passcode.map { secret -> UInt32 in
            guard let number = UInt32(secret.reveal) else { throw MatterError.invalidSetup("matter.passcode is not a number") }
            try SetupPayload.validate(passcode: number)
            return number
        }
        var setup: MatterSetup
        if let stored {
            do {
                setup = try JSONDecoder().decode(MatterSetup.self, from: Data(stored.utf8))
            } catch {
                throw MatterError.storage("\(key) in the database is not homegate's Matter setup (\(error))")
            }
        } else {
            guard save != nil else {
                throw MatterError.storage(
                    "the Matter bridge has no setup yet: start homegate once with matter.enabled, or stop it and ask again")
            }
            let dacKey = P256.Signing.PrivateKey()
            setup = MatterSetup(
                passcode: SetupPayload.randomPasscode(), discriminator: UInt16.random(in: 0...0xFFF),
                salt: (0..<32).map { _ in UInt8.random(in: 0...255) }, dacKey: dacKey.pemRepresentation,
                dac: try DeviceAttestation.issueTestDAC(for: dacKey.publicKey, notBefore: Int64(Date().timeIntervalSince1970) - 3600))
        }
        if let passcode { setup.passcode = passcode }
        if let discriminator = settings.discriminator { setup.discriminator = UInt16(discriminator) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(setup), as: UTF8.self)
        if text != stored, let save { try await save(text) }
        return setup
    }

    func payload() throws -> SetupPayload {
        try SetupPayload(passcode: passcode, discriminator: discriminator, vendorID: Self.vendorID, productID: Self.productID)
    }

    func attestation() throws -> DeviceAttestation {
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: dacKey)
        } catch {
            throw MatterError.storage("\(Self.key): the DAC key is not a P-256 private key (\(error))")
        }
        return try DeviceAttestation.test(dacKey: key, dac: dac, deviceType: Self.deviceType)
    }

    func verifier() throws -> PASEVerifier {
        try PASEVerifier(passcode: passcode, salt: salt, iterations: Self.iterations)
    }
}

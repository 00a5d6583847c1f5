import Foundation
import GatewayCore
import Matter
import Secrets
import Synchronization
import Testing

@testable import MatterBridge

@Suite("the Matter bridge's setup: the codes made once and kept, the configured ones winning")
struct SetupTests {
    /// A stand-in for the database's `matter.setup` key: what was saved, and how often.
    final class Store: Sendable {
        let saved = Mutex<[String]>([])
        var last: String? { saved.withLock { $0.last } }
        var count: Int { saved.withLock { $0.count } }
        func save(_ text: String) { saved.withLock { $0.append(text) } }
    }

    static func settings(passcode: String? = nil, discriminator: Int? = nil) -> GatewayConfiguration.Matter {
        var settings = GatewayConfiguration.Matter()
        settings.passcode = passcode.map { Secret($0) }
        settings.discriminator = discriminator
        return settings
    }

    @Test("the first start makes a random setup and keeps it; the next start reads it back and saves nothing")
    func madeOnceThenKept() async throws {
        let store = Store()
        let first = try await MatterSetup.load(settings: Self.settings(), stored: nil) { store.save($0) }
        #expect(store.count == 1)
        try SetupPayload.validate(passcode: first.passcode)
        #expect(first.discriminator <= 0xFFF && first.salt.count == 32)
        let again = try await MatterSetup.load(settings: Self.settings(), stored: store.last) { store.save($0) }
        #expect(store.count == 1)
        #expect(
            (again.passcode, again.discriminator, again.salt, again.dacKey, again.dac)
                == (first.passcode, first.discriminator, first.salt, first.dacKey, first.dac))
        _ = try again.attestation()  // the kept DAC key still reads as one
    }

    @Test("a configured passcode and discriminator win over the stored ones and are kept; the salt and DAC stay")
    func configuredWins() async throws {
        let store = Store()
        let made = try await MatterSetup.load(settings: Self.settings(), stored: nil) { store.save($0) }
        let configured = try await MatterSetup.load(settings: Self.settings(passcode: "20202021", discriminator: 3850), stored: store.last) {
            store.save($0)
        }
        #expect((configured.passcode, configured.discriminator) == (20_202_021, 3850))
        #expect(configured.salt == made.salt && configured.dac == made.dac)
        #expect(store.count == 2)
        let kept = try JSONDecoder().decode(MatterSetup.self, from: Data(try #require(store.last).utf8))
        #expect((kept.passcode, kept.discriminator) == (20_202_021, 3850))
        // The same configuration at the next start changes nothing, so nothing is written.
        _ = try await MatterSetup.load(settings: Self.settings(passcode: "20202021", discriminator: 3850), stored: store.last) {
            store.save($0)
        }
        #expect(store.count == 2)
        let payload = try configured.payload()
        #expect(payload.manualPairingCode.count == 11)
    }

    @Test("a passcode that is no number or a trivial one is refused, and the error never repeats it")
    func badPasscodes() async throws {
        // (The rule itself names 12345678 and 87654321, so those are not asked here.)
        for passcode in ["11111111", "00000000", "99999999", "2020-2021"] {
            let error = await #expect(throws: MatterError.self) {
                _ = try await MatterSetup.load(settings: Self.settings(passcode: passcode), stored: nil) { _ in }
            }
            #expect(error.map { !"\($0)".contains(passcode) } ?? false, "\(passcode)")
        }
    }

    @Test("a stored setup that is not homegate's says which key; no stored setup and no way to save says to start homegate once")
    func unreadable() async throws {
        let corrupt = await #expect(throws: MatterError.self) {
            _ = try await MatterSetup.load(settings: Self.settings(), stored: "{\"passcode\":", save: nil)
        }
        #expect(corrupt.map { "\($0)".contains("matter.setup in the database is not homegate's Matter setup") } ?? false)
        let missing = await #expect(throws: MatterError.self) {
            _ = try await MatterSetup.load(settings: Self.settings(), stored: nil, save: nil)
        }
        #expect(missing.map { "\($0)".contains("start homegate once with matter.enabled") } ?? false)
    }
}

import Logging
import Synchronization
import Testing

@testable import HAP

@Suite("Pair-setup refusals")
struct PairSetupTests {
    let identity = HAPIdentity.generate(setupCode: try? HAPSetupCode("031-45-154"))
    let first = HAPConnectionID(rawValue: 1)
    let second = HAPConnectionID(rawValue: 2)
    let m1 = TLV8([(.state, [1]), (.method, [0])])
    let wrongM3 = TLV8([(.state, [3]), (.publicKey, [0]), (.proof, [UInt8](repeating: 1, count: 64))])

    func errorCode(_ answer: TLV8) -> PairingErrorCode? {
        answer.byte(.error).flatMap(PairingErrorCode.init(rawValue:))
    }

    @Test("a second controller is Busy while the first one's exchange is open, and not once its connection closed")
    func busy() async {
        let open = OpenConnections([first, second])
        let setup = PairSetup(store: HAPMemoryPairingStore(), logger: Logger(label: "test")) { open.contains($0) }
        let now = ContinuousClock.now
        #expect(await setup.handle(m1, from: first, identity: identity, now: now)[.publicKey]?.count == 384)
        #expect(errorCode(await setup.handle(m1, from: second, identity: identity, now: now)) == .busy)
        open.remove(first)
        #expect(errorCode(await setup.handle(m1, from: second, identity: identity, now: now)) == nil)
    }

    @Test("an exchange left silent for 30 s no longer makes others Busy")
    func abandoned() async {
        let setup = PairSetup(store: HAPMemoryPairingStore(), logger: Logger(label: "test")) { _ in true }
        let now = ContinuousClock.now
        #expect(errorCode(await setup.handle(m1, from: first, identity: identity, now: now)) == nil)
        #expect(errorCode(await setup.handle(m1, from: second, identity: identity, now: now + .seconds(29))) == .busy)
        #expect(errorCode(await setup.handle(m1, from: second, identity: identity, now: now + .seconds(31))) == nil)
    }

    @Test("an accessory that is paired answers Unavailable")
    func unavailable() async throws {
        let store = HAPMemoryPairingStore()
        await store.savePairing(HAPPairing(controllerID: "c", publicKey: [UInt8](repeating: 1, count: 32), isAdmin: true))
        let setup = PairSetup(store: store, logger: Logger(label: "test")) { _ in true }
        let answer = await setup.handle(m1, from: first, identity: identity, now: .now)
        #expect(answer.byte(.state) == 2)
        #expect(errorCode(answer) == .unavailable)
    }

    @Test("wrong codes: Authentication, then a growing Backoff with RetryDelay after five, MaxTries at the limit")
    func wrongCodes() async {
        // Each M1 costs an SRP exponentiation, slow in a debug build: a limit of 8 rather than 100.
        let setup = PairSetup(
            store: HAPMemoryPairingStore(), logger: Logger(label: "test"), limits: .init(freeTries: 5, maxTries: 8)
        ) { _ in true }
        var now = ContinuousClock.now
        for attempt in 1...5 {
            #expect(errorCode(await setup.handle(m1, from: first, identity: identity, now: now)) == nil)
            let answer = await setup.handle(wrongM3, from: first, identity: identity, now: now)
            #expect(answer.byte(.state) == 4)
            #expect(errorCode(answer) == .authentication, "attempt \(attempt)")
        }
        let refused = await setup.handle(m1, from: first, identity: identity, now: now + .seconds(1))
        #expect(errorCode(refused) == .backoff)
        #expect(refused.byte(.retryDelay) == 4)
        now += .seconds(6)
        for _ in 6...8 {
            #expect(errorCode(await setup.handle(m1, from: first, identity: identity, now: now)) == nil)
            #expect(errorCode(await setup.handle(wrongM3, from: first, identity: identity, now: now)) == .authentication)
            now += .seconds(61)
        }
        #expect(errorCode(await setup.handle(m1, from: first, identity: identity, now: now)) == .maxTries)
        await setup.setupCodeChanged()
        #expect(errorCode(await setup.handle(m1, from: first, identity: identity, now: now)) == nil)
    }

    @Test("M3 and M5 out of order are refused without touching the exchange of another connection")
    func outOfOrder() async {
        let setup = PairSetup(store: HAPMemoryPairingStore(), logger: Logger(label: "test")) { _ in true }
        #expect(errorCode(await setup.handle(wrongM3, from: first, identity: identity, now: .now)) == .unknown)
        let m5 = TLV8([(.state, [5]), (.encryptedData, [1, 2, 3])])
        #expect(errorCode(await setup.handle(m5, from: first, identity: identity, now: .now)) == .unknown)
        #expect(errorCode(await setup.handle(TLV8([(.state, [9])]), from: first, identity: identity, now: .now)) == .unknown)
    }
}

/// The open connections a test pretends to have.
final class OpenConnections: Sendable {
    private let ids: Mutex<Set<HAPConnectionID>>

    init(_ ids: Set<HAPConnectionID>) {
        self.ids = Mutex(ids)
    }

    func contains(_ id: HAPConnectionID) -> Bool { ids.withLock { $0.contains(id) } }
    func remove(_ id: HAPConnectionID) { _ = ids.withLock { $0.remove(id) } }
}

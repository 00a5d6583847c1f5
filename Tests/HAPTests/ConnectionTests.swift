import Crypto
import Logging
import Testing

@testable import HAP

/// An empty house: these tests are about connections, not accessories.
private struct NoAccessories: HAPAccessoryProvider {
    func accessories() async -> [HAPAccessory] { [] }
    func read(_ ids: [HAPCharacteristicID]) async -> [HAPCharacteristicID: Result<HAPValue?, HAPStatus>] { [:] }
    func write(_ writes: [HAPWrite], from connection: HAPConnectionID) async -> [HAPCharacteristicID: HAPStatus] { [:] }
    func identify(_ aid: Int?) async {}
}

@Suite("HAP connections: dual stack, idle, the verified limit")
struct ConnectionTests {
    let controllerKey = Curve25519.Signing.PrivateKey()

    /// Runs a server on a free port with one paired controller ("hub"), then `body`; stops it after.
    func withServer(
        _ configuration: HAPServerConfiguration, _ body: @Sendable (HAPServer, Int) async throws -> Void
    ) async throws {
        let store = HAPMemoryPairingStore()
        await store.savePairing(
            HAPPairing(controllerID: "hub", publicKey: Array(controllerKey.publicKey.rawRepresentation), isAdmin: true))
        let server = HAPServer(configuration: configuration, provider: NoAccessories(), store: store, logger: Logger(label: "test"))
        let running = Task { try await server.run() }
        defer { running.cancel() }
        var port = server.listeningPort()
        while port == nil {
            try await Task.sleep(for: .milliseconds(10))
            port = server.listeningPort()
        }
        try await body(server, try #require(port))
    }

    func configuration(host: String? = "127.0.0.1") -> HAPServerConfiguration {
        HAPServerConfiguration(host: host, port: 0, setupCode: try? HAPSetupCode("031-45-154"))
    }

    @Test("with no address given, the server takes IPv4 and IPv6 connections on one port")
    func dualStack() async throws {
        try await withServer(configuration(host: nil)) { _, port in
            for host in ["127.0.0.1", "::1"] {
                let status = try await TestController.connect(host: host, port: port) { controller in
                    try await controller.request("GET", "/accessories").status
                }
                // 470: the HAP server answering a controller that has not pair-verified.
                #expect(status == 470, "\(host)")
            }
        }
    }

    @Test("an unverified connection is closed after its timeout; a verified one, quiet longer, stays open")
    func idle() async throws {
        var configuration = configuration()
        // Long enough that the hub's own pair-verify, on a loaded machine, has no 2 s gap in it.
        configuration.unverifiedIdleTimeout = .seconds(2)
        let key = controllerKey
        try await withServer(configuration) { _, port in
            try await TestController.connect(port: port) { hub in
                try await hub.verify(as: "hub", key: key)
                // Opened after the hub went quiet: when it is closed, the hub has been quiet longer.
                let strangerClosed = try await TestController.connect(port: port) { stranger in
                    await stranger.closedByServer()
                }
                #expect(strangerClosed)
                #expect(try await hub.request("GET", "/accessories").status == 200)
            }
        }
    }

    @Test("past the limit of verified connections, the one quiet longest is closed, and only it")
    func limit() async throws {
        var configuration = configuration()
        configuration.verifiedConnectionLimit = 2
        let key = controllerKey
        try await withServer(configuration) { server, port in
            try await TestController.connect(port: port) { first in
                try await first.verify(as: "hub", key: key)
                try await TestController.connect(port: port) { second in
                    try await second.verify(as: "hub", key: key)
                    #expect(try await second.request("GET", "/accessories").status == 200)
                    try await TestController.connect(port: port) { third in
                        try await third.verify(as: "hub", key: key)
                        #expect(await first.closedByServer())
                        #expect(try await second.request("GET", "/accessories").status == 200)
                        #expect(try await third.request("GET", "/accessories").status == 200)
                        #expect(server.connectionCount == 2)
                    }
                }
            }
        }
    }
}

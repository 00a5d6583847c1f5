import Gateway
import GatewayCore
import Testing

@testable import HAPBridge

@Suite("homegate hap reset-code and unpair next to a running homegate: the /api/homekit requests and answers")
struct HomeKitAPITests {
    @Test("the API is reached on loopback when it listens on every interface; off or on a chosen-at-start port, not at all")
    func address() {
        #expect(HomeKitAPI.address(HTTPAddress(host: "0.0.0.0", port: 8380)) == HTTPAddress(host: "127.0.0.1", port: 8380))
        #expect(HomeKitAPI.address(HTTPAddress(host: "::", port: 9000)) == HTTPAddress(host: "::1", port: 9000))
        #expect(HomeKitAPI.address(HTTPAddress(host: "192.168.1.4", port: 8380)) == HTTPAddress(host: "192.168.1.4", port: 8380))
        #expect(HomeKitAPI.address(HTTPAddress(host: "127.0.0.1", port: 0)) == nil)
        #expect(HomeKitAPI.address(nil) == nil)
    }

    @Test("the routes, with the controller id percent-encoded as one path segment")
    func requests() {
        #expect(HomeKitAPI.bridges == .init(method: "GET", path: "/api/homekit"))
        #expect(HomeKitAPI.resetSetupCode(bridge: 2) == .init(method: "POST", path: "/api/homekit/bridges/2/setup-code"))
        #expect(HomeKitAPI.unpair(bridge: 1, controller: nil) == .init(method: "DELETE", path: "/api/homekit/bridges/1/pairings"))
        #expect(
            HomeKitAPI.unpair(bridge: 1, controller: "3F2A-9b_c.d~e")
                == .init(method: "DELETE", path: "/api/homekit/bridges/1/pairings/3F2A-9b_c.d~e"))
        #expect(
            HomeKitAPI.unpair(bridge: 1, controller: "a/b c?d%é")
                == .init(method: "DELETE", path: "/api/homekit/bridges/1/pairings/a%2Fb%20c%3Fd%25%C3%A9"))
    }

    static let bridge = """
        {"number":1,"name":"homegate","port":51826,"device_id":"AA:BB:CC:DD:EE:FF","setup_code":"031-45-154",
         "setup_uri":"X-HM://0023ISYWYABCD","configuration_number":3,"accessories":12,"paired":true,
         "advertisement":{"state":"advertised","detail":"on eth0"},
         "controllers":[{"id":"phone-1","admin":true},{"id":"guest","admin":false}]}
        """

    @Test("GET /api/homekit's bridges become what hap pairing prints")
    func bridges() throws {
        let body = Array(#"{"enabled": true, "bridges": [\#(Self.bridge)]}"#.utf8)
        let bridges = try HomeKitAPI.bridges(status: 200, body: body)
        #expect(bridges.count == 1)
        let bridge = try #require(bridges.first)
        #expect(bridge.number == 1 && bridge.name == "homegate" && bridge.port == 51826)
        #expect(bridge.setupCode == "031-45-154" && bridge.setupURI == "X-HM://0023ISYWYABCD")
        #expect(bridge.deviceID == "AA:BB:CC:DD:EE:FF" && bridge.configurationNumber == 3)
        #expect(bridge.controllers.map(\.id) == ["phone-1", "guest"])
        #expect(bridge.controllers.map(\.admin) == [true, false])
        #expect(bridge.running == .init(accessories: 12, advertisement: HomeKitAdvertisement(.advertised, detail: "on eth0")))
        let after = try HomeKitAPI.bridge(status: 200, body: Array(Self.bridge.utf8))
        #expect(after.setupCode == "031-45-154")
    }

    @Test("refusals carry the API's message: 404 is not found, 409 and 401 say what to do; a wrong shape is named")
    func refusals() {
        #expect(throws: BridgeError.self) { try HomeKitAPI.bridge(status: 404, body: Array(#"{"error":"no controller x"}"#.utf8)) }
        do {
            _ = try HomeKitAPI.bridge(status: 404, body: Array(#"{"error":"no controller x","kind":"not_found"}"#.utf8))
        } catch {
            guard case .notFound(let message) = error else { Issue.record("\(error)"); return }
            #expect(message == "no controller x")
        }
        do {
            _ = try HomeKitAPI.bridge(status: 409, body: Array(#"{"error":"hap.setup_code is configured"}"#.utf8))
            Issue.record("a 409 was taken")
        } catch {
            #expect("\(error)".contains("409: hap.setup_code is configured"))
        }
        do {
            _ = try HomeKitAPI.bridge(status: 401, body: Array(#"{"error":"the token is not this gateway's"}"#.utf8))
            Issue.record("a 401 was taken")
        } catch {
            #expect("\(error)".contains("refused the token"))
        }
        do {
            _ = try HomeKitAPI.bridges(status: 200, body: Array(#"{"bridges":[{"number":1}]}"#.utf8))
            Issue.record("a bridge without a code was taken")
        } catch {
            #expect("\(error)".contains("bridges[0]: a bridge needs number, setup_code and setup_uri"))
        }
        #expect(throws: BridgeError.self) { try HomeKitAPI.bridges(status: 200, body: Array("<html>".utf8)) }
    }
}

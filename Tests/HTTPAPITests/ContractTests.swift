import Foundation
import GatewayCore
import HTTPTypes
import Testing
import Yams

@testable import HTTPAPI

/// The routes the server answers and the ones its OpenAPI document describes are the same set,
/// and every route's command exists: a route added to one and not the other fails here, before
/// schemathesis (scripts/api-contract.sh) sends it anything.
@Suite("The HTTP routes and web/openapi.yaml agree")
struct ContractTests {
    /// "GET /api/rooms", … as the document has them.
    static var documented: Set<String> {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../web/openapi.yaml")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        let document = ((try? Yams.load(yaml: text)) as? [String: Any]) ?? [:]
        var found: Set<String> = []
        for (path, item) in (document["paths"] as? [String: Any]) ?? [:] {
            for method in ((item as? [String: Any]) ?? [:]).keys
            where ["get", "put", "post", "patch", "delete"].contains(method) {
                found.insert("\(method.uppercased()) \(path)")
            }
        }
        return found
    }

    @Test("every route is in the document, and every path in the document is a route")
    func sameRoutes() {
        let served = Set(Route.all.map { "\($0.method.rawValue) \($0.path)" } + Route.others.map { "\($0.0.rawValue) \($0.1)" })
        let documented = Self.documented.subtracting(["GET /"])  // the web page, served from files
        #expect(!documented.isEmpty, "web/openapi.yaml did not load")
        #expect(served.subtracting(documented).sorted() == [], "served but not in web/openapi.yaml")
        #expect(documented.subtracting(served).sorted() == [], "in web/openapi.yaml but not served")
    }

    @Test("every route runs a command the gateway has, and its path's fields are the command's")
    func commandsExist() {
        for route in Route.all {
            #expect(HomeCommand.names.contains(route.command), "\(route.path): no command \(route.command)")
        }
    }

    @Test("a path's percent-encoding is undone: names with spaces and slashes reach the command whole")
    func percentDecoding() {
        #expect(APIResponder.pathParts("/api/rooms/Living%20Room") == ["api", "rooms", "Living Room"])
        #expect(APIResponder.pathParts("/api/rooms/a%2Fb") == ["api", "rooms", "a/b"])
        #expect(APIResponder.pathParts("/api/rooms/%E0%A4") == nil)
        let route = Route(.patch, "/api/rooms/{room}", "room/rename")
        #expect(route.match(["api", "rooms", "Living Room"]) == ["room": "Living Room"])
        #expect(route.match(["api", "rooms"]) == nil)
    }

    @Test("the token is compared whole")
    func tokenComparison() {
        #expect(APIResponder.same("abc", "abc"))
        #expect(!APIResponder.same("abc", "abd") && !APIResponder.same("abc", "abcd") && !APIResponder.same("", "a"))
    }
}

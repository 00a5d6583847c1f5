import NIOHTTP1

/// One complete request as the router sees it.
struct HAPRequest: Sendable {
    var method: HTTPMethod
    var path: String
    var query: [(name: String, value: String)]
    var headers: HTTPHeaders
    var body: [UInt8]

    init(head: HTTPRequestHead, body: [UInt8]) {
        method = head.method
        headers = head.headers
        self.body = body
        let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = String(parts.first ?? "")
        query =
            parts.count > 1
            ? parts[1].split(separator: "&").map { pair in
                let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(nameValue[0]), nameValue.count > 1 ? String(nameValue[1]) : "")
            } : []
    }

    func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}

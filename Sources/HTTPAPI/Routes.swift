import HTTPTypes

/// One route of the REST API: a method and a path whose `{name}` parts are fields of the command it
/// builds, through the request codec that MQTT's `request/<command>` shares (docs/http-api.md has
/// the table, web/openapi.yaml the contract).
struct Route: Sendable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case field(String)
    }

    /// How the body becomes the command's fields.
    enum Body: Sendable, Equatable {
        /// Its fields, merged with the path's and the query's.
        case fields
        /// `{"value": …}` for the characteristic the path names: one entry of `characteristic/write`.
        case value
    }

    let method: HTTPRequest.Method
    let path: String
    let command: String
    /// 201 Created when it works (it adds something), else 200.
    let creates: Bool
    let body: Body
    let segments: [Segment]

    init(_ method: HTTPRequest.Method, _ path: String, _ command: String, creates: Bool = false, body: Body = .fields) {
        self.method = method
        self.path = path
        self.command = command
        self.creates = creates
        self.body = body
        segments = path.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? .field(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
    }

    /// The path as Hummingbird's router takes it: `{name}` as `:name`.
    var routerPath: String {
        "/" + segments.map { segment in
            switch segment {
            case .literal(let text): text
            case .field(let name): ":" + name
            }
        }.joined(separator: "/")
    }

    /// The names of its `{name}` parts.
    var fields: [String] { segments.compactMap { if case .field(let name) = $0 { name } else { nil } } }

    /// The path's fields when `parts` (percent-decoded) is this route's path.
    func match(_ parts: [String]) -> [String: String]? {
        guard parts.count == segments.count else { return nil }
        var fields: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let text): guard text == part else { return nil }
            case .field(let name): fields[name] = part
            }
        }
        return fields
    }

    static let all: [Route] = [
        Route(.get, "/api/accessories", "accessories"),
        Route(.get, "/api/accessories/{accessory}/{service}/{characteristic}", "characteristic/read"),
        Route(.put, "/api/accessories/{accessory}/{service}/{characteristic}", "characteristic/write", body: .value),
        Route(.post, "/api/characteristics/write", "characteristic/write"),
        Route(.put, "/api/accessories/{accessory}/room", "accessory/assign_room"),
        Route(.put, "/api/accessories/{accessory}/name", "accessory/rename"),
        Route(.put, "/api/accessories/{accessory}/services/{service}/name", "accessory/rename_service"),
        Route(.post, "/api/accessories/{accessory}/identify", "accessory/identify"),
        Route(.get, "/api/homes", "home/list"),
        Route(.post, "/api/homes", "home/add", creates: true),
        Route(.patch, "/api/homes/{home}", "home/rename"),
        Route(.delete, "/api/homes/{home}", "home/remove"),
        Route(.post, "/api/homes/{home}/primary", "home/set_primary"),
        Route(.get, "/api/rooms", "room/list"),
        Route(.post, "/api/rooms", "room/add", creates: true),
        Route(.patch, "/api/rooms/{room}", "room/rename"),
        Route(.delete, "/api/rooms/{room}", "room/remove"),
        Route(.get, "/api/zones", "zone/list"),
        Route(.post, "/api/zones", "zone/add", creates: true),
        Route(.patch, "/api/zones/{zone}", "zone/rename"),
        Route(.delete, "/api/zones/{zone}", "zone/remove"),
        Route(.put, "/api/zones/{zone}/rooms/{room}", "zone/add_room"),
        Route(.delete, "/api/zones/{zone}/rooms/{room}", "zone/remove_room"),
        Route(.get, "/api/action-sets", "action_set/list"),
        Route(.post, "/api/action-sets", "action_set/add", creates: true),
        Route(.patch, "/api/action-sets/{action_set}", "action_set/update"),
        Route(.delete, "/api/action-sets/{action_set}", "action_set/remove"),
        Route(.post, "/api/action-sets/{action_set}/execute", "action_set/execute"),
        Route(.get, "/api/triggers", "trigger/list"),
        Route(.post, "/api/triggers", "trigger/add", creates: true),
        Route(.patch, "/api/triggers/{trigger}", "trigger/update"),
        Route(.delete, "/api/triggers/{trigger}", "trigger/remove"),
        Route(.put, "/api/triggers/{trigger}/enabled", "trigger/enable"),
    ]

    /// The routes that are not commands: the stream, the document, health, metrics, the HomeKit and Matter bridges' pairing panels.
    static let others: [(HTTPRequest.Method, String)] =
        [(.get, "/api/events"), (.get, "/api/openapi.yaml"), (.get, "/healthz"), (.get, "/readyz"), (.get, "/metrics")]
        + HomeKitRoutes.all.map { ($0.method, $0.path) } + MatterRoutes.all.map { ($0.method, $0.path) }
}

import Foundation
import GatewayCore
import HTTPTypes
import Hummingbird
import JSON
import Logging

/// The HTTP API's routes on Hummingbird's router: the page's files, the API's document and liveness
/// are open; everything that reads or runs the home goes through `TokenMiddleware`. A path the API
/// knows with a method it does not take is 405 with `Allow`; an unknown `/api/…` path is a JSON 404.
enum APIRouter {
    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]

    /// `events`: HTTP's clients of the live event stream, attached to the event broadcast.
    static func make(_ api: APIResponder, events: EventFanOut) -> Router<APIRequestContext> {
        let router = Router(context: APIRequestContext.self)
        router.add(middleware: RequestLogMiddleware(logger: api.logger))
        router.add(middleware: OtherMethodsMiddleware())
        if let origin = api.settings.corsOrigin {
            router.add(
                middleware: CORSMiddleware(
                    allowOrigin: .custom(origin), allowHeaders: [.authorization, .contentType],
                    allowMethods: [.get, .post, .put, .patch, .delete], maxAge: .seconds(600)))
        }
        open(router, api)
        let guarded = router.group().add(middleware: TokenMiddleware(token: api.settings.token))
        guarded.on("/readyz", method: .get) { _, _ in await api.ready() }
        guarded.on("/metrics", method: .get) { _, _ in await api.scrape() }
        guarded.on("/api/events", method: .get) { request, context in
            EventStream.response(request, clients: events.serverSent, connection: context.connection)
        }
        refuseOtherMethods(guarded, ["/readyz": [.get], "/metrics": [.get], "/api/events": [.get]])

        refuseOtherMethods(guarded, register(Route.all, on: guarded) { route, fields, request in await api.run(route, fields, request) })
        var homeKit: [String: [HTTPRequest.Method]] = [:]
        for action in HomeKitRoutes.Action.allCases {
            let taken = register([action.route], on: guarded) { _, fields, _ in
                await HomeKitRoutes.respond(action, fields, control: api.homeKit)
            }
            homeKit.merge(taken, uniquingKeysWith: +)
        }
        refuseOtherMethods(guarded, homeKit)
        var matter: [String: [HTTPRequest.Method]] = [:]
        for action in MatterRoutes.Action.allCases {
            let taken = register([action.route], on: guarded) { _, fields, request in
                let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
                return await MatterRoutes.respond(action, fields, query: query, control: api.matter)
            }
            matter.merge(taken, uniquingKeysWith: +)
        }
        refuseOtherMethods(guarded, matter)
        for method in methods {
            for path in ["/api", "/api/**"] {
                guarded.on(RouterPath(path), method: method) { request, _ in
                    APIResponder.error(
                        .notFound, "not_found",
                        "no route \(request.uri.path) (docs/http-api.md lists them; /api/openapi.yaml describes them)")
                }
            }
        }
        return router
    }

    /// What needs no token: liveness, the API's document, the page.
    private static func open(_ router: Router<APIRequestContext>, _ api: APIResponder) {
        router.on("/healthz", method: .get) { _, _ in APIResponder.json(.ok, ["status": "ok"]) }
        router.on("/healthz", method: .head) { _, _ in APIResponder.json(.ok, ["status": "ok"]) }
        router.on("/api/openapi.yaml", method: .get) { _, _ in api.files.document() }
        refuseOtherMethods(router, ["/healthz": [.get, .head], "/api/openapi.yaml": [.get]])
        for path: RouterPath in ["/", "/**"] {
            router.on(path, method: .get) { request, _ in api.files.page(request.uri.path) }
            router.on(path, method: .head) { request, _ in api.files.page(request.uri.path) }
        }
        refuseOtherMethods(router, ["/": [.get, .head], "/**": [.get, .head]])
    }

    /// Registers `routes`, each handled with its path's fields percent-decoded (a path that is not
    /// valid percent-encoded UTF-8 is a 400 before the handler); returns the methods each path takes.
    static func register(
        _ routes: [Route], on group: some RouterMethods<APIRequestContext>,
        _ handle: @escaping @Sendable (Route, [String: String], Request) async -> Response
    ) -> [String: [HTTPRequest.Method]] {
        var taken: [String: [HTTPRequest.Method]] = [:]
        for route in routes {
            taken[route.routerPath, default: []].append(route.method)
            group.on(RouterPath(route.routerPath), method: route.method) { request, context in
                var fields: [String: String] = [:]
                for name in route.fields {
                    guard let raw = context.parameters.get(name), let decoded = raw.removingPercentEncoding else {
                        return APIResponder.error(.badRequest, "invalid", "the path is not valid percent-encoded UTF-8")
                    }
                    fields[name] = decoded
                }
                return await handle(route, fields, request)
            }
        }
        return taken
    }

    /// 405 with `Allow` for every other method on each path.
    private static func refuseOtherMethods(_ routes: some RouterMethods<APIRequestContext>, _ taken: [String: [HTTPRequest.Method]]) {
        for (path, allowed) in taken {
            for method in methods where !allowed.contains(method) {
                routes.on(RouterPath(path), method: method) { _, _ in APIResponder.methodNotAllowed(allowed) }
            }
        }
    }
}

import HTTPTypes
import Hummingbird

/// A method none of the API's routes take (TRACE, CONNECT, anything else) on any path: 405 with what
/// that path takes, as for the methods the router knows (`APIRouter.refuseOtherMethods`).
struct OtherMethodsMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !APIRouter.methods.contains(request.method) else { return try await next(request, context) }
        let allowed = Self.allowed(request.uri.path)
        guard !allowed.isEmpty else {
            return APIResponder.error(
                .notFound, "not_found", "no route \(request.uri.path) (docs/http-api.md lists them; /api/openapi.yaml describes them)")
        }
        return APIResponder.methodNotAllowed(allowed)
    }

    /// The methods `path` takes.
    static func allowed(_ path: String) -> [HTTPRequest.Method] {
        switch path {
        case "/healthz": return [.get, .head]
        case "/readyz", "/metrics", "/api/events", "/api/openapi.yaml": return [.get]
        default: break
        }
        guard path == "/api" || path.hasPrefix("/api/") else { return [.get, .head] }
        let parts = APIResponder.pathParts(path) ?? []
        return (Route.all + HomeKitRoutes.all + MatterRoutes.all).filter { $0.match(parts) != nil }.map(\.method)
    }
}

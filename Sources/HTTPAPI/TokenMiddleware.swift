import Foundation
import HTTPTypes
import Hummingbird

/// With `http.token` set, a request needs `Authorization: Bearer <token>`; the event stream may
/// carry it as `?access_token=` instead (browsers cannot set headers on EventSource or WebSocket).
struct TokenMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let token: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token else { return try await next(request, context) }
        var given: String?
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
            given = String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
        } else if request.uri.path == "/api/events" {
            given = request.uri.queryParameters["access_token"].map(String.init)
        }
        guard let given, APIResponder.same(given, token) else {
            var response = APIResponder.error(
                .unauthorized, "unauthorized",
                given == nil ? "this gateway needs a token: send Authorization: Bearer <http.token>" : "the token is not this gateway's")
            response.headers[.wwwAuthenticate] = "Bearer"
            return response
        }
        return try await next(request, context)
    }
}

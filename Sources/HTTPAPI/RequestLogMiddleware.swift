import Hummingbird
import Logging

/// One debug line per request: method, path, status and how long it took (never the token).
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = (ContinuousClock.now - started).components
        let milliseconds = Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
        logger.debug(
            "\(request.method) \(request.uri.path) \(response.status.code)", metadata: ["ms": "\((milliseconds * 1000).rounded() / 1000)"])
        return response
    }
}

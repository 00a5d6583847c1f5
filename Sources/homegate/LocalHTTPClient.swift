import Gateway
import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 request to the running homegate on this machine, answered in full: what
/// `homegate hap reset-code` and `hap unpair` need (no TLS, no redirects, a small JSON answer).
struct LocalHTTPClient {
    let address: HTTPAddress
    let token: String?
    var timeout: Duration = .seconds(10)

    enum Failure: Error, CustomStringConvertible {
        case unreachable(String, reason: String)
        case timedOut(String)
        case tooLarge(String)

        var description: String {
            switch self {
            case .unreachable(let place, let reason): "cannot reach homegate's HTTP API at \(place): \(reason)"
            case .timedOut(let place): "homegate's HTTP API at \(place) did not answer in time"
            case .tooLarge(let place): "homegate's HTTP API at \(place) answered more than expected"
            }
        }
    }

    static let maxAnswerBytes = 4 * 1024 * 1024

    var place: String {
        "http://\(address.host.contains(":") ? "[\(address.host)]" : address.host):\(address.port)"
    }

    func send(method: String, path: String) async throws -> (status: Int, body: [UInt8]) {
        let place = self.place
        let timeout = self.timeout
        return try await withThrowingTaskGroup(of: (status: Int, body: [UInt8]).self) { group in
            group.addTask { try await exchange(method: method, path: path) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw Failure.timedOut(place)
            }
            defer { group.cancelAll() }
            guard let answer = try await group.next() else { throw Failure.timedOut(place) }
            return answer
        }
    }

    private func exchange(method: String, path: String) async throws -> (status: Int, body: [UInt8]) {
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(5))
                .connect(host: address.host, port: address.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw Failure.unreachable(place, reason: "\(error)")
        }
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: path)
        head.headers.add(name: "Host", value: place.dropFirst("http://".count).description)
        head.headers.add(name: "Content-Length", value: "0")
        head.headers.add(name: "Connection", value: "close")
        head.headers.add(name: "Accept", value: "application/json")
        if let token { head.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let place = self.place
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(.head(head))
            try await outbound.write(.end(nil))
            var status = 0
            var body: [UInt8] = []
            for try await part in inbound {
                switch part {
                case .head(let response): status = Int(response.status.code)
                case .body(var buffer):
                    guard body.count + buffer.readableBytes <= Self.maxAnswerBytes else { throw Failure.tooLarge(place) }
                    body += buffer.readBytes(length: buffer.readableBytes) ?? []
                case .end: return (status, body)
                }
            }
            throw Failure.unreachable(place, reason: "the connection closed before the answer ended")
        }
    }
}

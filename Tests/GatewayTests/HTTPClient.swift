import Foundation
import JSON
import MosquittoTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The gateway's HTTP API as a test speaks to it.
struct HTTPClient {
    let base: String
    var token: String?

    struct Answer {
        let status: Int
        let json: JSONValue
        let text: String
        let headers: [String: String]

        func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }
    }

    func send(
        _ method: String, _ path: String, _ body: JSONValue? = nil, raw: Data? = nil, contentType: String = "application/json",
        headers: [String: String] = [:]
    ) async throws -> Answer {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if let body { request.httpBody = Data(body.serializedBytes()) }
        if let raw { request.httpBody = raw }
        if request.httpBody != nil { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (key, value) in http.allHeaderFields { fields["\(key)"] = "\(value)" }
        let text = String(decoding: data, as: UTF8.self)
        return Answer(status: http.statusCode, json: (try? JSONValue(parsing: Array(data))) ?? .null, text: text, headers: fields)
    }

    func get(_ path: String) async throws -> Answer { try await send("GET", path) }
}

/// `curl -N` on the event stream, its output collected in a file.
final class EventStreamReader: @unchecked Sendable {
    let pid: pid_t
    let output: URL

    init(_ url: String, token: String? = nil) throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-sse-\(UUID().uuidString).txt")
        var arguments = ["/usr/bin/curl", "-sN", url]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        pid = try spawn(arguments, output: output.path)
    }

    var text: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

    /// The events so far: (type, JSON).
    var events: [(type: String, json: JSONValue)] {
        text.components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n")
            guard let type = lines.first(where: { $0.hasPrefix("event: ") })?.dropFirst(7),
                let data = lines.first(where: { $0.hasPrefix("data: ") })?.dropFirst(6),
                let json = try? JSONValue(parsing: Array(data.utf8))
            else { return nil }
            return (String(type), json)
        }
    }

    /// Waits until the stream has said something (it opens with a comment), so events after this are seen.
    func waitOpen(timeout: Duration = .seconds(10)) async throws {
        try await waitFor(timeout: timeout, "the stream to open") { !$0.text.isEmpty }
    }

    func waitFor(timeout: Duration = .seconds(10), _ what: String, _ condition: (EventStreamReader) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(self) {
            guard ContinuousClock.now < deadline else { throw HarnessError("no \(what) within \(timeout); the stream said: \(text)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Whether curl has ended (the server closed the stream).
    var ended: Bool { waitpid(pid, nil, WNOHANG) != 0 }

    /// Leaves the stream, as a closed browser tab does, and waits for curl to end.
    func leave() {
        guard waitpid(pid, nil, WNOHANG) == 0 else { return }
        kill(pid, SIGTERM)
        waitpid(pid, nil, 0)
    }

    deinit {
        leave()
        try? FileManager.default.removeItem(at: output)
    }
}

extension House {
    /// The gateway's HTTP API, once it listens (it says where in its log: the tests give it port 0).
    func http(token: String? = nil, timeout: Duration = .seconds(10)) async throws -> HTTPClient {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let range = gatewayLog.range(of: #"listening on http://[0-9.]+:[0-9]+"#, options: .regularExpression) {
                let address = gatewayLog[range].dropFirst("listening on ".count)
                return HTTPClient(base: String(address), token: token)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError("the gateway did not say where it listens for HTTP; its log: \(gatewayLog)")
    }
}

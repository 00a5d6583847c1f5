/// Where the broker is: parsed from `mqtt://host:port` or `mqtts://host:port`.
public struct BrokerAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int32
    public var usesTLS: Bool

    public init(host: String, port: Int32, usesTLS: Bool) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
    }

    /// Accepts `mqtt://`, `mqtts://`, `tcp://` and `ssl://`; the port defaults to 1883 or 8883.
    public init(url: String) throws(MQTTError) {
        let schemes: [(String, Bool)] = [("mqtt://", false), ("tcp://", false), ("mqtts://", true), ("ssl://", true)]
        guard let (scheme, tls) = schemes.first(where: { url.lowercased().hasPrefix($0.0) }) else {
            throw .invalidURL(url, reason: "expected mqtt://host:port or mqtts://host:port")
        }
        var rest = Substring(url.dropFirst(scheme.count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("/"), !rest.contains("@") else {
            throw .invalidURL(url, reason: "put credentials in username/password, not in the URL, and no path")
        }
        var host = rest
        var port: Int32 = tls ? 8883 : 1883
        if rest.hasPrefix("[") {  // [::1]:1883
            guard let close = rest.firstIndex(of: "]") else { throw .invalidURL(url, reason: "unclosed '['") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let tail = rest[rest.index(after: close)...]
            if !tail.isEmpty {
                guard tail.hasPrefix(":"), let p = Int32(tail.dropFirst()) else { throw .invalidURL(url, reason: "bad port") }
                port = p
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let p = Int32(rest[rest.index(after: colon)...]) else { throw .invalidURL(url, reason: "bad port") }
            port = p
        }
        guard !host.isEmpty else { throw .invalidURL(url, reason: "no host") }
        guard (1...65535).contains(port) else { throw .invalidURL(url, reason: "port \(port) is outside 1-65535") }
        self.init(host: String(host), port: port, usesTLS: tls)
    }

    public var description: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "mqtts" : "mqtt")://\(h):\(port)"
    }
}

import CMosquitto

/// What went wrong talking to the broker, worded for the person running the gateway.
public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A broker URL that cannot be used, with the reason.
    case invalidURL(String, reason: String)
    /// A libmosquitto call failed.
    case library(operation: String, code: Int32)
    /// The broker answered CONNECT with a refusal: a configuration problem, not retried.
    case refused(reasonCode: Int32, reason: String)
    /// A TLS setting that cannot be applied (missing CA file, unreadable key, ...).
    case tls(String)
    /// The broker refused a subscription.
    case subscriptionRefused(filter: String)
    /// The client was shut down while the operation waited.
    case shutDown
    case timedOut(String)
    /// A topic or filter that would not reach what it names: a NUL cuts it short, a wildcard in a
    /// publish, an empty one, one over MQTT's length limit.
    case invalidTopic(String, reason: String)

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): "invalid broker URL '\(url)': \(reason)"
        case .library(let operation, let code): "\(operation): \(Self.libraryMessage(code)) (rc=\(code))"
        case .refused(let code, let reason): "the broker refused the connection: \(reason) (reason code \(code))"
        case .tls(let reason): "TLS: \(reason)"
        case .subscriptionRefused(let filter): "the broker refused the subscription to '\(filter)'"
        case .shutDown: "the MQTT client was shut down"
        case .timedOut(let what): "timed out waiting for \(what)"
        case .invalidTopic(let topic, let reason): "not sent to \(String(reflecting: topic)): \(reason)"
        }
    }

    static func libraryMessage(_ code: Int32) -> String {
        String(cString: mosquitto_strerror(code))
    }
}

@inline(__always)
func check(_ rc: Int32, _ operation: @autoclosure () -> String) throws(MQTTError) {
    guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw .library(operation: operation(), code: rc) }
}

/// The reason a CONNACK refused us, for both protocol versions.
func connackReason(_ code: Int32, v5: Bool) -> String {
    if !v5 {
        switch code {
        case 1: return "unacceptable protocol version"
        case 2: return "client identifier rejected"
        case 3: return "server unavailable"
        case 4: return "bad username or password"
        case 5: return "not authorised"
        default: return "refused"
        }
    }
    return String(cString: mosquitto_reason_string(code))
}

/// Where the connection stands. Observed through `MQTTClient.connectionEvents` or read with `state`.
public enum ConnectionState: Sendable, Equatable, CustomStringConvertible {
    case connecting
    case connected
    /// Lost, with the reason; libmosquitto is already retrying with back-off.
    case disconnected(reason: String)
    /// The broker refused us (bad credentials, not authorised). Not retried: fix the configuration.
    case refused(MQTTError)
    /// We closed the connection ourselves.
    case closed

    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .connected: "connected"
        case .disconnected(let reason): "disconnected: \(reason)"
        case .refused(let error): "refused: \(error)"
        case .closed: "closed"
        }
    }

    public var isConnected: Bool { self == .connected }
}

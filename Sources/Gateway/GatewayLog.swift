import Automation
import Foundation
import JSON
public import Logging
import Synchronization

extension Logger {
    /// This logger for `component`, at the level the configuration gives it.
    public func component(_ component: LogComponent, in configuration: GatewayConfiguration) -> Logger {
        var logger = self
        logger[metadataKey: "component"] = .string(component.rawValue)
        logger.logLevel = configuration.componentLogLevels[component] ?? configuration.logLevel
        return logger
    }
}

/// Writes each line to standard error in one `write`, as text or as a JSON object; the level is
/// set per logger (per component), so this handler lets everything through that reaches it.
public struct GatewayLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let format: LogFormat

    public init(format: LogFormat, level: Logger.Level) {
        self.format = format
        logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra) { _, new in new } }
        let component = fields.removeValue(forKey: "component").map { "\($0)" } ?? LogComponent.gateway.rawValue
        let line = Self.line(
            format: format, time: Date(), level: event.level, component: component, message: "\(event.message)", fields: fields)
        Self.output.withLock { _ in
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        }
    }

    /// Serialises writers, so two lines never interleave.
    private static let output = Mutex(())

    static func line(
        format: LogFormat, time: Date, level: Logger.Level, component: String, message: String, fields: Logger.Metadata
    ) -> String {
        let stamp = instantText(time)
        switch format {
        case .text:
            let extra = fields.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
            return "\(stamp) \(level) \(component): \(message)\(extra)"
        case .json:
            var object: [String: JSONValue] = [:]
            for (key, value) in fields { object[key] = .string("\(value)") }
            object["time"] = .string(stamp)
            object["level"] = .string(level.rawValue)
            object["component"] = .string(component)
            object["message"] = .string(message)
            return JSONValue.object(object).serialized()
        }
    }
}

/// One logger per component, each at its configured level.
struct ComponentLoggers: Sendable {
    private let loggers: [LogComponent: Logger]

    init(_ base: Logger, configuration: GatewayConfiguration) {
        loggers = Dictionary(uniqueKeysWithValues: LogComponent.allCases.map { ($0, base.component($0, in: configuration)) })
    }

    subscript(component: LogComponent) -> Logger { loggers[component]! }
}

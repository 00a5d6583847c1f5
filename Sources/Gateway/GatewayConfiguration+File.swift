import Foundation
import HomeModel
import Mappings
import Mosquitto
import Secrets
import Yams

extension GatewayConfiguration {
    /// Reads `path` (if given), then applies `HOMEGATE_*` variables from `environment` on top.
    /// Every problem is reported at once, each naming the key and where it was set.
    public static func load(path: String?, environment: [String: String]) throws(ConfigurationErrors) -> GatewayConfiguration {
        var configuration = GatewayConfiguration()
        var errors: [ConfigurationError] = []
        if let path {
            errors += configuration.apply(file: path)
        }
        for key in keys {
            // Empty is unset: compose files pass `${VAR:-}` through as an empty string.
            var name = key.environmentName
            if environment[name]?.isEmpty ?? true, let former = formerEnvironmentNames[key.name],
                let value = environment[former], !value.isEmpty
            {
                name = former
                configuration.warnings.append(
                    "\(former) is the name compose.existing-broker.yaml read before 0.7.0; it is used for \(key.name) this time: rename it \(key.environmentName) in .env"
                )
            }
            guard let value = environment[name], !value.isEmpty else { continue }
            if let problem = key.apply(&configuration, value) {
                errors.append(ConfigurationError(location: name, key: key.name, message: problem))
            }
        }
        let settings = Set(keys.map(\.environmentName) + ["HOMEGATE_CONFIG"])
        // HOMEGATE_COMMIT is the image's build argument; compose passes all of .env, so it may come along.
        let known = settings.union(["HOMEGATE_COMMIT"])
        // Platforms set HOMEGATE_* variables of their own (Kubernetes: HOMEGATE_PORT for a service
        // named homegate): a warning, not a refusal. Unknown keys in the file stay errors.
        for name in environment.keys.sorted() where name.hasPrefix("HOMEGATE_") && !known.contains(name) {
            configuration.warnings.append("\(name) is not a setting and is ignored\(didYouMean(name, settings))")
        }
        if errors.isEmpty, let file = configuration.mqtt.passwordFile {
            do {
                let text = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .newlines)
                // Empty is no password: compose mounts an empty file when the broker takes anonymous clients.
                if !text.isEmpty { configuration.mqtt.password = Secret(text) }
            } catch {
                errors.append(
                    ConfigurationError(location: path ?? "environment", key: "mqtt.password_file", message: "cannot read '\(file)'"))
            }
        }
        if errors.isEmpty, let file = configuration.http.tokenFile {
            do {
                let token = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                if token.isEmpty {
                    errors.append(
                        ConfigurationError(location: path ?? "environment", key: "http.token_file", message: "'\(file)' is empty"))
                } else {
                    configuration.http.token = Secret(token)
                }
            } catch {
                errors.append(ConfigurationError(location: path ?? "environment", key: "http.token_file", message: "cannot read '\(file)'"))
            }
        }
        if let listen = configuration.http.listen, !listen.isLoopback, configuration.http.token == nil,
            !errors.contains(where: { $0.key.hasPrefix("http.") })
        {
            errors.append(
                ConfigurationError(
                    location: path ?? "environment", key: "http.listen",
                    message:
                        "\(listen) can be reached from other machines: set http.token (or http.token_file) so that only who has it can run the home, or listen on 127.0.0.1"
                ))
        }
        let placeRefused = errors.contains { $0.key == "location.latitude" || $0.key == "location.longitude" }
        if !placeRefused, (configuration.location.latitude == nil) != (configuration.location.longitude == nil) {
            errors.append(
                ConfigurationError(
                    location: path ?? "environment", key: "location",
                    message: "set both location.latitude and location.longitude (for sunrise and sunset), or neither"))
        }
        guard errors.isEmpty else { throw ConfigurationErrors(errors: errors) }
        return configuration
    }

    /// The environment names of settings that the compose files read before 0.7.0, when `.env` had
    /// two naming schemes. Still honoured, with a warning, when the `HOMEGATE_*` name is unset.
    static let formerEnvironmentNames = ["mqtt.url": "MQTT_URL", "mqtt.username": "MQTT_USERNAME", "mqtt.client_id": "MQTT_CLIENT_ID"]

    /// What `homegate run` needs beyond valid settings, checked with them so every problem is
    /// reported at once: the mappings folder exists.
    public static func loadForRun(path: String?, environment: [String: String]) throws(ConfigurationErrors) -> GatewayConfiguration {
        var errors: [ConfigurationError] = []
        var configuration = GatewayConfiguration()
        do {
            configuration = try load(path: path, environment: environment)
        } catch {
            errors = error.errors
        }
        let mappings = environment["HOMEGATE_MAPPINGS"].flatMap { $0.isEmpty ? nil : $0 } ?? configuration.mappings
        var isFolder: ObjCBool = false
        if !FileManager.default.fileExists(atPath: mappings, isDirectory: &isFolder) || !isFolder.boolValue {
            errors.append(
                ConfigurationError(
                    location: environment["HOMEGATE_MAPPINGS"] != nil ? "HOMEGATE_MAPPINGS" : (path ?? "default"),
                    key: "mappings", message: "no folder at '\(mappings)' (create it, or point mappings at your mapping files)"))
        }
        guard errors.isEmpty else { throw ConfigurationErrors(errors: errors) }
        return configuration
    }

    private mutating func apply(file path: String) -> [ConfigurationError] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            return [ConfigurationError(location: path, key: "-", message: "cannot read the configuration file")]
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            return [ConfigurationError(location: path, key: "-", message: "not valid YAML: \(error)")]
        } catch {
            return [ConfigurationError(location: path, key: "-", message: "not valid YAML: \(error)")]
        }
        guard let root else { return [] }  // an empty file: all defaults
        if let problem = YAMLLimits.problem(root, maximumValues: 10_000) {
            return [ConfigurationError(location: path, key: "-", message: problem)]
        }
        var errors: [ConfigurationError] = []
        walk(root, prefix: "", file: path, errors: &errors)
        return errors
    }

    /// A list item as text: a scalar, or a one-entry mapping (`- room: Garage`, `[room: Garage]`,
    /// which YAML reads as `{room: Garage}`) as `room:Garage`.
    private static func listItem(_ node: Node) -> String? {
        if let scalar = node.scalar { return scalar.string }
        guard let mapping = node.mapping, mapping.count == 1, let entry = mapping.first, let key = entry.key.scalar?.string,
            let value = entry.value.scalar?.string
        else { return nil }
        return "\(key):\(value)"
    }

    private mutating func walk(_ node: Node, prefix: String, file: String, errors: inout [ConfigurationError]) {
        let here = "\(file):\(node.mark.map { "\($0.line):\($0.column)" } ?? "1:1")"
        guard let mapping = node.mapping else {
            errors.append(ConfigurationError(location: here, key: prefix.isEmpty ? "-" : prefix, message: "expected a mapping of keys"))
            return
        }
        let byName = Dictionary(uniqueKeysWithValues: Self.keys.map { ($0.name, $0) })
        let sections = Set(Self.keys.compactMap { $0.name.split(separator: ".").dropLast().first.map(String.init) })
        // What this level takes: at the top, the plain keys and the sections; in a section, its keys.
        let level = Self.keys.map(\.name).filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains(".") }
        let allowed = level + (prefix.isEmpty ? sections.sorted() : [])
        let entries: [(key: String, value: (key: Node, value: Node))] = mapping.map {
            (key: prefix + ($0.key.string ?? ""), value: (key: $0.key, value: $0.value))
        }
        let checked = ObjectKeys(entries, allowed: allowed, suggestions: Self.keys.map(\.name) + sections.sorted())
        let suggestions = Dictionary(
            checked.unknown.map { ($0.key, $0.suggestion) }, uniquingKeysWith: { (first: String, _: String) in first })
        for (name, (keyNode, value)) in entries {
            let at = "\(file):\(keyNode.mark.map { "\($0.line):\($0.column)" } ?? "?")"
            if let suggestion = suggestions[name] {
                let message =
                    prefix == "log_levels."
                    ? "unknown component (expected one of \(LogComponent.allCases.map(\.rawValue).joined(separator: ", ")))"
                    : "unknown key\(suggestion)"
                errors.append(ConfigurationError(location: at, key: name, message: message))
            } else if prefix.isEmpty, sections.contains(name) {
                walk(value, prefix: name + ".", file: file, errors: &errors)
            } else if let key = byName[name], let items = key.applyItems, let sequence = value.sequence {
                let texts = sequence.map(Self.listItem)
                guard texts.allSatisfy({ $0 != nil }) else {
                    errors.append(
                        ConfigurationError(location: at, key: name, message: "expected a list of kind:name values like room:Kitchen"))
                    continue
                }
                if let problem = items(&self, texts.compactMap { $0 }) {
                    errors.append(ConfigurationError(location: at, key: name, message: problem))
                }
            } else if let key = byName[name] {
                guard let scalar = value.scalar else {
                    errors.append(ConfigurationError(location: at, key: name, message: "expected a single value"))
                    continue
                }
                if value.tag.description.hasSuffix(":null") || scalar.string == "~" { continue }
                if let problem = key.apply(&self, scalar.string) {
                    errors.append(ConfigurationError(location: at, key: name, message: problem))
                }
            }
        }
    }
}

/// All the problems found in one configuration.
public struct ConfigurationErrors: Error, Sendable, CustomStringConvertible {
    public var errors: [ConfigurationError]
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

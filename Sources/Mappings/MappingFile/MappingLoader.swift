import Foundation
import HomeModel
import Yams

extension MappingSet {
    /// Reads every `*.yaml` and `*.yml` file in `directory`. Every problem in every file is reported;
    /// a file with problems contributes nothing, so a broken edit never half-applies.
    public static func load(directory: String) -> (MappingSet, [Diagnostic]) {
        let loaded = load(directory: directory, previous: [:])
        return (loaded.set, loaded.diagnostics)
    }

    /// What a folder of mapping files gives: the files that load, each broken one's problems, and
    /// the text of every file in force. A broken file whose earlier text is in `previous` is read
    /// as it was then, so a half-saved edit never takes a house's accessories away.
    public struct Loaded: Sendable {
        public var set = MappingSet()
        public var diagnostics: [Diagnostic] = []
        /// Files with problems, by path; true where their last good version stays in force.
        public var broken: [String: Bool] = [:]
        /// The text in force for every file that loaded (now or before).
        public var texts: [String: String] = [:]
        /// The folder itself cannot be read: nothing is known about the files in it.
        public var folderUnreadable = false
    }

    public static func load(directory: String, previous: [String: String]) -> Loaded {
        var loaded = Loaded()
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
                .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
        } catch {
            loaded.folderUnreadable = true
            loaded.diagnostics = [Diagnostic(file: directory, line: 1, column: 1, message: "cannot read the mappings folder")]
            return loaded
        }
        for (path, text) in read(names.map { (directory as NSString).appendingPathComponent($0) }, into: &loaded.diagnostics) {
            let problems = loaded.set.add(file: path, text: text)
            guard !problems.isEmpty else {
                loaded.texts[path] = text
                continue
            }
            loaded.diagnostics += problems
            if let old = previous[path], old != text, loaded.set.add(file: path, text: old).isEmpty {
                loaded.texts[path] = old
                loaded.broken[path] = true
            } else {
                loaded.broken[path] = false
            }
        }
        for diagnostic in loaded.diagnostics where loaded.broken[diagnostic.file] == nil { loaded.broken[diagnostic.file] = false }
        return loaded
    }

    /// Each file's text; a file that cannot be read, or is too large, is a diagnostic instead.
    private static func read(_ paths: [String], into diagnostics: inout [Diagnostic]) -> [(String, String)] {
        var texts: [(String, String)] = []
        for path in paths {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            if let problem = YAMLLimits.problem(bytes: size, maximum: YAMLLimits.mappingFileBytes) {
                diagnostics.append(Diagnostic(file: path, line: 1, column: 1, message: problem))
                continue
            }
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                diagnostics.append(Diagnostic(file: path, line: 1, column: 1, message: "cannot read the file as UTF-8 text"))
                continue
            }
            texts.append((path, text))
        }
        return texts
    }

    static let topLevelKeys = ["source", "name", "base_topic", "devices", "accessories", "templates", "instances"]

    /// Adds one file's contents; returns its problems (and adds nothing if there are any).
    public mutating func add(file: String, text: String) -> [Diagnostic] {
        var reader = FileReader(file: file)
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            return [Self.diagnostic(for: error, file: file)]
        } catch {
            return [Diagnostic(file: file, line: 1, column: 1, message: "not valid YAML: \(error)")]
        }
        guard let root else { return [] }  // an empty file is allowed: nothing to map yet
        if let problem = YAMLLimits.problem(root, maximumValues: YAMLLimits.mappingFileValues) {
            return [Diagnostic(file: file, line: 1, column: 1, message: problem)]
        }
        if let keys = root.mapping?.compactMap(\.key.string), !keys.contains("source"), !keys.contains(where: Self.topLevelKeys.contains) {
            return [
                Diagnostic(
                    file: file, line: 1, column: 1,
                    message: "not a mapping file: it has none of a mapping file's keys "
                        + "(\(Self.topLevelKeys.joined(separator: ", "))); a mapping file starts with 'source: zigbee2mqtt' or 'source: mqtt'. "
                        + "Move other files out of the mappings folder")
            ]
        }
        guard
            let top = reader.fields(
                root, "a mapping file", allowed: ["source", "name", "base_topic", "devices", "accessories", "templates", "instances"],
                required: ["source"])
        else { return reader.diagnostics }
        var copy = self
        switch reader.string(top["source"]?.value, "source") {
        case "zigbee2mqtt":
            for key in ["accessories", "templates", "instances"] {
                if let entry = top[key] { reader.error(entry.key, "'\(key)' belongs in a 'source: mqtt' file") }
            }
            if let source = reader.zigbee2mqttSource(top, file: file) {
                // Two files for one bridge would build every device twice.
                if let other = zigbee2mqtt.first(where: { $0.baseTopic == source.baseTopic }) {
                    reader.error(
                        top["base_topic"]?.value ?? top["source"]?.value,
                        "base_topic '\(source.baseTopic)' is already used by \(other.file); one file per bridge")
                }
                copy.zigbee2mqtt.append(source)
            }
        case "mqtt":
            for key in ["name", "base_topic", "devices"] {
                if let entry = top[key] { reader.error(entry.key, "'\(key)' belongs in a 'source: zigbee2mqtt' file") }
            }
            let taken = Dictionary(accessories.map { ($0.accessory.id, $0.file) }, uniquingKeysWith: { a, _ in a })
            copy.accessories += reader.mqttAccessories(top, file: file, taken: taken)
        case let other?:
            reader.error(
                top["source"]?.value, "source must be zigbee2mqtt or mqtt, not '\(other)'\(didYouMean(other, ["zigbee2mqtt", "mqtt"]))")
        case nil:
            break
        }
        guard reader.diagnostics.isEmpty else {
            return reader.diagnostics.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
        }
        copy.files.append(file)
        self = copy
        return []
    }

    static func diagnostic(for error: YamlError, file: String) -> Diagnostic {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let detail = context.map { "\($0.text) " } ?? ""
            return Diagnostic(file: file, line: mark.line, column: mark.column, message: "not valid YAML: \(detail)\(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return Diagnostic(
                file: file, line: context.mark.line, column: context.mark.column,
                message: "duplicate key\(duplicates.count > 1 ? "s" : "") \(duplicates.map { "'\($0)'" }.joined(separator: ", "))")
        default:
            return Diagnostic(file: file, line: 1, column: 1, message: "not valid YAML: \(error)")
        }
    }
}

extension FileReader {
    mutating func zigbee2mqttSource(_ top: [String: (key: Node, value: Node)], file: String) -> Zigbee2MQTTSource? {
        var source = Zigbee2MQTTSource(file: file)
        source.name = nonEmpty(top["name"]?.value, "name")
        if let node = top["base_topic"]?.value, let topic = nonEmpty(node, "base_topic") {
            if topic.contains("+") || topic.contains("#") || topic.hasSuffix("/") {
                error(node, "base_topic must be a topic without wildcards or a trailing '/', not '\(topic)'")
            }
            source.baseTopic = topic
        }
        guard let devices = top["devices"]?.value else { return source }
        guard let mapping = devices.mapping else {
            error(devices, "devices must map friendly names or IEEE addresses to overrides")
            return nil
        }
        for (key, value) in mapping {
            guard let name = key.string else { continue }
            if name.hasPrefix("0x"), name.count != 18 || !name.dropFirst(2).allSatisfy(\.isHexDigit) {
                error(key, "'\(name)' looks like an IEEE address but is not 0x followed by 16 hex digits")
            }
            let what = "device '\(name)'"
            guard
                let fields = fields(
                    value, what,
                    allowed: [
                        "name", "room", "exclude", "exclude_properties", "include_properties", "invert_position", "hide_members", "service",
                        "settings",
                    ])
            else { continue }
            var override = Zigbee2MQTTOverride()
            override.name = nonEmpty(fields["name"]?.value, "\(what) name")
            override.room = nonEmpty(fields["room"]?.value, "\(what) room")
            override.exclude = bool(fields["exclude"]?.value, "\(what) exclude") ?? false
            override.invertPosition = bool(fields["invert_position"]?.value, "\(what) invert_position") ?? false
            override.hideMembers = bool(fields["hide_members"]?.value, "\(what) hide_members") ?? false
            override.excludeProperties = Set(stringList(fields["exclude_properties"]?.value, "\(what) exclude_properties") ?? [])
            if let node = fields["include_properties"]?.value, let list = stringList(node, "\(what) include_properties") {
                for name in list where !Zigbee2MQTTOverride.includable.contains(name) {
                    error(
                        node,
                        "\(what) include_properties: '\(name)' is not an expose that is left out by default "
                            + "(those are \(Zigbee2MQTTOverride.includable.sorted().joined(separator: ", ")))\(didYouMean(name, Zigbee2MQTTOverride.includable.sorted()))"
                    )
                }
                override.includeProperties = Set(list)
            }
            if let service = choice(fields["service"]?.value, "\(what) service", Zigbee2MQTTOverride.ServiceChoice.self) {
                override.service = service
            }
            if let settings = choice(fields["settings"]?.value, "\(what) settings", Zigbee2MQTTOverride.SettingsChoice.self) {
                override.settings = settings
            }
            source.devices[name] = override
        }
        return source
    }
}

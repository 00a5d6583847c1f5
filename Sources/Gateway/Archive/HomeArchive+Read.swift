import Automation
public import Foundation
import HomeModel
import JSON
import Mappings
import Yams

extension HomeArchive {
    /// Reads an export back, checking it whole: every problem is reported with file:line:column.
    /// Timers without a time zone use `timeZone`.
    public static func read(_ text: String, file: String, timeZone: TimeZone) throws(ArchiveError) -> StoredHome {
        try readContents(text, file: file, timeZone: timeZone).home
    }

    /// What an export holds: the home, and the HomeKit bridge's state when it was exported with it.
    public struct Contents: Sendable {
        public var home: StoredHome
        /// `adapter_state` rows (JSON text by key), or nil when the export left them out.
        public var homekit: [String: String]?
        /// The Matter bridge's `adapter_state` rows (`matter.` keys), or nil when the export left them out.
        public var matter: [String: String]?
    }

    /// Reads an export back with the HomeKit bridge's state it may carry, checked as `read` does.
    public static func readContents(_ text: String, file: String, timeZone: TimeZone) throws(ArchiveError) -> Contents {
        let root: Node
        do {
            if let problem = YAMLLimits.problem(bytes: text.utf8.count, maximum: YAMLLimits.importFileBytes) {
                throw ArchiveError(problems: ["\(file): \(problem)"])
            }
            guard let node = try Yams.compose(yaml: text) else { throw ArchiveError(problems: ["\(file): the file is empty"]) }
            if let problem = YAMLLimits.problem(node, maximumValues: YAMLLimits.importFileValues) {
                throw ArchiveError(problems: ["\(file): \(problem)"])
            }
            root = node
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw ArchiveError(problems: ["\(file): not valid YAML: \(error)"])
        }
        var reader = ArchiveReader(file: file)
        let json = YAMLJSON.value(root, marks: &reader.marks)
        let home = reader.read(json, timeZone: timeZone)
        let homekit = reader.homekit(json["homekit"])
        let matter = reader.matter(json["matter"])
        guard reader.problems.isEmpty, let home else { throw ArchiveError(problems: reader.problems) }
        return Contents(home: home, homekit: homekit, matter: matter)
    }
}

/// Checks an archive the way the API checks requests, collecting every problem.
struct ArchiveReader {
    let file: String
    var marks: [String: Mark] = [:]
    var problems: [String] = []

    mutating func problem(_ path: String, _ message: String) {
        var key = path
        while marks[key] == nil, !key.isEmpty {
            key = String(key[..<(key.lastIndex { $0 == "." || $0 == "[" } ?? key.startIndex)])
        }
        let mark = marks[key].map { "\($0.line):\($0.column)" } ?? "1:1"
        problems.append("\(file):\(mark): \(path.isEmpty ? "" : "\(path): ")\(message)")
    }

    /// An automation decoder's error names a path inside the object at `base`.
    mutating func problem(at base: String, _ error: any Error) {
        let text = "\(error)"
        if let colon = text.range(of: ": "), !text[..<colon.lowerBound].contains(" ") {
            problem("\(base).\(text[..<colon.lowerBound])", String(text[colon.upperBound...]))
        } else {
            problem(base, text)
        }
    }

    mutating func fields(_ json: JSONValue?, _ path: String, allowed: [String], required: [String]) -> [String: JSONValue]? {
        guard case .object(let fields)? = json else {
            problem(path, "expected a mapping with \(required.joined(separator: ", "))")
            return nil
        }
        let keys = ObjectKeys(sorted: fields, allowed: allowed, required: required)
        for unknown in keys.unknown { problem("\(path).\(unknown.key)", "unknown key\(unknown.suggestion)") }
        for key in keys.missing { problem(path, "missing \(key)") }
        return fields
    }

    mutating func id(_ json: JSONValue?, _ path: String, taken: inout Set<String>) -> String? {
        guard case .string(let id)? = json, !id.isEmpty, Accessory.topicSafeID(id) == id else {
            problem(path, "an id uses only a-z, 0-9, _ and -")
            return nil
        }
        guard taken.insert(id).inserted else {
            problem(path, "the id '\(id)' is used twice")
            return nil
        }
        return id
    }

    mutating func name(_ json: JSONValue?, _ path: String, kind: String, unique names: inout Set<String>, scope: String) -> String? {
        guard case .string(let raw)? = json else {
            problem(path, "expected a name")
            return nil
        }
        switch Naming.check(raw, for: kind) {
        case .failure(let error):
            problem(path, error.description)
            return nil
        case .success(let name):
            guard names.insert(name.lowercased()).inserted else {
                problem(path, StructureError.duplicateName(kind: kind, name, scope: scope).description)
                return nil
            }
            return name
        }
    }

    mutating func list(_ json: JSONValue?, _ path: String) -> [JSONValue] {
        switch json {
        case nil, .null?: return []
        case .array(let items)?: return items
        default:
            problem(path, "expected a list")
            return []
        }
    }
}

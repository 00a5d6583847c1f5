import Foundation
import JSON

extension ArchiveReader {
    /// An export's `matter` section: the Matter bridge's `adapter_state` rows, each a `matter.` key
    /// with its text (`matter.node` base64 TLV, the others JSON objects). Nil when there is none.
    mutating func matter(_ json: JSONValue?) -> [String: String]? {
        guard let json, !json.isNull else { return nil }
        guard let fields = json.objectValue else {
            problem("matter", "expected a mapping of matter.… keys to the text homegate export wrote")
            return nil
        }
        var values: [String: String] = [:]
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            let path = "matter.\(key)"
            guard key.hasPrefix("matter.") else {
                problem(path, "not a Matter key (they start with matter.)")
                continue
            }
            guard let text = value.stringValue else {
                problem(path, "expected the text homegate export wrote, found \(value.kindDescription)")
                continue
            }
            let readable = key == "matter.node" ? Data(base64Encoded: text) != nil : (try? JSONValue(parsing: text))?.objectValue != nil
            guard readable else {
                problem(path, "not the \(key == "matter.node" ? "base64 text" : "JSON object") homegate export wrote (was the file edited?)")
                continue
            }
            values[key] = text
        }
        return values
    }
}

import JSON

extension ArchiveReader {
    /// An export's `homekit` section: the HomeKit bridge's `adapter_state` rows, each a `hap.` key
    /// with its JSON text. Nil when there is none.
    mutating func homekit(_ json: JSONValue?) -> [String: String]? {
        guard let json, !json.isNull else { return nil }
        guard let fields = json.objectValue else {
            problem("homekit", "expected a mapping of hap.… keys to the JSON text homegate export wrote")
            return nil
        }
        var values: [String: String] = [:]
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            let path = "homekit.\(key)"
            guard key.hasPrefix("hap.") else {
                problem(path, "not a HomeKit key (they start with hap.)")
                continue
            }
            guard let text = value.stringValue else {
                problem(path, "expected the JSON text homegate export wrote, found \(value.kindDescription)")
                continue
            }
            guard (try? JSONValue(parsing: text))?.objectValue != nil else {
                problem(path, "not the JSON object homegate export wrote (was the file edited?)")
                continue
            }
            values[key] = text
        }
        return values
    }
}

import Mappings

extension FuzzTarget {
    /// As `homegate validate file.yaml` reads it: the size limit, UTF-8, then the loader.
    static func mappingFile(_ bytes: [UInt8]) -> String? {
        guard YAMLLimits.problem(bytes: bytes.count, maximum: YAMLLimits.mappingFileBytes) == nil,
            let text = String(validating: bytes, as: UTF8.self)
        else { return nil }
        var set = MappingSet()
        _ = set.add(file: "fuzz.yaml", text: text)
        return nil
    }
}

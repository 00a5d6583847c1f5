import ArgumentParser
import Foundation
import Mappings

struct Validate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check mapping files without starting anything.",
        discussion: "Prints every problem as file:line:column: message and exits 1, or prints a one-line summary and exits 0.")

    @Argument(help: "The mappings folder, or one mapping file.")
    var directory = "mappings"

    func run() async throws {
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder)
        let (set, diagnostics): (MappingSet, [Diagnostic])
        if exists, !isFolder.boolValue {
            var single = MappingSet()
            let text = (try? String(contentsOfFile: directory, encoding: .utf8))
            diagnostics = text.map { single.add(file: directory, text: $0) }
                ?? [Diagnostic(file: directory, line: 1, column: 1, message: "cannot read the file as UTF-8 text")]
            set = single
        } else {
            (set, diagnostics) = MappingSet.load(directory: directory)
        }
        guard diagnostics.isEmpty else {
            for diagnostic in diagnostics { print(diagnostic) }
            printError("\(diagnostics.count) problem\(diagnostics.count == 1 ? "" : "s") in \(directory)")
            throw ExitCode(1)
        }
        print(mappingSummary(set, directory: directory))
    }
}

/// `mappings/: 4 files valid: 1 Zigbee2MQTT bridge (7 device overrides), 4 MQTT accessories`.
func mappingSummary(_ set: MappingSet, directory: String) -> String {
    let overrides = set.zigbee2mqtt.reduce(0) { $0 + $1.devices.count }
    return "\(directory): \(set.files.count) file\(set.files.count == 1 ? "" : "s") valid: "
        + "\(set.zigbee2mqtt.count) Zigbee2MQTT bridge\(set.zigbee2mqtt.count == 1 ? "" : "s") (\(overrides) device overrides), "
        + "\(set.accessories.count) MQTT accessor\(set.accessories.count == 1 ? "y" : "ies")"
}

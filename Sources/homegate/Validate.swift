import ArgumentParser
import Mappings

struct Validate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check mapping files without starting anything.",
        discussion: "Prints every problem as file:line:column: message and exits 1, or prints a one-line summary and exits 0.")

    @Argument(help: "The mappings folder.")
    var directory = "mappings"

    func run() async throws {
        let (set, diagnostics) = MappingSet.load(directory: directory)
        guard diagnostics.isEmpty else {
            for diagnostic in diagnostics { print(diagnostic) }
            printError("\(diagnostics.count) problem\(diagnostics.count == 1 ? "" : "s") in \(directory)")
            throw ExitCode(1)
        }
        let overrides = set.zigbee2mqtt.reduce(0) { $0 + $1.devices.count }
        print("\(directory): \(set.files.count) file\(set.files.count == 1 ? "" : "s") valid: "
              + "\(set.zigbee2mqtt.count) Zigbee2MQTT bridge\(set.zigbee2mqtt.count == 1 ? "" : "s") (\(overrides) device overrides), "
              + "\(set.accessories.count) MQTT accessor\(set.accessories.count == 1 ? "y" : "ies")")
    }
}

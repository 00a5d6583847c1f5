import ArgumentParser
import Foundation
import Gateway
import HomeModel
import Mappings

struct Validate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check mapping files without starting anything.",
        discussion: """
            Prints every problem as file:line:column: message and exits 1, or prints a one-line summary and exits 0.
            With --devices, also shows what each device of a Zigbee2MQTT bridge/devices payload becomes \
            (with the overrides of the mapping files) and every expose left out, with why. With --coverage, how much of the \
            house reaches HomeKit and the Matter bridge, and which characteristics Matter has no counterpart for.
            """)

    @Argument(help: "The mappings folder, or one mapping file; by default the configuration's (HOMEGATE_CONFIG, HOMEGATE_MAPPINGS).")
    var path: String?

    @Option(name: .shortAndLong, help: "The configuration file (homegate.yaml) whose mappings folder to check; HOMEGATE_CONFIG names it too.")
    var config: String?

    @Option(
        help: ArgumentHelp(
            "A saved bridge/devices payload: print each device's accessory and what is left out.",
            discussion: "mosquitto_sub -t zigbee2mqtt/bridge/devices -C 1 > devices.json", valueName: "devices.json"))
    var devices: String?

    @Flag(
        help: ArgumentHelp(
            "A coverage table: the share of exposes shown in HomeKit and reaching the Matter bridge, per kind of expose and in all.",
            discussion: "With --devices, of that list; without, of each Zigbee2MQTT bridge's list on the configuration's broker, "
                + "and of the mapping files' MQTT accessories."))
    var coverage = false

    @Option(help: "With --coverage and no --devices: seconds to wait for the broker and each bridge's device list (at most 3600).")
    var timeout: Double = 5

    /// The longest `--timeout`: an hour, far beyond any broker's answer, and well within a Duration's milliseconds.
    static let longestTimeout: Double = 3600

    func validate() throws {
        guard timeout.isFinite, timeout > 0, timeout <= Self.longestTimeout else {
            throw ValidationError("--timeout \(timeout): seconds must be a number above 0 and at most \(Int(Self.longestTimeout))")
        }
    }

    func run() async throws {
        let directory = try path ?? loadSettings(config).mappings
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder)
        let (set, diagnostics): (MappingSet, [Diagnostic])
        if exists, !isFolder.boolValue {
            var single = MappingSet()
            let text = (try? String(contentsOfFile: directory, encoding: .utf8))
            diagnostics =
                text.map { single.add(file: directory, text: $0) }
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
        if let devices {
            try report(devices: devices, set: set)
        } else if coverage {
            try await houseCoverage(set)
        }
    }

    /// One line per device: its accessory's services, or why it has none; then what is not shown.
    func report(devices path: String, set: MappingSet) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            printError("cannot read \(path)")
            throw ExitCode(1)
        }
        guard let list = Zigbee2MQTTDevice.list(parsing: Array(data)) else {
            printError("\(path): not a bridge/devices payload (a JSON array of devices)")
            throw ExitCode(1)
        }
        let source = set.zigbee2mqtt.first
        if coverage {
            print(Zigbee2MQTTCoverage(list, override: { source?.override(for: $0) ?? .init() }, bridge: Self.matter).table)
            return
        }
        var accessories = 0
        var skipped = 0
        var unmapped = 0
        for device in list {
            switch Zigbee2MQTTMapping.build(
                device, override: source?.override(for: device) ?? .init(), bridge: source?.baseTopic ?? "zigbee2mqtt")
            {
            case .failure(let reason):
                skipped += 1
                print("\(device.loggableName): no accessory: \(reason.reason)")
            case .success(let mapping):
                accessories += 1
                let services = mapping.accessory.services.filter { $0.type != .service_label }
                    .map { "\($0.id) [\($0.characteristics.map(\.name).joined(separator: ", "))]" }
                print(
                    "\(device.friendlyName) (\([device.vendor, device.model].compactMap { $0 }.joined(separator: " "))): \(services.joined(separator: "; "))"
                )
                for expose in mapping.unmapped { print("  not shown: \(expose)") }
                unmapped += mapping.unmapped.count
            }
        }
        print("\(path): \(list.count) devices: \(accessories) accessories, \(skipped) without one; \(unmapped) exposes not shown")
    }
}

/// `mappings/: 4 files valid: 1 Zigbee2MQTT bridge (7 device overrides), 4 MQTT accessories`.
func mappingSummary(_ set: MappingSet, directory: String) -> String {
    let overrides = set.zigbee2mqtt.reduce(0) { $0 + $1.devices.count }
    return "\(directory): \(set.files.count) file\(set.files.count == 1 ? "" : "s") valid: "
        + "\(set.zigbee2mqtt.count) Zigbee2MQTT bridge\(set.zigbee2mqtt.count == 1 ? "" : "s") (\(overrides) device overrides), "
        + "\(set.accessories.count) MQTT accessor\(set.accessories.count == 1 ? "y" : "ies")"
}

import Foundation
import Gateway
import MosquittoTesting
import Testing

@Suite("homegate validate")
struct ValidateCommandTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func run(_ arguments: String...) throws -> (status: Int32, output: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("validate-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let pid = try spawn([homegateExecutable, "validate"] + arguments, output: output)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return (status >> 8, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    @Test("the shipped mappings and the demo's pass with a one-line summary and exit 0")
    func shipped() throws {
        let (status, output) = try run(Self.repository.appendingPathComponent("demo/mappings").path)
        #expect(status == 0)
        #expect(output.contains("4 files valid: 1 Zigbee2MQTT bridge (7 device overrides), 4 MQTT accessories"), "\(output)")
        let plain = try run(Self.repository.appendingPathComponent("mappings").path)
        #expect(plain.status == 0)
        #expect(plain.output.contains("1 file valid: 1 Zigbee2MQTT bridge (0 device overrides), 0 MQTT accessories"), "\(plain.output)")
    }

    @Test("--timeout must be a number of seconds above 0 and at most an hour: infinity, 1e300 or a negative one is refused, not a crash")
    func timeoutChecked() throws {
        let mappings = Self.repository.appendingPathComponent("demo/mappings").path
        for timeout in ["inf", "1e300", "-1", "0"] {
            let (status, output) = try run(mappings, "--coverage", "--timeout=\(timeout)")
            #expect(status == 64, "\(timeout): \(output)")  // ArgumentParser's validation failure
            #expect(output.contains("seconds must be a number above 0 and at most 3600"), "\(output)")
        }
    }

    @Test("--devices shows what each device of a bridge/devices payload becomes and every expose left out, with why")
    func devices() throws {
        let fixture = Self.repository.appendingPathComponent("Tests/MappingsTests/Fixtures/devices.json").path
        let (status, output) = try run(Self.repository.appendingPathComponent("demo/mappings").path, "--devices", fixture)
        #expect(status == 0)
        #expect(output.contains("bulb (IKEA LED1545G12): lightbulb [on, brightness, color_temperature]; settings [effect]"), "\(output)")
        #expect(output.contains("  not shown: power_on_behavior (a device setting (config); settings: all shows it)"))
        #expect(output.contains("0x0017880104e45518: no accessory: not supported by Zigbee2MQTT"))
        #expect(
            output.contains(
                "  not shown: device_temperature (the device's own temperature; include_properties: [device_temperature] shows it)"))
        #expect(output.contains("devices.json: 14 devices: 12 accessories, 2 without one;"))
        let broken = try run(
            Self.repository.appendingPathComponent("mappings").path, "--devices", Self.repository.appendingPathComponent("README.md").path)
        #expect(
            broken.status == 1 && broken.output.contains("README.md: not a bridge/devices payload (a JSON array of devices)"),
            "\(broken.output)")
    }

    @Test("a broken folder lists every problem with file, line and column, and exits 1")
    func broken() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mappings-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "source: zigbee2mqtt\nbase_topik: z2m\n".write(
            to: directory.appendingPathComponent("a.yaml"), atomically: true, encoding: .utf8)
        try "source: mqtt\naccessories: [\n".write(to: directory.appendingPathComponent("b.yaml"), atomically: true, encoding: .utf8)
        let (status, output) = try run(directory.path)
        #expect(status == 1)
        #expect(
            output.contains("\(directory.path)/a.yaml:2:1: unknown key 'base_topik' in a mapping file (did you mean 'base_topic'?)"),
            "\(output)")
        #expect(output.contains("\(directory.path)/b.yaml:3:1: not valid YAML"), "\(output)")
        #expect(output.contains("2 problems in"))
    }

    @Test("a single file is checked too, alone")
    func singleFile() throws {
        let good = try run(Self.repository.appendingPathComponent("demo/mappings/zigbee2mqtt.yaml").path)
        #expect(good.status == 0)
        #expect(
            good.output.contains("zigbee2mqtt.yaml: 1 file valid: 1 Zigbee2MQTT bridge (7 device overrides), 0 MQTT accessories"),
            "\(good.output)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("single-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        try "source: zigbee2mqtt\nbase_topik: z2m\n".write(to: file, atomically: true, encoding: .utf8)
        let bad = try run(file.path)
        #expect(bad.status == 1)
        #expect(
            bad.output.contains("\(file.path):2:1: unknown key 'base_topik' in a mapping file (did you mean 'base_topic'?)"),
            "\(bad.output)")
    }

    @Test("homegate --version prints the release and exits 0")
    func version() async throws {
        let result = try await homegate(["--version"])
        #expect(result.status == 0)
        #expect(result.output.hasPrefix(HomegateVersion.number), "\(result.output)")
    }
}

import Foundation
import JSON
import Mosquitto
import MosquittoTesting
import Testing

/// A small tmpfs the test can fill: a real full disk under the database.
final class SmallDisk {
    let path: URL
    private var filler: URL { path.appendingPathComponent("filler") }

    /// Whether this machine lets us mount one (root, and not a container that forbids it).
    static let available: Bool = {
        guard getuid() == 0, let probe = try? SmallDisk(under: FileManager.default.temporaryDirectory, megabytes: 1) else { return false }
        probe.unmount()
        return true
    }()

    init(under folder: URL, megabytes: Int) throws {
        path = folder.appendingPathComponent("disk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
        guard Self.run(["/bin/mount", "-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path.path]) == 0 else {
            throw HarnessError("cannot mount a tmpfs at \(path.path)")
        }
    }

    /// Writes until the disk says it is full.
    func fill() {
        _ = FileManager.default.createFile(atPath: filler.path, contents: nil)
        guard let handle = try? FileHandle(forWritingTo: filler) else { return }
        let chunk = Data(repeating: 0x55, count: 16 * 1024)
        while (try? handle.write(contentsOf: chunk)) != nil {}
        let byte = Data([0x55])
        while (try? handle.write(contentsOf: byte)) != nil {}
        try? handle.close()
    }

    func free() { try? FileManager.default.removeItem(at: filler) }

    /// Remounts the disk read-only or writable again, as a failing SD card or a wrong mount would.
    func readOnly(_ on: Bool) throws {
        guard Self.run(["/bin/mount", "-o", "remount,\(on ? "ro" : "rw")", path.path]) == 0 else {
            throw HarnessError("cannot remount \(path.path) \(on ? "read-only" : "writable")")
        }
    }

    func unmount() { _ = Self.run(["/bin/umount", "-l", path.path]) }

    private static func run(_ argv: [String]) -> Int32 {
        guard let pid = try? spawn(argv, output: "/dev/null") else { return -1 }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return status >> 8
    }
}

@Suite(
    "A full or read-only disk: nothing answered ok is lost", .enabled(if: TestBroker.isAvailable && SmallDisk.available),
    .timeLimit(.minutes(2)))
struct DiskFullTests {
    @Test(
        "with the disk full, changes are answered with errors of kind storage, kept, and stored once there is room: all there after a restart"
    )
    func fullDisk() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-disk-\(UUID().uuidString)")
        let disk = try SmallDisk(under: scratch, megabytes: 2)
        defer { disk.unmount() }
        let database = disk.path.appendingPathComponent("homegate.sqlite").path
        let house = try await House(environment: ["HOMEGATE_DATABASE": database])
        defer { house.stop() }
        disk.fill()

        var answers: [JSONValue] = []
        let actions: JSONValue = [
            ["characteristic": "bulb/lightbulb/brightness", "value": 40], ["characteristic": "bulb/lightbulb/on", "value": true],
        ]
        for i in 0..<30 {
            answers.append(
                try await house.request(
                    "action_set/add", ["name": .string("Scene \(i) " + String(repeating: "x", count: 40)), "actions": actions]))
        }
        let refused = answers.filter { $0["status"] == "error" }
        #expect(!refused.isEmpty, "the full disk refused nothing: \(answers.last ?? .null)")
        #expect(
            refused.allSatisfy { $0["kind"] == "storage" && $0["error"]?.stringValue?.contains("could not be stored") == true },
            "\(refused.first ?? .null)")
        #expect(answers.allSatisfy { $0["status"] == "ok" || $0["kind"] == "storage" })

        disk.free()
        let deadline = ContinuousClock.now + .seconds(20)
        while !house.gatewayLog.contains("the home is stored again"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(house.gatewayLog.contains("the home is stored again"))
        #expect(house.gatewayLog.components(separatedBy: "cannot store the home").count - 1 == 1, "logged once, not per write")

        house.stopGateway()
        let mark = house.recorder.mark
        try house.startGateway(["HOMEGATE_DATABASE": database])
        try await house.settled(after: mark)
        let names = Set(try await house.ok("action_set/list")["action_sets"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
        let missing = (0..<30).map { "Scene \($0) " + String(repeating: "x", count: 40) }.filter { !names.contains($0) }
        #expect(missing.isEmpty, "lost after a restart: \(missing)")
    }

    /// Linux does not remount a disk read-only while files on it are open for writing, so a running
    /// gateway meets a disk that fails writes as the full-disk test shows; this is the disk that is
    /// read-only when the gateway starts (a wrong mount, an SD card the kernel gave up on).
    @Test("a read-only disk under the database: the gateway refuses to start, saying so; once writable it starts with the whole home")
    func readOnlyDisk() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-disk-\(UUID().uuidString)")
        let disk = try SmallDisk(under: scratch, megabytes: 16)
        defer { disk.unmount() }
        let database = disk.path.appendingPathComponent("homegate.sqlite").path
        let house = try await House(environment: ["HOMEGATE_DATABASE": database])
        defer { house.stop() }
        try await house.ok("room/add", ["name": "Before"])
        house.stopGateway()

        try disk.readOnly(true)
        let refused = try await homegate(
            ["run"],
            environment: [
                "HOMEGATE_MQTT_URL": house.broker.url, "HOMEGATE_HTTP_LISTEN": "127.0.0.1:0", "HOMEGATE_MAPPINGS": house.mappings.path,
                "HOMEGATE_DATABASE": database,
            ])
        #expect(refused.status == 78, "\(refused.output)")
        #expect(
            refused.output.contains("cannot open the database \(database)") && refused.output.contains("Read-only file system"),
            "\(refused.output)")

        try disk.readOnly(false)
        let mark = house.recorder.mark
        try house.startGateway(["HOMEGATE_DATABASE": database])
        try await house.settled(after: mark)
        try await house.ok("room/add", ["name": "After"])
        let rooms = Set(try await house.ok("room/list")["rooms"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
        #expect(rooms.isSuperset(of: ["Before", "After"]), "\(rooms)")
    }
}

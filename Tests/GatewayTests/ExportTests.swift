import Foundation
import GRDB
import GatewayCore
import MosquittoTesting
import Persistence
import Testing

@Suite("homegate export says when it is not the whole home")
struct ExportTests {
    @Test("a stored trigger that cannot be read is named, the rest is written, and the exit status is 1")
    func leftOutFails() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("homegate.sqlite").path
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("home.yaml")
        try """
        homes:
        - id: home
          name: Home
          default_room: default_room
          rooms:
          - {id: default_room, name: Default Room}
        action_sets:
        - {id: lamp_off, name: Lamp Off, home: home, actions: [{characteristic: bulb/lightbulb/on, value: false}]}
        triggers:
        - {id: night, name: Night, home: home, enabled: true, action_sets: [lamp_off], timer: {recurrence: {at: "22:30"}}}
        - {id: morning, name: Morning, home: home, enabled: true, action_sets: [lamp_off], timer: {recurrence: {at: "07:30"}}}
        """.write(to: file, atomically: true, encoding: .utf8)
        #expect(try await homegate(["import", file.path, "--database", path]).status == 0)
        let queue = try DatabaseQueue(path: path)
        try await queue.write {
            try $0.execute(sql: "UPDATE triggers SET definition = '{\"timer\":{\"recurrence\":{\"at\":\"99:99\"}}}' WHERE id = 'night'")
        }
        try queue.close()
        let export = try await homegate(["export", "--database", path, "--output", folder.appendingPathComponent("out.yaml").path])
        #expect(export.status == 1)
        #expect(export.output.contains("homegate: left out: trigger night: its definition cannot be read"), "\(export.output)")
        #expect(export.output.contains("the export is not the whole home: 1 stored item could not be read and was left out"))
    }

    @Test("the export reads back the same with a YAML 1.1 reader (PyYAML's safe_load): =, yes, on, 1:30 are quoted")
    func yaml11Readers() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("homegate.sqlite").path
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("home.yaml")
        try """
        homes:
        - id: home
          name: Home
          default_room: default_room
          rooms:
          - {id: default_room, name: Default Room}
          - {id: yes_room, name: "yes"}
          - {id: clock, name: "1:30"}
          - {id: on_room, name: "On"}
        action_sets:
        - {id: lamp_off, name: Lamp Off, home: home, actions: [{characteristic: bulb/lightbulb/on, value: false}]}
        triggers:
        - id: dark
          name: Dark
          home: home
          enabled: true
          action_sets: [lamp_off]
          events: [{characteristic: bulb/lightbulb/on, value: true}]
          conditions: {characteristic: bulb/lightbulb/brightness, op: "=", value: 5}
        """.write(to: file, atomically: true, encoding: .utf8)
        #expect(try await homegate(["import", file.path, "--database", path]).status == 0)
        let out = folder.appendingPathComponent("out.yaml").path
        #expect(try await homegate(["export", "--database", path, "--output", out]).status == 0)
        let script = folder.appendingPathComponent("read.py").path
        try """
        import json, sys, yaml
        home = yaml.safe_load(open(sys.argv[1]))
        print(json.dumps({"op": home["triggers"][0]["conditions"]["op"], "rooms": [r["name"] for r in home["homes"][0]["rooms"]]}))
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("read.out").path
        let pid = try spawn(["/usr/bin/python3", script, out], output: output)
        while waitpid(pid, nil, WNOHANG) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        let read = try String(contentsOfFile: output, encoding: .utf8)
        guard !read.contains("No module named 'yaml'") else { return }  // PyYAML is not installed here
        #expect(read.contains(#""op": "=""#) && read.contains(#""yes""#) && read.contains(#""1:30""#) && read.contains(#""On""#), "\(read)")
    }
}

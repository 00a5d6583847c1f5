import ArgumentParser
import CMosquitto
import Foundation
import Mosquitto
import MosquittoTesting

/// A large house's memory and a rename's hold-up, next to a bare libmosquitto client that receives
/// the same device list and does nothing with it (`hold-list`): what libmosquitto and the runtime
/// take for it on their own, which no gateway can go under.
struct InventoryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inventory",
        abstract: "Many devices: start-up to every accessory placed, RSS at rest and at the peak, a rename's hold-up of readings; "
            + "next to a bare client that only receives the list.")

    @Option var devices = 10_000
    @Option(help: "Readings per second timed during the rename runs.") var rate = 50
    @Option(help: "Seconds per rename run (one rename, then back, in each).") var seconds = 8.0
    @Option(help: "Rename runs.") var renames = 3
    @Option(help: "homegate's mqtt.lists_connection: the device lists on a second connection (true, as measured in docs/performance.md) or not.")
    var listsConnection = true
    @Flag(help: "The reference receives the list on a connection of its own, as homegate does with --lists-connection true.")
    var splitReference = false
    @Option(help: "Then homegate again on its database, the list still retained: RSS and peak this many seconds after (0: no).")
    var restartSeconds = 0.0

    func run() async throws {
        say("machine load average at start: \(loadAverage()); gateway: \(House.gatewayExecutable)")
        let broker = try TestBroker(
            .init(extraConfiguration: ["max_queued_messages 0", "max_queued_bytes 0", "set_tcp_nodelay true"], verboseLog: false))
        defer { withExtendedLifetime(broker) {} }
        let house = try await House(broker: broker, devices: devices)
        say("house: \(devices) devices, bridge/devices \(format(Double(house.inventoryBytes) / 1_048_576, 1)) MiB, retained")

        let reference = try await holdList(house)
        defer { kill(reference.pid, SIGTERM); var status: Int32 = 0; waitpid(reference.pid, &status, 0) }
        say(
            "reference (bare libmosquitto client, receives the list\(splitReference ? " on a connection of its own" : ""), keeps nothing): RSS \(mb(reference.rest)) MB, peak \(mb(reference.peak)) MB"
        )

        let startup = try await house.startGateway(environment: ["HOMEGATE_MQTT_LISTS_CONNECTION": "\(listsConnection)"])
        try await Task.sleep(for: .seconds(3))
        let rest = ProcessStats(pid: house.gateway)
        say(
            "tree: \(format(Double(house.treeBytes) / 1_048_576, 1)) MiB, \(house.treeBytes / max(1, house.accessoryCount)) bytes an accessory"
        )
        say(
            "gateway: \(house.accessoryCount) accessories placed \(format(startup * 1000, 0)) ms after start; "
                + "RSS \(mb(rest?.rssKiB)) MB 3 s later, peak \(mb(rest?.peakRSSKiB)) MB")

        // Readings timed through homegate and through the reference, which also receives every
        // list: with no rename, then with one device (not a timed sensor) renamed and back.
        var runs = 0
        func timed() async throws -> (homegate: Latencies, reference: Latencies) {
            runs += 1
            let first = 5000 + runs * 100
            async let reference = house.latency(rate: rate, seconds: seconds, gateway: false, heardOn: "bench-echo", first: first)
            let homegate = try await house.latency(rate: rate, seconds: seconds, gateway: true, first: first)
            return (homegate, try await reference)
        }
        let calm = try await timed()
        var renamed: [(homegate: Latencies, reference: Latencies)] = []
        let target = house.devices.first { !house.sensors.contains($0.name) }?.name ?? house.devices[0].name
        let renamedList = try house.renaming(target, to: target + "_renamed")
        for _ in 0..<renames {
            let publisher = try await House.client(broker, "bench-renamer")
            let renaming = Task {
                try await Task.sleep(for: .seconds(seconds / 4))
                try await publisher.publishAndWait(
                    "zigbee2mqtt/bridge/devices", renamedList, qos: .atLeastOnce, retain: true, timeout: .seconds(20))
                try await Task.sleep(for: .seconds(seconds / 4))
                try await publisher.publishAndWait(
                    "zigbee2mqtt/bridge/devices", house.inventory, qos: .atLeastOnce, retain: true, timeout: .seconds(20))
            }
            renamed.append(try await timed())
            try await renaming.value
            await publisher.shutdown()
        }
        let after = ProcessStats(pid: house.gateway)
        let referenceAfter = ProcessStats(pid: reference.pid)
        house.stop()
        var restarted: ProcessStats?
        if restartSeconds > 0 {
            // The known house placed from the database, then the same list from the broker. The
            // retained tree of the first run may answer the wait at once: the time is not a figure.
            _ = try await house.startGateway(environment: ["HOMEGATE_MQTT_LISTS_CONNECTION": "\(listsConnection)"])
            try await Task.sleep(for: .seconds(restartSeconds))
            restarted = ProcessStats(pid: house.gateway)
            house.stop()
        }

        func latencies(_ l: Latencies) -> String { "\(format(l.percentile(0.5), 2)) / \(format(l.max, 2)) (\(l.samples.count))" }
        say("")
        say("| figure | reference | homegate |")
        say("| --- | --- | --- |")
        say("| RSS at rest, MB | \(mb(reference.rest)) | \(mb(rest?.rssKiB)) |")
        say("| peak RSS at start, MB | \(mb(reference.peak)) | \(mb(rest?.peakRSSKiB)) |")
        say("| peak RSS after \(renames * 2) renames, MB | \(mb(referenceAfter?.peakRSSKiB)) | \(mb(after?.peakRSSKiB)) |")
        say("| RSS at the end, MB | \(mb(referenceAfter?.rssKiB)) | \(mb(after?.rssKiB)) |")
        say("| start to every accessory placed, ms | — | \(format(startup * 1000, 0)) |")
        if let restarted {
            say(
                "| restarted on the stored house: RSS \(format(restartSeconds, 0)) s later / peak, MB | — | "
                    + "\(mb(restarted.rssKiB)) / \(mb(restarted.peakRSSKiB)) |")
        }
        say(
            "| reading at \(rate)/s heard, no rename: p50 / max ms (readings) | \(latencies(calm.reference)) | \(latencies(calm.homegate)) |"
        )
        for (run, timing) in renamed.enumerated() {
            say("| the same, renamed and back (run \(run + 1)) | \(latencies(timing.reference)) | \(latencies(timing.homegate)) |")
        }
        let holdUp = renamed.map { $0.homegate.max - calm.homegate.percentile(0.5) }
        let referenceHoldUp = renamed.map { $0.reference.max - calm.reference.percentile(0.5) }
        say("")
        say(
            "rename hold-up (max minus the calm p50): homegate \(holdUp.map { format($0, 1) }.joined(separator: ", ")) ms (target < 10 ms); "
                + "reference \(referenceHoldUp.map { format($0, 1) }.joined(separator: ", ")) ms")
        say("machine load average at the end: \(loadAverage())")
    }

    /// Starts the reference and waits until it has the list; it runs until the benchmark ends.
    private func holdList(_ house: House) async throws -> (pid: pid_t, rest: Int?, peak: Int?) {
        let watcher = try await House.client(house.broker, "bench-held-watcher")
        try await watcher.subscribe("bench/held")
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).path
        let pid = try spawn(
            [executable, "hold-list", "--port", "\(house.broker.port)", "--from", "bench", "--to", "bench-echo"]
                + (splitReference ? ["--split"] : []),
            output: house.directory.appendingPathComponent("hold-list.log").path)
        for await _ in watcher.messages { break }
        await watcher.shutdown()
        try await Task.sleep(for: .seconds(1))
        let stats = ProcessStats(pid: pid)
        return (pid, stats?.rssKiB, stats?.peakRSSKiB)
    }
}

/// The reference for `inventory`: receives zigbee2mqtt/bridge/devices, counts its bytes in
/// libmosquitto's callback and says so on bench/held; republishes `<from>/<name>` on `<to>/<name>`.
struct HoldList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hold-list",
        abstract: "Receive zigbee2mqtt/bridge/devices and keep nothing; echo --from to --to (the reference of `inventory`).")

    @Option(help: "The broker's port on 127.0.0.1.") var port: Int32
    @Option var from: String
    @Option var to: String
    @Flag(help: "Receive the list on a second connection, the readings on the first.") var split = false

    func run() throws {
        let list = "zigbee2mqtt/bridge/devices"
        let (from, to) = (from, to)
        if split {
            let port = port
            let lists = Thread {
                try? BareClient(filters: [list]) { mosq, message in
                    let size = "\(message.pointee.payloadlen)"
                    mosquitto_publish_v5(mosq, nil, "bench/held", Int32(size.utf8.count), size, 0, false, nil)
                }.run(id: "bench-hold-list-lists", port: port)
            }
            lists.start()
        }
        try BareClient(filters: split ? [from + "/#"] : [list, from + "/#"]) { mosq, message in
            guard let topic = message.pointee.topic.map({ String(cString: $0) }) else { return }
            if topic == list {
                let size = "\(message.pointee.payloadlen)"
                mosquitto_publish_v5(mosq, nil, "bench/held", Int32(size.utf8.count), size, 0, false, nil)
            } else {
                let echoed = to + topic.dropFirst(from.count)
                mosquitto_publish_v5(mosq, nil, echoed, message.pointee.payloadlen, message.pointee.payload, 0, false, nil)
            }
        }.run(id: "bench-hold-list", port: port)
    }
}

private func mb(_ kib: Int?) -> String { kib.map { format(Double($0) / 1024, 1) } ?? "?" }

extension House {
    /// The device list with `name`'s friendly name changed to `new`, as Zigbee2MQTT publishes it after a rename.
    func renaming(_ name: String, to new: String) throws -> [UInt8] {
        let old = Array(#""friendly_name":"\#(name)""#.utf8)
        guard let at = inventory.firstRange(of: old) else {
            throw BenchError("no \(String(decoding: old, as: UTF8.self)) in the device list")
        }
        var bytes = inventory
        bytes.replaceSubrange(at, with: Array(#""friendly_name":"\#(new)""#.utf8))
        return bytes
    }
}

import ArgumentParser
import Automation
import Foundation
import Gateway
import JSON
import Mappings
import Mosquitto

#if canImport(Glibc)
import Glibc
#endif

struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check what homegate needs, one line each with a hint: settings, broker, mappings, database, time zone, location.",
        discussion: """
            Uses the same configuration as `homegate run`. Reaches the broker with its settings (a client id of its own, nothing \
            published but a health request), looks for each Zigbee2MQTT bridge and for a running gateway, checks the mapping files and \
            the database folder, says which time zone and place automations will use, and with hap.enabled checks the HomeKit \
            bridge (its port, avahi-daemon, its advertisement, its pairings), and with matter.enabled the Matter bridge (its UDP \
            port, its advertisements, its stored state and fabrics). Exits 0 when nothing failed (warnings are \
            allowed), 1 when something did.
            """)

    @Option(name: .shortAndLong, help: "The configuration file (homegate.yaml); HOMEGATE_CONFIG names it too.")
    var config: String?

    @Option(help: "Seconds to wait for the broker and for answers on it.")
    var timeout: Double = 5

    func run() async throws {
        var report = DoctorReport()
        let environment = ProcessInfo.processInfo.environment
        let file = config ?? environment["HOMEGATE_CONFIG"]
        let settings: GatewayConfiguration
        do {
            settings = try GatewayConfiguration.load(path: file, environment: environment)
            report.pass(
                "settings", file.map { "\($0) and HOMEGATE_* variables: no problems" } ?? "defaults and HOMEGATE_* variables: no problems")
            for warning in settings.warnings { report.warn("settings", warning, hint: "remove the variable, or fix its name") }
        } catch {
            for problem in error.errors {
                report.fail(
                    "settings", problem.description, hint: "fix it in \(file ?? "the environment"); nothing else can be checked until then")
            }
            report.print()
            throw ExitCode(1)
        }
        let mappings = checkMappings(settings, &report)
        let running = await checkBroker(settings, bridges: mappings?.zigbee2mqtt.map(\.baseTopic) ?? [], &report)
        checkDatabase(settings.database, &report)
        await checkHomeKit(settings, running: running, &report)
        await checkMatter(settings, running: running, &report)
        checkTime(settings, environment: environment, &report)
        report.print()
        if report.failed { throw ExitCode(1) }
    }

    private func checkMappings(_ settings: GatewayConfiguration, _ report: inout DoctorReport) -> MappingSet? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: settings.mappings, isDirectory: &isFolder), isFolder.boolValue else {
            report.fail(
                "mappings", "no folder at \(settings.mappings)",
                hint: "create it, or point mappings (HOMEGATE_MAPPINGS) at your mapping files")
            return nil
        }
        let (set, diagnostics) = MappingSet.load(directory: settings.mappings)
        guard diagnostics.isEmpty else {
            let files = Set(diagnostics.map(\.file)).sorted()
            report.fail(
                "mappings",
                "\(diagnostics.count) problem\(diagnostics.count == 1 ? "" : "s") in \(files.joined(separator: ", ")); first: \(diagnostics[0])",
                hint:
                    "run homegate validate \(settings.mappings) for every problem; a broken file is left out (or keeps its last good version)"
            )
            return set
        }
        if set.files.isEmpty {
            report.warn(
                "mappings", "\(settings.mappings) has no mapping files", hint: "copy mappings/zigbee2mqtt.yaml from the repository there")
        } else {
            report.pass("mappings", mappingSummary(set, directory: settings.mappings))
        }
        return set
    }

    /// Connects as homegate would, then listens for a running gateway's health answer and for each
    /// bridge's retained state and device list. Returns the running gateway's health report.
    private func checkBroker(_ settings: GatewayConfiguration, bridges: [String], _ report: inout DoctorReport) async -> JSONValue? {
        let address = (try? BrokerAddress(url: settings.mqtt.url)).map(\.description) ?? settings.mqtt.url
        let client: MQTTClient
        do {
            client = try MQTTClient(settings.probeConfiguration(role: "doctor"))
            try client.start()
        } catch {
            report.fail("broker", "\(address): \(error)", hint: Self.brokerHint(error, settings))
            return nil
        }
        let running = await probeBroker(client, address: address, settings, bridges: bridges, &report)
        await client.shutdown()
        return running
    }

    /// What the broker says to a client of homegate's settings, connected: login, and each bridge's answer.
    private func probeBroker(
        _ client: MQTTClient, address: String, _ settings: GatewayConfiguration, bridges: [String], _ report: inout DoctorReport
    ) async -> JSONValue? {
        do {
            try await client.waitUntilConnected(timeout: .milliseconds(Int64(timeout * 1000)))
        } catch {
            let why: String
            switch (error, client.state) {
            case (.timedOut, .disconnected(let reason)): why = "cannot connect: \(reason)"
            case (.timedOut, _): why = "no answer within \(timeout) s"
            default: why = "\(error)"
            }
            report.fail("broker", "\(address): \(why)", hint: Self.brokerHint(error, settings))
            return nil
        }
        let user = settings.mqtt.username.map { "as \($0)" } ?? "without a user name"
        report.pass(
            "broker",
            "connected to \(address) \(user) (MQTT \(settings.mqtt.protocolVersion.rawValue)\(settings.mqtt.url.hasPrefix("mqtts") ? ", TLS" : ""))"
        )

        let base = settings.baseTopic
        var watched = ["\(base)/response/health"]
        for bridge in bridges { watched += ["\(bridge)/bridge/state", "\(bridge)/bridge/devices"] }
        for filter in watched {
            do {
                try await client.subscribe(filter, qos: .atLeastOnce)
            } catch {
                report.fail("broker", "\(error)", hint: "the broker's ACL must let homegate's user read \(filter)")
                return nil
            }
        }
        let transaction = "doctor-\(UInt32.random(in: 0...UInt32.max))"
        try? client.publish("\(base)/request/health", #"{"transaction":"\#(transaction)"}"#, qos: .atLeastOnce)
        let heard = await Self.listen(client, for: Set(watched), transaction: transaction, seconds: min(timeout, 3))

        for bridge in bridges {
            let state = heard["\(bridge)/bridge/state"].flatMap {
                $0["state"]?.stringValue ?? String(decoding: $0.serializedBytes(), as: UTF8.self)
            }
            guard let devices = heard["\(bridge)/bridge/devices"]?.arrayValue else {
                report.warn(
                    "zigbee2mqtt", "nothing on \(bridge)/bridge/devices",
                    hint: "is Zigbee2MQTT running on this broker, with base_topic \(bridge)? "
                        + "Its base_topic and the one in your mapping file must be the same")
                continue
            }
            let joined = devices.filter { $0["type"]?.stringValue != "Coordinator" }.count
            if state == "online" {
                report.pass("zigbee2mqtt", "\(bridge): online, \(joined) device\(joined == 1 ? "" : "s")")
            } else {
                report.warn(
                    "zigbee2mqtt", "\(bridge): \(state ?? "no bridge/state"), \(joined) device\(joined == 1 ? "" : "s") known",
                    hint: "Zigbee2MQTT is not running or lost its adapter; check its log")
            }
        }
        if let answer = heard["\(base)/response/health"]?["data"] {
            if answer["ready"] == true {
                report.info("gateway", "a homegate is running on \(base) and is ready")
            } else {
                let problems = answer["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
                report.warn(
                    "gateway", "a homegate is running on \(base) and is not ready: \(problems.joined(separator: "; "))", hint: "see its log"
                )
            }
        } else {
            report.info("gateway", "no homegate answers on \(base)/request/health (fine before the first start)")
        }
        return heard["\(base)/response/health"]?["data"]
    }

    /// The first message on each topic, until all came or `seconds` passed: what came by then (a
    /// bridge that never answers must not hide the running gateway's answer).
    private static func listen(
        _ client: MQTTClient, for topics: Set<String>, transaction: String, seconds: Double
    ) async -> [String: JSONValue] {
        // The listener ends when all came or when cancelled (the messages end with the task), and
        // returns what it heard either way.
        await withTaskGroup(of: [String: JSONValue]?.self) { group in
            group.addTask {
                var heard: [String: JSONValue] = [:]
                for await message in client.messages where topics.contains(message.topic) && heard[message.topic] == nil {
                    let json = (try? JSONValue(parsing: message.payload)) ?? .string(String(decoding: message.payload, as: UTF8.self))
                    if message.topic.hasSuffix("/response/health"), json["transaction"] != .string(transaction) { continue }
                    heard[message.topic] = json
                    if heard.count == topics.count { break }
                }
                return heard
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                return nil
            }
            var collected = (await group.next() ?? nil) ?? [:]
            group.cancelAll()
            for await case let heard? in group { collected = heard }
            return collected
        }
    }

    static func brokerHint(_ error: MQTTError, _ settings: GatewayConfiguration) -> String {
        switch error {
        case .refused:
            return "check mqtt.username and mqtt.password (or mqtt.password_file); the broker's log says which it refused"
        case .tls:
            return "check mqtt.ca_file, mqtt.cert_file and mqtt.key_file exist and are readable"
        case .invalidURL:
            return "mqtt.url is mqtt://host:port or mqtts://host:port"
        default:
            let host = (try? BrokerAddress(url: settings.mqtt.url))?.host ?? ""
            if host == "mosquitto" {
                return
                    "is Mosquitto running? 'mosquitto' is its name inside compose; outside it, use mqtt://127.0.0.1:1883 (or MQTT_HOST_PORT)"
            }
            return "is the broker running and listening there? try: mosquitto_sub -h \(host) -t '$SYS/broker/uptime' -C 1"
        }
    }

    private func checkDatabase(_ path: String, _ report: inout DoctorReport) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path) {
            guard access(path, R_OK | W_OK) == 0 else {
                report.fail(
                    "database", "\(path) is not writable by this user (uid \(getuid()))", hint: "chown it to the user homegate runs as")
                return
            }
        } else if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue {
            guard access(folder, W_OK) == 0 else {
                report.fail(
                    "database", "cannot create \(path): \(folder) is not writable by this user (uid \(getuid()))",
                    hint: "chown the folder to the user homegate runs as")
                return
            }
        } else {
            let parent = url.deletingLastPathComponent().deletingLastPathComponent().path
            guard access(parent, W_OK) == 0 else {
                report.fail(
                    "database", "\(folder) does not exist and \(parent) is not writable",
                    hint: "create \(folder) for the user homegate runs as")
                return
            }
        }
        var stats = statvfs()
        let probe =
            FileManager.default.fileExists(atPath: folder) ? folder : url.deletingLastPathComponent().deletingLastPathComponent().path
        guard statvfs(probe, &stats) == 0 else {
            report.pass("database", "\(path) can be written")
            return
        }
        let free = Double(stats.f_bavail) * Double(stats.f_frsize)
        let freeText = free >= 1e9 ? String(format: "%.1f GB", free / 1e9) : String(format: "%.0f MB", free / 1e6)
        let exists = FileManager.default.fileExists(atPath: path) ? "can be written" : "will be created at the first start"
        if free < 10e6 {
            report.fail(
                "database", "\(path) \(exists), but only \(freeText) is free",
                hint: "free some space: on a full disk changes are answered with a storage error")
        } else if free < 100e6 {
            report.warn("database", "\(path) \(exists); \(freeText) free", hint: "little space is left")
        } else {
            report.pass("database", "\(path) \(exists); \(freeText) free")
        }
    }

    private func checkTime(_ settings: GatewayConfiguration, environment: [String: String], _ report: inout DoctorReport) {
        let zone = settings.clockContext.timeZone
        let origin =
            settings.location.timeZone != nil
            ? "location.time_zone"
            : (environment["TZ"].map { $0.isEmpty ? nil : $0 } ?? nil) != nil ? "TZ" : "the system's zone"
        let now = Date()
        let local = now.formatted(
            Date.VerbatimFormatStyle(
                format: "\(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits)",
                timeZone: zone, calendar: Calendar(identifier: .gregorian)))
        if zone.secondsFromGMT(for: now) == 0,
            zone.identifier.contains("UTC") || zone.identifier.contains("GMT") || zone.identifier == "Etc/Universal",
            settings.location.timeZone == nil
        {
            report.warn(
                "time zone", "\(zone.identifier) (\(origin)): timers and time conditions run in UTC, now \(local)",
                hint: "set location.time_zone (or TZ) to your house's zone, like Europe/Amsterdam")
        } else {
            report.pass("time zone", "\(zone.identifier) (from \(origin)): it is \(local) there now")
        }
        guard let latitude = settings.location.latitude, let longitude = settings.location.longitude else {
            report.warn(
                "location", "not set: sunrise and sunset triggers and conditions cannot be used",
                hint: "set location.latitude and location.longitude (HOMEGATE_LOCATION_LATITUDE, HOMEGATE_LOCATION_LONGITUDE)")
            return
        }
        let style = Date.VerbatimFormatStyle(
            format: "\(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits)",
            timeZone: zone, calendar: Calendar(identifier: .gregorian))
        let sunrise =
            Sun.next(.sunrise, after: now, latitude: latitude, longitude: longitude, timeZone: zone).map { $0.formatted(style) } ?? "none"
        let sunset =
            Sun.next(.sunset, after: now, latitude: latitude, longitude: longitude, timeZone: zone).map { $0.formatted(style) } ?? "none"
        report.pass("location", "\(latitude), \(longitude): next sunrise \(sunrise), next sunset \(sunset) (\(zone.identifier))")
    }
}

/// The lines `homegate doctor` prints: a verdict, what was checked, what was found, and a hint.
struct DoctorReport {
    enum Verdict: String { case pass, warn, fail, info }
    private var lines: [(Verdict, String, String, String?)] = []
    var failed: Bool { lines.contains { $0.0 == .fail } }

    mutating func pass(_ check: String, _ text: String) { lines.append((.pass, check, text, nil)) }
    mutating func info(_ check: String, _ text: String) { lines.append((.info, check, text, nil)) }
    mutating func warn(_ check: String, _ text: String, hint: String) { lines.append((.warn, check, text, hint)) }
    mutating func fail(_ check: String, _ text: String, hint: String) { lines.append((.fail, check, text, hint)) }

    func print() {
        for (verdict, check, text, hint) in lines {
            Swift.print("\(verdict.rawValue)  \(check.padding(toLength: 12, withPad: " ", startingAt: 0)) \(text)")
            if let hint { Swift.print("      \(String(repeating: " ", count: 12)) hint: \(hint)") }
        }
        let failures = lines.filter { $0.0 == .fail }.count
        let warnings = lines.filter { $0.0 == .warn }.count
        Swift.print(
            failures == 0
                ? "no problems\(warnings > 0 ? " (\(warnings) warning\(warnings == 1 ? "" : "s"))" : "")"
                : "\(failures) problem\(failures == 1 ? "" : "s")\(warnings > 0 ? ", \(warnings) warning\(warnings == 1 ? "" : "s")" : "")")
    }
}

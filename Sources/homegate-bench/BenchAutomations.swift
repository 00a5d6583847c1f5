import Automation
import Foundation
import GatewayCore
import HomeModel
import JSON
import Persistence

/// One measured path: a motion sensor whose triggers turn one light on and off.
struct ProbePair: Sendable {
    /// Friendly names (also topic-safe accessory ids).
    let motion: String
    let light: String
    let onTrigger: String
    let offTrigger: String
}

/// The home the automation benchmark stores before the gateway starts: thousands of triggers that
/// are looked at on every temperature reading but never fire, timers far in the future, and the
/// measured triggers that turn lights on and off with motion.
///
/// The probes rotate over `pairs`: the gateway stops a trigger that fires more than 30 times in
/// 10 s, or a characteristic that triggers write more than 30 times in 10 s (docs/automations.md,
/// "Loops are stopped"), so one pair probed 20 times a second would be stopped after 1.5 s.
struct BenchAutomations {
    let stored: StoredHome
    let pairs: [ProbePair]
    /// The first pair's devices, for the report.
    var motion: String { pairs[0].motion }
    var light: String { pairs[0].light }
    var measuredTriggers: [String] { pairs.flatMap { [$0.onTrigger, $0.offTrigger] } }
    /// Probes per second the pairs can take with each trigger and light under the loop limit, with a margin.
    var maxProbeRate: Double { Double(pairs.count) * 2.5 }
    let temperatureTriggers: Int
    let timerTriggers: Int

    static let motionPath = (service: "motion_sensor", characteristic: "motion_detected")

    /// Temperature triggers sit below 5 °C and above 95 °C: `House.reading` stays within 10.0–89.9,
    /// so the background load makes every one of them look without any of them firing.
    init(
        devices: [(name: String, model: String)], triggers total: Int, actionSets setCount: Int, timers: Int, pairs pairCount: Int = 16
    ) throws {
        let names = { (model: String) in devices.filter { $0.model == model }.map { Accessory.topicSafeID($0.name) } }
        let sensors = names("WSDCGQ11LM")
        let bulbs = names("LED1545G12")
        let plugs = names("ZNCZ02LM")
        let motions = names("RTCGQ11LM")
        guard motions.count >= pairCount, bulbs.count > pairCount, !sensors.isEmpty, !plugs.isEmpty else {
            throw BenchError(
                "the house needs \(pairCount) occupancy sensors and \(pairCount + 1) bulbs (it has \(motions.count) and "
                    + "\(bulbs.count)), a plug and a temperature sensor to build triggers on: give it more devices")
        }
        pairs = (0..<pairCount).map { i in
            ProbePair(motion: motions[i], light: bulbs[i], onTrigger: "bench_motion_on_\(i)", offTrigger: "bench_motion_off_\(i)")
        }
        let structure = HomeStructure.initial()
        let home = structure.primaryHome

        // Unmeasured scenes write bulbs and plugs other than the measured lights; none of them runs.
        let targets =
            bulbs.dropFirst(pairCount).map { CharacteristicPath(accessory: $0, service: "lightbulb", characteristic: "brightness") }
            + plugs.map { CharacteristicPath(accessory: $0, service: "outlet", characteristic: "on") }
        let unmeasured = setCount - 2 * pairCount
        guard unmeasured > 0 else { throw BenchError("\(setCount) action sets leave none beside the \(2 * pairCount) measured ones") }
        var sets: [ActionSet] = (0..<unmeasured).map { i in
            let target = targets[i % targets.count]
            let value: CharacteristicValue = target.service == "outlet" ? .bool(i % 2 == 0) : .int(i % 100)
            return ActionSet(id: "scene_\(i)", name: "Scene \(i)", home: home, actions: [Action(target, value)])
        }
        for (i, pair) in pairs.enumerated() {
            let on = CharacteristicPath(accessory: pair.light, service: "lightbulb", characteristic: "on")
            sets.append(ActionSet(id: "bench_light_on_\(i)", name: "Bench light \(i) on", home: home, actions: [Action(on, .bool(true))]))
            sets.append(
                ActionSet(id: "bench_light_off_\(i)", name: "Bench light \(i) off", home: home, actions: [Action(on, .bool(false))]))
        }

        var triggers: [Trigger] = []
        func add(_ id: String, _ sets: [String], _ fields: [String: JSONValue]) throws {
            let kind = try Trigger.kind(from: fields, defaultTimeZone: TimeZone(identifier: "UTC")!)
            triggers.append(Trigger(id: id, name: id, home: home, actionSets: sets, kind: kind))
        }
        for (i, pair) in pairs.enumerated() {
            let motionCharacteristic = "\(pair.motion)/\(Self.motionPath.service)/\(Self.motionPath.characteristic)"
            try add(
                pair.onTrigger, ["bench_light_on_\(i)"], ["events": [["characteristic": .string(motionCharacteristic), "value": true]]])
            try add(
                pair.offTrigger, ["bench_light_off_\(i)"], ["events": [["characteristic": .string(motionCharacteristic), "value": false]]])
        }
        for i in 0..<timers {
            let fireDate = JSONValue.string("2099-\(String(format: "%02d", i % 12 + 1))-01T08:\(String(format: "%02d", i % 60))")
            let timer: JSONValue =
                i % 2 == 0 ? ["fire_date": fireDate] : ["fire_date": fireDate, "recurrence": ["every": 1, "unit": "weeks"]]
            try add("timer_\(i)", ["scene_\(i % unmeasured)"], ["timer": timer])
        }
        temperatureTriggers = total - triggers.count
        timerTriggers = timers
        for i in 0..<temperatureTriggers {
            let sensor = sensors[i % sensors.count]
            let step = Double(i / sensors.count % 40) / 10
            let range: JSONValue = i % 2 == 0 ? ["min": -20, "max": .double(4.9 - step)] : ["min": .double(95 + step), "max": 120]
            try add(
                "cold_or_hot_\(i)", ["scene_\(i % unmeasured)"],
                ["events": [["characteristic": .string("\(sensor)/temperature_sensor/current_temperature"), "range": range]]])
        }
        // As a gateway that ran before leaves it: with each trigger's runtime, so start does not write 10,000 rows.
        let now = Date()
        stored = StoredHome(
            structure: structure, actionSets: sets, triggers: triggers,
            runtimes: Dictionary(uniqueKeysWithValues: triggers.map { ($0.id, TriggerRuntime(since: now)) }))
    }

    /// Writes the home to the file `homegate run` will open; the store is closed again on return.
    func write(to url: URL) throws {
        let store = try SQLiteHomeStore(path: url.path)
        try store.replaceAll(with: stored)
    }

    /// What the gateway does with the file at start, timed here in milliseconds: reading it back,
    /// then loading every trigger into an engine as `HomeCore` does.
    func timeLoad(from url: URL) throws -> (store: Double, engine: Double) {
        let clock = ContinuousClock()
        let began = clock.now
        let loaded = try SQLiteHomeStore(path: url.path, access: .reader).load()
        let read = clock.now
        var engine = TriggerEngine(clock: ClockContext(timeZone: TimeZone(identifier: "UTC")!, location: nil))
        let now = Date()
        for trigger in loaded?.triggers ?? [] { _ = engine.load(trigger, runtime: loaded?.runtimes[trigger.id], now: now) { _ in nil } }
        let done = clock.now
        func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
        return (ms(read - began), ms(done - read))
    }

    /// Trigger and action paths that the gateway's accessory tree does not have: should be none.
    func missingPaths(in tree: JSONValue) -> [String] {
        var present = Set<String>()
        for accessory in tree["accessories"]?.arrayValue ?? [] {
            let id = accessory["id"]?.stringValue ?? ""
            for service in accessory["services"]?.arrayValue ?? [] {
                let sid = service["id"]?.stringValue ?? ""
                for characteristic in service["characteristics"]?.arrayValue ?? [] {
                    present.insert("\(id)/\(sid)/\(characteristic["type"]?.stringValue ?? "")")
                }
            }
        }
        let wanted = Set(stored.triggers.flatMap { $0.events.compactMap { $0.path?.description } })
            .union(stored.actionSets.flatMap { $0.actions.map(\.path.description) })
        return wanted.subtracting(present).sorted()
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

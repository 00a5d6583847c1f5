import Automation
import Foundation
import HomeModel
import JSON
import Persistence

/// The home the automation benchmark stores before the gateway starts: thousands of triggers that
/// are looked at on every temperature reading but never fire, timers far in the future, and the two
/// measured triggers that turn one light on and off with motion.
struct BenchAutomations {
    let stored: StoredHome
    /// Friendly names of the measured devices (also their topic-safe accessory ids).
    let motion: String
    let light: String
    let onTrigger: String
    let offTrigger: String
    let temperatureTriggers: Int
    let timerTriggers: Int

    static let motionPath = (service: "motion_sensor", characteristic: "motion_detected")

    /// Temperature triggers sit below 5 °C and above 95 °C: `House.reading` stays within 10.0–89.9,
    /// so the background load makes every one of them look without any of them firing.
    init(devices: [(name: String, model: String)], triggers total: Int, actionSets setCount: Int, timers: Int) throws {
        let names = { (model: String) in devices.filter { $0.model == model }.map { Accessory.topicSafeID($0.name) } }
        let sensors = names("WSDCGQ11LM"), bulbs = names("LED1545G12"), plugs = names("ZNCZ02LM")
        guard let motion = names("RTCGQ11LM").first, let light = bulbs.first, !sensors.isEmpty, !plugs.isEmpty else {
            throw BenchError("the house has no occupancy sensor, bulb, plug or temperature sensor to build triggers on")
        }
        self.motion = motion
        self.light = light
        let structure = HomeStructure.initial()
        let home = structure.primaryHome

        // Unmeasured scenes write bulbs and plugs other than the measured light; none of them runs.
        let targets = bulbs.dropFirst().map { CharacteristicPath(accessory: $0, service: "lightbulb", characteristic: "brightness") }
            + plugs.map { CharacteristicPath(accessory: $0, service: "outlet", characteristic: "on") }
        var sets: [ActionSet] = (0..<setCount - 2).map { i in
            let target = targets[i % targets.count]
            let value: CharacteristicValue = target.service == "outlet" ? .bool(i % 2 == 0) : .int(i % 100)
            return ActionSet(id: "scene_\(i)", name: "Scene \(i)", home: home, actions: [Action(target, value)])
        }
        let on = CharacteristicPath(accessory: light, service: "lightbulb", characteristic: "on")
        sets.append(ActionSet(id: "bench_light_on", name: "Bench light on", home: home, actions: [Action(on, .bool(true))]))
        sets.append(ActionSet(id: "bench_light_off", name: "Bench light off", home: home, actions: [Action(on, .bool(false))]))

        var triggers: [Trigger] = []
        func add(_ id: String, _ sets: [String], _ fields: [String: JSONValue]) throws {
            let kind = try Trigger.kind(from: fields, defaultTimeZone: TimeZone(identifier: "UTC")!)
            triggers.append(Trigger(id: id, name: id, home: home, actionSets: sets, kind: kind))
        }
        let motionCharacteristic = "\(motion)/\(Self.motionPath.service)/\(Self.motionPath.characteristic)"
        onTrigger = "bench_motion_on"
        offTrigger = "bench_motion_off"
        try add(onTrigger, ["bench_light_on"], ["events": [["characteristic": .string(motionCharacteristic), "value": true]]])
        try add(offTrigger, ["bench_light_off"], ["events": [["characteristic": .string(motionCharacteristic), "value": false]]])
        for i in 0..<timers {
            let fireDate = JSONValue.string("2099-\(String(format: "%02d", i % 12 + 1))-01T08:\(String(format: "%02d", i % 60))")
            let timer: JSONValue = i % 2 == 0 ? ["fire_date": fireDate] : ["fire_date": fireDate, "recurrence": ["every": 1, "unit": "weeks"]]
            try add("timer_\(i)", ["scene_\(i % (setCount - 2))"], ["timer": timer])
        }
        temperatureTriggers = total - triggers.count
        timerTriggers = timers
        for i in 0..<temperatureTriggers {
            let sensor = sensors[i % sensors.count]
            let step = Double(i / sensors.count % 40) / 10
            let range: JSONValue = i % 2 == 0 ? ["min": -20, "max": .double(4.9 - step)] : ["min": .double(95 + step), "max": 120]
            try add("cold_or_hot_\(i)", ["scene_\(i % (setCount - 2))"],
                    ["events": [["characteristic": .string("\(sensor)/temperature_sensor/current_temperature"), "range": range]]])
        }
        // As a gateway that ran before leaves it: with each trigger's runtime, so start does not write 10,000 rows.
        let now = Date()
        stored = StoredHome(structure: structure, actionSets: sets, triggers: triggers,
                            runtimes: Dictionary(uniqueKeysWithValues: triggers.map { ($0.id, TriggerRuntime(since: now)) }))
    }

    /// Writes the home to the file `homegate run` will open; the store is closed again on return.
    func write(to url: URL) throws {
        let store = try SQLiteHomeStore(path: url.path)
        try store.replaceAll(with: stored)
    }

    /// What the gateway does with the file at start, timed here in milliseconds: reading it back,
    /// then loading every trigger into an engine as `GatewayCore` does.
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

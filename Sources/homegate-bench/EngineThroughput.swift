import Automation
import Foundation
import HomeModel
import JSON

/// The trigger engine alone, in this process: how many characteristic changes (and trigger
/// events looked at) it gets through per second, with nothing firing.
struct EngineThroughput {
    var changes: Int
    var evaluations: Int
    var fired: Int
    var seconds: Double

    var changesPerSecond: Double { Double(changes) / seconds }
    var evaluationsPerSecond: Double { Double(evaluations) / seconds }

    /// `triggers` threshold triggers spread evenly over `characteristics` temperatures; every change
    /// is a new value outside every range, as in the gateway run.
    static func measure(triggers count: Int, characteristics: Int, changes: Int) throws -> EngineThroughput {
        let paths = (0..<characteristics).map {
            CharacteristicPath(accessory: "sensor_\($0)", service: "temperature_sensor", characteristic: "current_temperature")
        }
        let start = Date()
        var engine = TriggerEngine(clock: ClockContext(timeZone: TimeZone(identifier: "UTC")!, location: nil))
        for i in 0..<count {
            let range: JSONValue = i % 2 == 0 ? ["max": .double(4.9 - Double(i % 40) / 10)] : ["min": .double(95 + Double(i % 40) / 10)]
            let kind = try Trigger.kind(
                from: ["events": [["characteristic": .string(paths[i % characteristics].description), "range": range]]],
                defaultTimeZone: engine.clock.timeZone)
            engine.put(Trigger(id: "t\(i)", name: "t\(i)", home: "home", actionSets: ["scene"], kind: kind), now: start)
        }
        var values = [CharacteristicValue?](repeating: nil, count: characteristics)
        let lookup: (CharacteristicPath) -> CharacteristicValue? = { _ in nil }
        var fired = 0
        let before = engine.evaluations
        let clock = ContinuousClock()
        let began = clock.now
        for n in 0..<changes {
            let c = n % characteristics
            let value = CharacteristicValue.float(Double(100 + (n / characteristics + c) % 800) / 10)
            fired += engine.changed(paths[c], to: value, from: values[c], now: start, value: lookup).count
            values[c] = value
        }
        let elapsed = clock.now - began
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return EngineThroughput(changes: changes, evaluations: engine.evaluations - before, fired: fired, seconds: seconds)
    }
}

import HomeModel
import Matter

/// A Smoke CO Alarm's events (the Smoke CO Alarm cluster, 0x005C, of Matter 1.3): each time the
/// house's detector changes, the event the change stands for, once. SmokeAlarm or COAlarm
/// {0: AlarmSeverityLevel} when the alarm starts sounding (Critical: HomeKit's detected has no
/// Warning), LowBattery {0: AlarmSeverityLevel} when the battery turns low (Warning, as BatteryAlert
/// has it), HardwareFault {} when a fault appears, AllClear {} when ExpressedState is Normal again.
/// A value reported again unchanged is no event: the values before the change decide.
extension BridgedDevice {
    enum AlarmEvent {
        static let smokeAlarm: UInt32 = 0x00
        static let coAlarm: UInt32 = 0x01
        static let lowBattery: UInt32 = 0x02
        static let hardwareFault: UInt32 = 0x03
        static let allClear: UInt32 = 0x0A
    }

    /// The Smoke CO Alarm events a change of `characteristic` to `value` stands for, in order:
    /// (event, fields). `before` is the service's characteristics before the change (copied, with
    /// the change, for an alarm only: every other device's change costs nothing here).
    func alarmEvents(
        _ characteristic: String, _ value: CharacteristicValue, before: [String: Characteristic]
    ) -> [(UInt32, [TLVElement])] {
        guard case .sensor(let sensor) = self, case .alarm(let alarm) = sensor else { return [] }
        var after = before
        after[characteristic]?.value = value
        func on(_ characteristics: [String: Characteristic], _ name: String) -> Bool {
            characteristics[name]?.value?.number.map { $0 != 0 } ?? false
        }
        func started(_ name: String) -> Bool { characteristic == name && !on(before, name) && on(after, name) }
        var events: [(UInt32, [TLVElement])] = []
        let severity = { (level: UInt64) in [TLVElement(.context(0), .unsigned(level))] }
        if started(alarm == .smoke ? "smoke_detected" : "carbon_monoxide_detected") {
            events.append((alarm == .smoke ? AlarmEvent.smokeAlarm : AlarmEvent.coAlarm, severity(2)))  // Critical
        }
        if started("status_low_battery") { events.append((AlarmEvent.lowBattery, severity(1))) }  // Warning
        if started("status_fault") { events.append((AlarmEvent.hardwareFault, [])) }
        if sensor.expressedState(before) != .unsigned(0), sensor.expressedState(after) == .unsigned(0) {
            events.append((AlarmEvent.allClear, []))
        }
        return events
    }

    /// The priority an event of the bridge's is kept and reported with: a Smoke CO Alarm's
    /// SmokeAlarm and COAlarm are Critical, as the specification has them; the rest Info.
    static func eventPriority(cluster: UInt32, event: UInt32) -> EventRecord.Priority {
        cluster == Cluster.smokeCOAlarm && (event == AlarmEvent.smokeAlarm || event == AlarmEvent.coAlarm) ? .critical : .info
    }
}

import HomeModel
import Matter

extension BridgedEndpoint {
    /// An attribute a change sets, and an event it stands for.
    typealias AttributeChange = (cluster: UInt32, attribute: UInt32, value: TLVValue)
    typealias EventChange = (cluster: UInt32, event: UInt32, fields: [TLVElement])

    /// What a change of one characteristic comes to on this endpoint, the one place that says so
    /// (the bridge's `take`, and `validate --coverage` through `BridgedCharacteristics`):
    /// - the attributes it sets: the device's own for the characteristic, and those several
    ///   characteristics make together (a colour light's ColorMode and XY, a Smoke CO Alarm's
    ///   ExpressedState, a fan's mode and percentages);
    /// - the events it stands for: a button's presses, a lock's operation, an alarm's events.
    ///
    /// `self.characteristics` already holds the new value; `before` is what they were, `previous`
    /// the characteristic's own value before.
    func changes(
        _ characteristic: String, _ value: CharacteristicValue, before: [String: Characteristic], previous: CharacteristicValue?
    ) -> (attributes: [AttributeChange], events: [EventChange]) {
        var attributes = self.attributes(characteristic, value).map { (cluster: $0.0, attribute: $0.1, value: $0.2) }
        attributes += (device.combined(characteristics) + derived(characteristic)).map { (cluster: $0.0, attribute: $0.1, value: $0.2) }
        var events = device.events(characteristic, value).map { (cluster: Cluster.switch, event: $0.0, fields: $0.1) }
        events += device.lockEvents(characteristic, value, previous: previous)
        events += device.alarmEvents(characteristic, value, before: before).map {
            (cluster: Cluster.smokeCOAlarm, event: $0.0, fields: $0.1)
        }
        return (attributes, events)
    }

    /// The endpoint after `characteristic` took `value`, and what that comes to (`changes`).
    func taking(
        _ characteristic: String, _ value: CharacteristicValue, previous: CharacteristicValue?
    ) -> (endpoint: BridgedEndpoint, attributes: [AttributeChange], events: [EventChange]) {
        var after = self
        after.characteristics[characteristic]?.value = value
        let (attributes, events) = after.changes(characteristic, value, before: characteristics, previous: previous)
        return (after, attributes, events)
    }
}

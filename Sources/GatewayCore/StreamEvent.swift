public import Foundation
import Automation
import HomeModel
import JSON

/// An event as the live streams carry it: the typed event and when it happened, with what a client
/// filters on, and its JSON (the documented event payload, the same as on MQTT), written once for
/// every client.
public struct StreamEvent: Sendable {
    public var event: HomeEvent
    public var time: Date
    /// `characteristic` for a value change, else the event's `type` (accessory, home, room, zone,
    /// action_set, trigger, mapping_file).
    public var type: String
    /// The accessory of a value change or of an accessory event; the service and characteristic of a value change.
    public var accessory: String?
    public var service: String?
    public var characteristic: String?
    /// The event's JSON.
    public var payload: [UInt8]

    /// The event with its JSON written here; `formatted` is `time` as the payload gives it.
    public init(_ event: HomeEvent, time: Date, formatted: String) {
        self.init(event, time: time, payload: HomeJSON.eventPayload(event, time: formatted))
    }

    /// The event with the JSON already written for it (by the MQTT renderer, say): the same bytes go everywhere.
    public init(_ event: HomeEvent, time: Date, payload: [UInt8]) {
        self.event = event
        self.time = time
        self.payload = payload
        switch event {
        case .characteristic(let change):
            (type, accessory, service, characteristic) = ("characteristic", change.accessory, change.service, change.characteristic)
        case .accessory(let id, _, _): (type, accessory) = ("accessory", id)
        case .home: type = "home"
        case .room: type = "room"
        case .zone: type = "zone"
        case .actionSet: type = "action_set"
        case .trigger: type = "trigger"
        case .mappingFile: type = "mapping_file"
        }
    }
}

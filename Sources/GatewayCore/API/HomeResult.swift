public import Automation
public import Foundation
public import HomeModel
public import JSON

/// What a command returns, as values: each front end renders it its own way.
public enum HomeResult: Sendable {
    /// With when each device last reported, where it has since the gateway started.
    case accessories([Accessory], lastSeen: [String: Date])
    /// One per requested write, in order.
    case writes([Result<CharacteristicValue, HomeError>])
    case read(CharacteristicRead)
    case homes(primary: String, [HomeSummary])
    case home(HomeSummary)
    case rooms(home: String, [RoomSummary])
    case room(RoomSummary)
    case zones(home: String, [Zone])
    case zone(Zone)
    case placement(AccessoryPlacement)
    /// A service's name after `accessory/rename_service` (nil: it has none).
    case serviceName(accessory: String, service: String, name: String?)
    case actionSets(home: String, total: Int, [ActionSet])
    case actionSet(ActionSet)
    case execution(ActionSetRun)
    case triggers(home: String, total: Int, [TriggerStatus])
    case trigger(TriggerStatus)
    /// The id of what was removed.
    case removed(String)
    /// The accessory asked to show itself, and what its device was sent (`identify`, or `effect: blink`).
    case identified(accessory: String, payload: JSONValue)
}

/// A characteristic's value as read: `fresh` when the device reported it for this read.
public struct CharacteristicRead: Sendable {
    public var path: CharacteristicPath
    public var value: CharacteristicValue?
    public var fresh: Bool
}

/// A home with its rooms (and the accessories in each) and zones.
public struct HomeSummary: Sendable {
    public var home: Home
    public var primary: Bool
    public var rooms: [RoomSummary]
    public var zones: [Zone]
}

public struct RoomSummary: Sendable {
    public var room: Room
    /// Accessory ids, in the order they were added.
    public var accessories: [String]
}

/// Where an accessory is and what it is called there.
public struct AccessoryPlacement: Sendable {
    public var id: String
    public var name: String
    public var home: String?
    public var room: String?
}

/// A trigger with what the engine knows of it now.
public struct TriggerStatus: Sendable {
    public var trigger: Trigger
    public var lastFired: Date?
    public var nextFire: Date?
    /// "Held for" deadlines running, by event index.
    public var held: [Int: Date]
}

/// One run of an action set: a result per action (and per Zigbee2MQTT scene recall).
public struct ActionSetRun: Sendable {
    public enum Target: Sendable {
        case characteristic(CharacteristicPath)
        case scene(SceneRecall)
    }

    public struct Step: Sendable {
        public var target: Target
        public var outcome: Result<CharacteristicValue?, HomeError>
    }

    public var actionSet: String
    public var steps: [Step]
    public var failures: Int { steps.count { if case .failure = $0.outcome { true } else { false } } }
}

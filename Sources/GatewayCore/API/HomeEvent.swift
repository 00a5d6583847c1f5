public import Automation
import Foundation
public import HomeModel

/// Everything that happens to the home, as values: the MQTT API publishes each on its event topic,
/// other front ends stream them. Each comes with the time of the batch that made it. All but the
/// value changes are boxed: a batch of 50,000 readings holds 50,000 of these, each as large as the largest case.
public enum HomeEvent: Sendable {
    /// A characteristic took a new value (a stateless switch's press every time).
    case characteristic(CharacteristicChange)
    /// An accessory was added, removed, renamed, moved to another room, or became (un)reachable.
    /// `now` is nil when it is gone.
    indirect case accessory(String, AccessoryChange, now: AccessoryPlacementState?)
    /// A home added, renamed, made primary or removed (`now` nil when removed).
    indirect case home(String, StructureChange.What, now: Home?, primary: Bool)
    indirect case room(String, StructureChange.What, now: Room?)
    /// A zone added, renamed, its rooms changed, or removed.
    indirect case zone(String, StructureChange.What, now: Zone?)
    indirect case actionSet(String, ActionSetEvent)
    indirect case trigger(String, TriggerEvent)
    /// A mapping file broke (its last good version stays in force, or it stays out) or loads again.
    indirect case mappingFile(MappingFileEvent)
}

/// A mapping file that broke or loads again; `name` is its file name, the event's id.
public struct MappingFileEvent: Sendable {
    public enum Change: String, Sendable { case broken, fixed }
    public var name: String
    public var path: String
    public var change: Change
    /// For `broken`: each problem with its place (`file:line:col: …`), and whether the last good version stays in force.
    public var errors: [String]
    public var keptPrevious: Bool

    public init(name: String, path: String, change: Change, errors: [String] = [], keptPrevious: Bool = false) {
        self.name = name
        self.path = path
        self.change = change
        self.errors = errors
        self.keptPrevious = keptPrevious
    }
}

public enum AccessoryChange: String, Sendable {
    /// Seen for the first time, or back after it was removed.
    case added
    /// Left its bridge or mapping.
    case removed
    case renamed
    /// Moved to another room.
    case room
    case reachability
    /// One of its services was named (a tile renamed in the Home app, `accessory/rename_service`).
    case serviceRenamed = "service_renamed"
}

/// An accessory's name, place and reachability as an event tells them.
public struct AccessoryPlacementState: Sendable {
    public var name: String
    public var home: String?
    public var room: String?
    public var reachable: Bool
    /// Why it is not reachable; nil while it is.
    public var unreachableReason: String? = nil
    /// For `serviceRenamed`: the service's id and the name it has now (nil: none).
    public var service: (id: String, name: String?)?
}

public struct ActionSetEvent: Sendable {
    public enum Change: String, Sendable { case added, updated, removed, executed }
    public var change: Change
    public var name: String
    public var home: String
    /// For `executed`: who ran it and a result per action.
    public var run: (source: ChangeSource, steps: ActionSetRun)?
}

public struct TriggerEvent: Sendable {
    public enum Change: String, Sendable { case added, updated, enabled, disabled, removed, fired }
    public var change: Change
    public var name: String
    public var home: String
    /// For `fired`: why, what each action set did, and whether an execute-once trigger turned itself off.
    public var fired: (firing: Firing, runs: [ActionSetRun])?
    /// For `disabled` by the loop guard: why, and every trigger stopped with it.
    public var loop: (detail: String, triggers: [String])?
}

public import Automation
public import HomeModel
public import JSON

/// What a front end (the MQTT API today; HTTP and HomeKit later) asks of the home, by domain:
/// each domain's handler in the core switches over its own enum, so the compiler checks that
/// every command is handled. Names are resolved by the core: an accessory, room, zone, action set
/// or trigger may be given by id or by name, a home by id or name (nil: the primary home).
public indirect enum HomeCommand: Sendable {
    /// The accessories' tree and their values: read, write, ask a device.
    case values(ValueCommand)
    /// Homes, rooms and zones.
    case structure(StructureCommand)
    /// Where an accessory is and what it is called.
    case accessories(AccessoryCommand)
    case actionSets(ActionSetCommand)
    case triggers(TriggerCommand)

    /// Whether it changes what is stored: its reply is given only once that is committed.
    public var changesHome: Bool {
        switch self {
        case .values(let command): command.changesHome
        case .structure(let command): command.changesHome
        case .accessories(let command): command.changesHome
        case .actionSets(let command): command.changesHome
        case .triggers(let command): command.changesHome
        }
    }
}

/// One requested write: what, and the value as it came in (checked against the characteristic by the core).
public struct WriteRequest: Sendable, Hashable {
    public var accessory: String
    public var service: String
    public var characteristic: String
    public var value: JSONValue
    /// Seconds a light takes to get there (Zigbee2MQTT's `transition`); nil: the light's own
    /// default. Devices other than Zigbee2MQTT lights that dim have none and are written at once.
    public var transition: Double?

    /// The transitions a light's `/set` can carry, in seconds: Zigbee's transition time is 16 bits of tenths.
    public static let transitions: ClosedRange<Double> = 0...6553.5

    public init(accessory: String, service: String, characteristic: String, value: JSONValue, transition: Double? = nil) {
        self.accessory = accessory
        self.service = service
        self.characteristic = characteristic
        self.value = value
        self.transition = transition
    }
}

/// A window onto a long list: a UI pages through a large home instead of holding up device messages.
public struct Page: Sendable, Hashable {
    public var offset: Int
    public var limit: Int?

    public init(offset: Int = 0, limit: Int? = nil) {
        self.offset = offset
        self.limit = limit
    }

    public static let all = Page()

    func apply<T>(_ items: [T]) -> ArraySlice<T> {
        let start = min(offset, items.count)
        return items[start..<(start + min(limit ?? items.count, items.count - start))]
    }
}

/// What `updateActionSet` changes; nil leaves a part as it is.
public struct ActionSetChanges: Sendable {
    public var name: String?
    /// Replaces every action.
    public var actions: [Action]?
    public var removeActions: [CharacteristicPath]?
    public var addActions: [Action]?

    public init(name: String? = nil, actions: [Action]? = nil, removeActions: [CharacteristicPath]? = nil, addActions: [Action]? = nil) {
        self.name = name
        self.actions = actions
        self.removeActions = removeActions
        self.addActions = addActions
    }
}

/// A new trigger as a front end describes it; `actionSets` are ids or names in its home.
public struct TriggerDraft: Sendable {
    public var name: String
    public var home: String?
    public var enabled: Bool
    public var actionSets: [String]
    public var kind: Trigger.Kind
    public var conditions: Condition?
    public var executeOnce: Bool

    public init(
        name: String, home: String? = nil, enabled: Bool = true, actionSets: [String] = [], kind: Trigger.Kind,
        conditions: Condition? = nil, executeOnce: Bool = false
    ) {
        self.name = name
        self.home = home
        self.enabled = enabled
        self.actionSets = actionSets
        self.kind = kind
        self.conditions = conditions
        self.executeOnce = executeOnce
    }
}

/// What `updateTrigger` changes; nil leaves a part as it is.
public struct TriggerChanges: Sendable {
    public var name: String?
    public var actionSets: [String]?
    public var kind: Trigger.Kind?
    /// `.some(nil)` removes the conditions.
    public var conditions: Condition??
    public var executeOnce: Bool?
    public var enabled: Bool?

    public init(
        name: String? = nil, actionSets: [String]? = nil, kind: Trigger.Kind? = nil, conditions: Condition?? = nil,
        executeOnce: Bool? = nil, enabled: Bool? = nil
    ) {
        self.name = name
        self.actionSets = actionSets
        self.kind = kind
        self.conditions = conditions
        self.executeOnce = executeOnce
        self.enabled = enabled
    }
}

/// Names the front end's request a reply belongs to. The core keeps it with a read until the
/// device answers; what it stands for (an MQTT transaction, an HTTP request) is the front end's.
public struct Ticket: Sendable, Hashable {
    public let value: UInt64
    public init(_ value: UInt64) { self.value = value }
}

/// The core's answer to a command: `result` when it worked, `error` when not (with `result`
/// holding what was done anyway: the writes that went out, the last known value).
public struct Reply: Sendable {
    public var ticket: Ticket
    public var result: HomeResult?
    public var error: HomeError?

    public init(ticket: Ticket, result: HomeResult? = nil, error: HomeError? = nil) {
        self.ticket = ticket
        self.result = result
        self.error = error
    }
}

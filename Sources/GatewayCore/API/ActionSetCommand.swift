public import Automation

/// Action sets: list, add, update, remove, run.
public enum ActionSetCommand: Sendable {
    case list(home: String?, page: Page)
    case add(name: String, home: String?, actions: [Action])
    case update(String, home: String?, ActionSetChanges)
    case remove(String, home: String?)
    case execute(String, home: String?)

    /// Whether it changes what is stored: its reply is given only once that is committed. Running
    /// one is not waited for: its writes go out at once, as a write's do.
    public var changesHome: Bool {
        switch self {
        case .list, .execute: false
        case .add, .update, .remove: true
        }
    }
}

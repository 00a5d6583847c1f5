/// Triggers: list, add, update, enable, remove.
public enum TriggerCommand: Sendable {
    case list(home: String?, page: Page)
    case add(TriggerDraft)
    case update(String, home: String?, TriggerChanges)
    case enable(String, home: String?, enabled: Bool)
    case remove(String, home: String?)

    /// Whether it changes what is stored: its reply is given only once that is committed.
    public var changesHome: Bool {
        switch self {
        case .list: false
        case .add, .update, .enable, .remove: true
        }
    }
}

/// What a controller may do with a characteristic.
public enum HAPPermission: String, Sendable, Hashable, CaseIterable {
    case pairedRead = "pr"
    case pairedWrite = "pw"
    case events = "ev"
    case additionalAuthorization = "aa"
    case timedWrite = "tw"
    case hidden = "hd"
    case writeResponse = "wr"
}

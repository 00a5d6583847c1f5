/// HAP status codes for characteristic reads and writes.
public enum HAPStatus: Int, Sendable, Hashable, Error, CaseIterable {
    case success = 0
    case insufficientPrivileges = -70401
    /// Shown by Apple Home as "No Response".
    case serviceCommunicationFailure = -70402
    case resourceBusy = -70403
    case readOnly = -70404
    case writeOnly = -70405
    case notificationNotSupported = -70406
    case outOfResources = -70407
    case timedOut = -70408
    case resourceDoesNotExist = -70409
    case invalidValue = -70410
    case insufficientAuthorization = -70411
    case notAllowedInCurrentState = -70412
}

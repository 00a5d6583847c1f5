import Automation
import HomeModel

/// Why a command was refused, with a kind a front end maps to its own codes (HTTP 400, 404, 409,
/// 503), the message a person reads, and the offending field where there is one (`events[0].for`).
public struct HomeError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The request itself is wrong: a bad value, a missing or unknown field.
        case invalid
        /// It names an accessory, home, room, zone, action set or trigger that does not exist.
        case notFound = "not_found"
        /// It clashes with the home as it is: a name taken, the last home, the primary home.
        case conflict
        /// The device cannot be reached now, or did not answer.
        case unreachable
        /// The gateway cannot take it now.
        case busy
    }

    public var kind: Kind
    public var message: String
    public var field: String?

    public init(_ kind: Kind, _ message: String, field: String? = nil) {
        self.kind = kind
        self.message = message
        self.field = field
    }

    public var description: String { message }

    static func invalid(_ message: String, field: String? = nil) -> HomeError { HomeError(.invalid, message, field: field) }
    static func notFound(_ message: String) -> HomeError { HomeError(.notFound, message) }
    static func conflict(_ message: String) -> HomeError { HomeError(.conflict, message) }
    static func unreachable(_ message: String) -> HomeError { HomeError(.unreachable, message) }

    /// The home model's and the automation rules' errors, each with its kind.
    init(_ error: any Error) {
        switch error {
        case let error as HomeError: self = error
        case let error as StructureError:
            switch error {
            case .badName: self = .invalid(error.description)
            case .notFound: self = .notFound(error.description)
            case .duplicateName, .lastHome, .primaryHome, .defaultRoom, .otherHome, .zoneMembership: self = .conflict(error.description)
            }
        case let error as HomeModelError:
            switch error {
            case .unknownAccessory, .unknownService, .unknownCharacteristic: self = .notFound(error.description)
            case .invalidValue, .readOnly, .notWritableHere, .otherHome: self = .invalid(error.description)
            }
        case let error as AutomationError: self = .invalid(error.description, field: error.field)
        default: self = .invalid("\(error)")
        }
    }
}

import GatewayCore
import HAP

/// The core's refusals as HAP status codes.
enum StatusMapping {
    static func status(for error: HomeError) -> HAPStatus {
        switch error.kind {
        case .invalid: .invalidValue
        case .notFound: .resourceDoesNotExist
        case .unreachable: .serviceCommunicationFailure
        case .busy: .resourceBusy
        case .conflict: .notAllowedInCurrentState
        }
    }
}

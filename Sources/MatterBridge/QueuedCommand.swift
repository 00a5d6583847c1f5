import GatewayCore

/// A house command from the node for `MatterBridge.perform`, with what of Matter's asked for it,
/// which the log says when the house refuses it.
struct QueuedCommand: Sendable {
    enum Origin: String, Sendable {
        case invoke, attributeWrite = "attribute write", rampStep = "ramp step"
    }

    var command: HomeCommand
    var origin: Origin
    /// The Move a ramp step is of: its refusals are logged once per Move (it writes every 250 ms).
    var move: UInt64? = nil

    /// What to log of `answer` when the house refused the command, in whole or in part: a line per
    /// write refused, naming its accessory and characteristic.
    func refusals(_ answer: Answer) -> [(message: String, metadata: [String: String])] {
        let message = { (error: HomeError) in "a Matter \(origin.rawValue) was refused: \(error)" }
        guard case .values(.write(let requests, _)) = command else {
            return answer.error.map { [(message($0), [:])] } ?? []
        }
        // One outcome per write, in order; an error for the command as a whole stands for each.
        let errors: [HomeError?]
        if let error = answer.error {
            errors = Array(repeating: error, count: requests.count)
        } else if case .writes(let outcomes)? = answer.result {
            errors = outcomes.map { if case .failure(let error) = $0 { error } else { nil } }
        } else {
            errors = []
        }
        return zip(requests, errors).compactMap { request, error in
            error.map {
                (message($0), ["accessory": request.accessory, "service": request.service, "characteristic": request.characteristic])
            }
        }
    }
}

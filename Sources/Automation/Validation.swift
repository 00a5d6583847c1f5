public import HomeModel

/// Looks a characteristic up in the live home: the accessory's characteristic, or what is missing.
public typealias CharacteristicLookup = (CharacteristicPath) -> Result<Characteristic, HomeModelError>

extension ActionSet {
    /// Each action against the characteristic's metadata: it must exist, be writable and take the value.
    public static func check(_ actions: [Action], against lookup: CharacteristicLookup, at path: String = "actions") throws(AutomationError)
    {
        for (i, action) in actions.enumerated() {
            let characteristic: Characteristic
            switch lookup(action.path) {
            case .success(let found): characteristic = found
            case .failure(let problem): throw AutomationError(at: "\(path)[\(i)]", problem.description)
            }
            let (a, s, c) = (action.path.accessory, action.path.service, action.path.characteristic)
            guard characteristic.type.isWritable else {
                throw AutomationError(at: "\(path)[\(i)]", HomeModelError.readOnly(accessory: a, service: s, characteristic: c).description)
            }
            guard characteristic.isWritable else {
                throw AutomationError(
                    at: "\(path)[\(i)]", HomeModelError.notWritableHere(accessory: a, service: s, characteristic: c).description)
            }
            if case .failure(let problem) = characteristic.check(action.value) {
                throw AutomationError(at: "\(path)[\(i)].value", "\(action.path): \(problem)")
            }
        }
    }
}

extension Trigger {
    /// Every characteristic the trigger reads must exist, and every value it compares must fit it.
    public static func check(_ kind: Kind, _ conditions: Condition?, against lookup: CharacteristicLookup) throws(AutomationError) {
        if case .events(let events) = kind {
            for (i, event) in events.enumerated() {
                guard case .characteristic(let path, let match, _) = event else { continue }
                let characteristic = try find(path, lookup, at: "events[\(i)]")
                switch match {
                case .anyChange: break
                case .value(let value):
                    if case .failure(let problem) = characteristic.check(value) {
                        throw AutomationError(at: "events[\(i)].value", "\(path): \(problem)")
                    }
                case .range:
                    guard characteristic.isNumeric else { throw AutomationError(at: "events[\(i)].range", "\(path) is not a number") }
                }
            }
        }
        try conditions?.check(against: lookup, at: "conditions")
    }

    private static func find(
        _ path: CharacteristicPath, _ lookup: CharacteristicLookup, at location: String
    ) throws(AutomationError) -> Characteristic {
        switch lookup(path) {
        case .success(let characteristic): return characteristic
        case .failure(let problem): throw AutomationError(at: location, problem.description)
        }
    }
}

extension Condition {
    func check(against lookup: CharacteristicLookup, at location: String) throws(AutomationError) {
        switch self {
        case .compare(let path, let comparison, let value):
            let characteristic: Characteristic
            switch lookup(path) {
            case .success(let found): characteristic = found
            case .failure(let problem): throw AutomationError(at: location, problem.description)
            }
            if comparison == .equal || comparison == .notEqual {
                if case .failure(let problem) = characteristic.check(value) {
                    throw AutomationError(at: "\(location).value", "\(path): \(problem)")
                }
            } else if !characteristic.isNumeric {
                throw AutomationError(at: "\(location).op", "\(path) is not a number")
            }
        case .time, .weekdays: break
        case .all(let items):
            for (i, item) in items.enumerated() { try item.check(against: lookup, at: "\(location).all[\(i)]") }
        case .any(let items):
            for (i, item) in items.enumerated() { try item.check(against: lookup, at: "\(location).any[\(i)]") }
        case .not(let inner): try inner.check(against: lookup, at: "\(location).not")
        }
    }
}

extension Characteristic {
    var isNumeric: Bool { type.format.integerRange != nil || type.format == .float }
}

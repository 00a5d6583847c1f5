/// The one check of an object's keys against the keys it takes, for every reader of outside
/// objects: request bodies, automation definitions, exports, mapping files and the configuration.
/// Each reader keeps its own error model (thrown at the first problem, or collected with a file
/// position) and its documented wording; which keys are refused, and what is suggested for them,
/// is decided here once.
public struct ObjectKeys<Value> {
    /// A key the object does not take, with the nearest one it does (" (did you mean 'x'?)" or "").
    public struct Unknown {
        public let key: String
        public let value: Value
        public let suggestion: String
    }

    /// The entries whose keys are taken, by key.
    public private(set) var fields: [String: Value] = [:]
    /// The keys not taken, in the order given (readers that throw at the first sort their input first).
    public private(set) var unknown: [Unknown] = []
    /// Required keys that are absent, in the order `required` names them.
    public private(set) var missing: [String] = []

    /// - Parameters:
    ///   - ignoring: keys any object of this kind may carry beside its own (a request's `transaction`).
    ///   - suggestions: what a misspelt key is compared with, when more than `allowed` (a flattened
    ///     configuration key like `mqtt.keepalive`); `allowed` by default.
    public init(
        _ entries: some Sequence<(key: String, value: Value)>, allowed: [String], required: [String] = [],
        ignoring: Set<String> = [], suggestions: [String]? = nil
    ) {
        let taken = Set(allowed)
        for (key, value) in entries where !ignoring.contains(key) {
            if taken.contains(key) {
                fields[key] = value
            } else {
                unknown.append(Unknown(key: key, value: value, suggestion: didYouMean(key, suggestions ?? allowed)))
            }
        }
        missing = required.filter { fields[$0] == nil }
    }
}

extension ObjectKeys {
    /// The keys of a dictionary, checked in sorted order so the first problem reported is the same every time.
    public init(
        sorted dictionary: [String: Value], allowed: [String], required: [String] = [], ignoring: Set<String> = []
    ) {
        self.init(
            dictionary.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }, allowed: allowed, required: required,
            ignoring: ignoring)
    }
}

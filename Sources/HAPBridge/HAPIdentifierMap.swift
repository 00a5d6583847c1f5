/// The aid of each accessory and the iid of each of its services and characteristics, kept for
/// as long as homegate knows the house: HomeKit ties rooms, scenes and automations to these
/// numbers, so they must survive restarts, renames and mapping reloads. Keys are homegate's own
/// ids (accessory id, service id, characteristic name), never names people change. An accessory
/// that leaves keeps its numbers, so that it gets them back when it returns; numbers are never reused.
struct HAPIdentifierMap: Codable, Sendable, Equatable {
    struct AccessoryNumbers: Codable, Sendable, Equatable {
        var aid: Int
        /// Services by `s:<service id>`, characteristics by `c:<service id>/<characteristic>`.
        var iids: [String: Int] = [:]
        var nextIID = HAPIdentifierMap.firstFreeIID
    }

    /// aid 1 is the bridge itself.
    var nextAID = 2
    var accessories: [String: AccessoryNumbers] = [:]
    /// A digest of the accessory set as last published, so that a change (and only a change) bumps `c#`.
    var fingerprint: String?

    /// iids 1…7 are the AccessoryInformation service every accessory has, laid out the same way.
    static let firstFreeIID = 8

    mutating func aid(for accessory: String) -> Int {
        if let known = accessories[accessory] { return known.aid }
        let aid = nextAID
        nextAID += 1
        accessories[accessory] = AccessoryNumbers(aid: aid)
        return aid
    }

    mutating func iid(accessory: String, key: String) -> Int {
        _ = aid(for: accessory)
        guard var numbers = accessories[accessory] else { return 0 }  // made just above
        if let known = numbers.iids[key] { return known }
        let iid = numbers.nextIID
        numbers.nextIID += 1
        numbers.iids[key] = iid
        accessories[accessory] = numbers
        return iid
    }

    static func serviceKey(_ service: String) -> String { "s:" + service }
    static func characteristicKey(_ service: String, _ characteristic: String) -> String { "c:\(service)/\(characteristic)" }
}

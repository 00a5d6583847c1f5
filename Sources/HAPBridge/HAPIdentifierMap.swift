/// Which bridge each accessory is on, its aid there and the iid of each of its services and
/// characteristics, kept for as long as homegate knows the house: HomeKit ties rooms, scenes and
/// automations to these numbers, so they must survive restarts, renames and mapping reloads. Keys
/// are homegate's own ids (accessory id, service id, characteristic name), never names people
/// change. An accessory that leaves keeps its numbers, so that it gets them back when it returns;
/// numbers are never reused.
struct HAPIdentifierMap: Codable, Sendable, Equatable {
    struct AccessoryNumbers: Codable, Sendable, Equatable {
        /// Index of the bridge (0: the first).
        var bridge: Int
        var aid: Int
        /// Services by `s:<service id>`, characteristics by `c:<service id>/<characteristic>`.
        var iids: [String: Int] = [:]
        var nextIID = HAPIdentifierMap.firstFreeIID
        /// In the house at the last `assign`: those keep their place before one that returns.
        var present = true
    }

    /// The next aid on each bridge; aid 1 is each bridge itself.
    var nextAIDs = [2]
    var accessories: [String: AccessoryNumbers] = [:]
    /// By bridge index: a digest of its accessory set as last published, so that a change (and
    /// only a change) bumps that bridge's `c#`.
    var fingerprints: [String: String] = [:]

    /// iids 1…7 are the AccessoryInformation service every accessory has, laid out the same way.
    static let firstFreeIID = 8

    var bridgeCount: Int { nextAIDs.count }

    /// Puts each present accessory on a bridge with at most `capacity` present accessories. One
    /// keeps its bridge while that has room (so accessories do not move when others join); a new one
    /// (or one whose bridge filled up while it was away) goes on the first bridge with room, a new
    /// bridge if none has. Returns the present accessories of each bridge.
    mutating func assign(_ present: [String], capacity: Int) -> [[String]] {
        var members: [[String]] = Array(repeating: [], count: bridgeCount)
        var homeless: [String] = []
        let known = present.compactMap { id in accessories[id].map { (id, $0) } }
            .sorted { ($0.1.present ? 0 : 1, $0.1.bridge, $0.1.aid) < ($1.1.present ? 0 : 1, $1.1.bridge, $1.1.aid) }
        for (id, numbers) in known {
            guard numbers.bridge < members.count, members[numbers.bridge].count < capacity else {
                homeless.append(id)
                continue
            }
            members[numbers.bridge].append(id)
        }
        homeless += present.filter { accessories[$0] == nil }
        for id in homeless {
            let bridge = members.firstIndex { $0.count < capacity } ?? members.count
            if bridge == members.count {
                members.append([])
                if nextAIDs.count <= bridge { nextAIDs.append(2) }
            }
            let aid = nextAIDs[bridge]
            nextAIDs[bridge] += 1
            var numbers = accessories[id] ?? AccessoryNumbers(bridge: bridge, aid: aid)
            (numbers.bridge, numbers.aid) = (bridge, aid)
            accessories[id] = numbers
            members[bridge].append(id)
        }
        let here = Set(present)
        for id in accessories.keys where accessories[id]?.present != here.contains(id) {
            accessories[id]?.present = here.contains(id)
        }
        return members
    }

    /// The iid of a service or characteristic of an accessory that `assign` has placed.
    mutating func iid(accessory: String, key: String) -> Int {
        guard var numbers = accessories[accessory] else { return 0 }
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

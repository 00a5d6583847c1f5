import Foundation

/// Which bridge each accessory is on, its aid there and the iid of each of its services and
/// characteristics, kept for as long as homegate knows the house: HomeKit ties rooms, scenes and
/// automations to these numbers, so they must survive restarts, renames and mapping reloads. Keys
/// are homegate's own ids (accessory id, service id, characteristic name), never names people
/// change. An accessory that leaves (or is left out by `hap.exclude`) keeps its numbers, so that it
/// gets them back when it returns, and keeps its place on its bridge for `reservation`: newcomers
/// go elsewhere meanwhile. Numbers are never reused.
struct IdentifierMap: Codable, Sendable, Equatable {
    struct AccessoryNumbers: Codable, Sendable, Equatable {
        /// Index of the bridge (0: the first).
        var bridge: Int
        var aid: Int
        /// Services by `s:<service id>`, characteristics by `c:<service id>/<characteristic>`, the
        /// bridge's Name and ConfiguredName of a service by `n:<service id>` and `cn:<service id>`.
        var iids: [String: Int] = [:]
        var nextIID = IdentifierMap.firstFreeIID
        /// In the house at the last `assign`: those keep their place before one that returns.
        var present = true
        /// When it was last seen leaving; nil while present (and in maps stored before reservations,
        /// where the first `assign` sets it).
        var awaySince: Date?
    }

    /// How long an accessory that left keeps its place on its bridge: long enough for a holiday, a
    /// dead battery or a device being re-paired; after that a full bridge gives the place away.
    static let reservation: TimeInterval = 30 * 86_400

    /// The next aid on each bridge; aid 1 is each bridge itself.
    var nextAIDs = [2]
    var accessories: [String: AccessoryNumbers] = [:]
    /// By bridge index: a digest of its accessory set as last published, so that a change (and
    /// only a change) bumps that bridge's `c#`.
    var fingerprints: [String: String] = [:]

    /// iids 1…7 are the AccessoryInformation service every accessory has, laid out the same way.
    static let firstFreeIID = 8

    var bridgeCount: Int { nextAIDs.count }

    /// Puts each present accessory on a bridge with at most `capacity` accessories, counting those
    /// away for less than `reservation` on their bridge. One keeps its bridge (so accessories do not
    /// move when others join, and one that returns finds its place); a new one, or one that returns
    /// after its reservation ended to a full bridge, goes on the first bridge with room, a new bridge
    /// if none has. Returns the present accessories of each bridge.
    mutating func assign(_ present: [String], capacity: Int, now: Date) -> [[String]] {
        let here = Set(present)
        for id in accessories.keys where !here.contains(id) && accessories[id]?.awaySince == nil {
            accessories[id]?.awaySince = now
        }
        var members: [[String]] = Array(repeating: [], count: bridgeCount)
        var reserved = Array(repeating: 0, count: bridgeCount)
        for (id, numbers) in accessories where !here.contains(id) && numbers.bridge < reserved.count && Self.holdsPlace(numbers, now: now) {
            reserved[numbers.bridge] += 1
        }
        // Who stayed first, then who returns while its place is kept, then who returns after.
        func rank(_ numbers: AccessoryNumbers) -> Int { numbers.present ? 0 : Self.holdsPlace(numbers, now: now) ? 1 : 2 }
        var homeless: [String] = []
        let known = present.compactMap { id in accessories[id].map { (id, $0) } }
            .sorted { (rank($0.1), $0.1.bridge, $0.1.aid) < (rank($1.1), $1.1.bridge, $1.1.aid) }
        for (id, numbers) in known {
            // One that stayed is never pushed off by a reservation, whatever an older map holds.
            guard numbers.bridge < members.count,
                members[numbers.bridge].count + (numbers.present ? 0 : reserved[numbers.bridge]) < capacity
            else {
                homeless.append(id)
                continue
            }
            members[numbers.bridge].append(id)
        }
        homeless += present.filter { accessories[$0] == nil }
        for id in homeless {
            let bridge = members.indices.first { members[$0].count + reserved[$0] < capacity } ?? members.count
            if bridge == members.count {
                members.append([])
                reserved.append(0)
                if nextAIDs.count <= bridge { nextAIDs.append(2) }
            }
            let aid = nextAIDs[bridge]
            nextAIDs[bridge] += 1
            var numbers = accessories[id] ?? AccessoryNumbers(bridge: bridge, aid: aid)
            (numbers.bridge, numbers.aid) = (bridge, aid)
            accessories[id] = numbers
            members[bridge].append(id)
        }
        for id in present where accessories[id]?.present == false || accessories[id]?.awaySince != nil {
            accessories[id]?.present = true
            accessories[id]?.awaySince = nil
        }
        for id in accessories.keys where !here.contains(id) && accessories[id]?.present == true {
            accessories[id]?.present = false
        }
        return members
    }

    /// Left less than `reservation` ago (whether it is back is the caller's to know).
    private static func holdsPlace(_ numbers: AccessoryNumbers, now: Date) -> Bool {
        numbers.awaySince.map { now < $0 + Self.reservation } ?? false
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
    static func nameKey(_ service: String) -> String { "n:" + service }
    static func configuredNameKey(_ service: String) -> String { "cn:" + service }
}

import Foundation
import GatewayCore
import HomeModel
import Logging

/// The identifier map shared by the bridges: places accessories on bridges, lays each bridge out,
/// and saves what it hands out. One actor, so that two bridges never number the same accessory.
actor IdentifierRegistry {
    private let storage: IdentifierStorage
    private let logger: Logger
    private var map: IdentifierMap
    /// Told each new bridge's index, when the house outgrows the bridges it has.
    private let newBridges: AsyncStream<Int>.Continuation?
    private let selection: BridgedSelection
    /// The time for reservations (`IdentifierMap.reservation`); tests move it.
    private let now: @Sendable () -> Date
    /// When it was made (at start): what left since went away in this run.
    let startedAt: Date
    /// The selectors last reported as naming nothing, so that each change is said once.
    private var reportedUnmatched: [AccessorySelector] = []

    /// Reads the stored map.
    init(
        storage: IdentifierStorage, logger: Logger, selection: BridgedSelection = .everything,
        newBridges: AsyncStream<Int>.Continuation? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) async throws {
        self.storage = storage
        self.logger = logger
        self.selection = selection
        self.newBridges = newBridges
        self.now = now
        startedAt = now()
        map = try await storage.load()
    }

    /// How many bridges the house needs now (at least one; a bridge stays once it has been made).
    func bridgeCount(_ snapshot: HomeSnapshot) async -> Int {
        await assign(snapshot)
        return map.bridgeCount
    }

    /// The layout of bridge `index`, placing accessories first.
    func layout(bridge index: Int, _ snapshot: HomeSnapshot, identity: BridgeIdentity) async -> BridgeLayout {
        let members = await assign(snapshot)
        let mine = Set(index < members.count ? members[index] : [])
        let before = map
        let layout = BridgeLayout.build(snapshot.accessories.filter { mine.contains($0.id) }, map: &map, bridge: identity)
        if map != before { await save() }
        return layout
    }

    /// Whether bridge `index`'s accessory set differs from the one it last published (and
    /// remembers this one). The very first publication is no change.
    func takeShapeChange(bridge index: Int, fingerprint: String) async -> Bool {
        let key = String(index)
        guard map.fingerprints[key] != fingerprint else { return false }
        let first = map.fingerprints[key] == nil
        map.fingerprints[key] = fingerprint
        await save()
        return !first
    }

    /// The accessories that left bridge `index` at `since` or after, with their aids.
    func departed(bridge index: Int, since: Date) -> [(aid: Int, accessory: String)] {
        map.accessories.filter { _, numbers in
            numbers.bridge == index && !numbers.present && numbers.awaySince.map { $0 >= since } == true
        }
        .map { (aid: $0.value.aid, accessory: $0.key) }.sorted { $0.aid < $1.aid }
    }

    /// Warns about the `hap.include` / `hap.exclude` selectors that name nothing in `snapshot`, each
    /// time that set changes (a typo at start, a room renamed later). An empty house is still
    /// loading: nothing is said about it.
    func reportUnmatchedSelectors(_ snapshot: HomeSnapshot) {
        guard !snapshot.accessories.isEmpty else { return }
        let unmatched = selection.unmatched(snapshot)
        guard unmatched != reportedUnmatched else { return }
        reportedUnmatched = unmatched
        for selector in unmatched {
            let key = selection.include.contains(selector) ? "hap.include" : "hap.exclude"
            logger.warning(
                "\(key): '\(selector)' names no \(selector.kind.rawValue) of the house (by id or name, ignoring case), so it selects nothing"
            )
        }
    }

    @discardableResult
    private func assign(_ snapshot: HomeSnapshot) async -> [[String]] {
        let count = map.bridgeCount
        let before = map
        let members = map.assign(selection.bridged(snapshot), capacity: BridgeLayout.maximumBridged, now: now())
        if map != before { await save() }
        for index in count..<map.bridgeCount {
            logger.notice(
                "the house has more accessories than one HomeKit bridge takes (\(BridgeLayout.maximumBridged), counting the places kept for accessories away less than 30 days): bridge \(index + 1) starts; pair it too"
            )
            newBridges?.yield(index)
        }
        return members
    }

    /// Saves the map as it is now (the actor may take other calls while the database writes; each
    /// save writes the whole map, so the last one holds everything).
    private func save() async {
        do {
            try await storage.save(map)
        } catch {
            logger.error("\(error)")
        }
    }
}

import Logging

extension HAPServer {
    /// The paired controllers.
    public func pairings() async throws -> [HAPPairing] { try await store.pairings() }

    /// Removes a controller's pairing out of band, by the rule HAP's own remove follows (removing
    /// the last admin removes every pairing), and closes the removed controllers' open sessions.
    /// Returns false when `controllerID` is not paired.
    public func removePairing(controllerID: String) async throws -> Bool {
        let existing = try await store.pairings()
        guard existing.contains(where: { $0.controllerID == controllerID }) else { return false }
        try await removed(HAPPairingRemoval.remove([controllerID], existing: existing, store: store), of: existing)
        return true
    }

    /// Removes every pairing and closes every controller's session: the accessory can be paired again.
    public func removeAllPairings() async throws {
        let existing = try await store.pairings()
        try await removed(HAPPairingRemoval.remove(Set(existing.map(\.controllerID)), existing: existing, store: store), of: existing)
    }

    private func removed(_ removed: Set<String>, of existing: [HAPPairing]) {
        guard !removed.isEmpty else { return }
        logger.notice("pairing removed out of band", metadata: ["pairings left": "\(existing.count - removed.count)"])
        registry.closeSessions(of: removed, keeping: nil)
        if !existing.isEmpty, removed.count == existing.count { configuration.onPairedChange?(false) }
    }
}

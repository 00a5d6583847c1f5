/// Removing pairings, by an admin controller (`/pairings`) or out of band (a person on homegate's
/// web page): when no admin would be left, nobody could manage the rest, so every pairing goes and
/// the accessory is unpaired again (`HAPPairing.removal`).
enum HAPPairingRemoval {
    /// Removes `controllerIDs` from `store` (and the rest when no admin would be left); returns
    /// the ids removed.
    static func remove(_ controllerIDs: Set<String>, existing: [HAPPairing], store: any HAPPairingStore) async throws -> Set<String> {
        let removed = HAPPairing.removal(of: controllerIDs, from: existing)
        for controllerID in removed.sorted() { try await store.removePairing(controllerID: controllerID) }
        return removed
    }
}

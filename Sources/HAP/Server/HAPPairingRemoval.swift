/// Removing pairings, by an admin controller (`/pairings`) or out of band (a person on homegate's
/// web page): when no admin would be left, nobody could manage the rest, so every pairing goes and
/// the accessory is unpaired again.
enum HAPPairingRemoval {
    /// Removes `controllerIDs` from `store` (and the rest when no admin would be left); returns
    /// the ids removed.
    static func remove(_ controllerIDs: Set<String>, existing: [HAPPairing], store: any HAPPairingStore) async throws -> Set<String> {
        var removed = controllerIDs
        for controllerID in controllerIDs.sorted() { try await store.removePairing(controllerID: controllerID) }
        let remaining = existing.filter { !controllerIDs.contains($0.controllerID) }
        if !remaining.isEmpty, !remaining.contains(where: \.isAdmin) {
            for pairing in remaining { try await store.removePairing(controllerID: pairing.controllerID) }
            removed.formUnion(remaining.map(\.controllerID))
        }
        return removed
    }
}

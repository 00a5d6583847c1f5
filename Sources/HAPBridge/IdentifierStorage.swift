import Foundation

/// The identifier map as one JSON value in the database (`adapter_state`, key `hap.identifiers`).
struct IdentifierStorage: Sendable {
    let storage: any BridgeStateStorage

    func load() async throws -> IdentifierMap {
        guard let text = try await storage.load(BridgeStateKeys.identifiers) else { return IdentifierMap() }
        do {
            return try JSONDecoder().decode(IdentifierMap.self, from: Data(text.utf8))
        } catch {
            throw BridgeError.storage(
                "\(BridgeStateKeys.identifiers) in the database is not homegate's HomeKit identifier map (\(error))")
        }
    }

    func save(_ map: IdentifierMap) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try await storage.save(BridgeStateKeys.identifiers, String(decoding: try encoder.encode(map), as: UTF8.self))
    }
}

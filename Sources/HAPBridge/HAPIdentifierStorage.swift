import Foundation

/// The identifier map as one JSON value in the database (`adapter_state`, key `hap.identifiers`).
struct HAPIdentifierStorage: Sendable {
    let storage: any HAPStateStorage

    func load() async throws -> HAPIdentifierMap {
        guard let text = try await storage.load(HAPStateKeys.identifiers) else { return HAPIdentifierMap() }
        do {
            return try JSONDecoder().decode(HAPIdentifierMap.self, from: Data(text.utf8))
        } catch {
            throw HAPBridgeError.storage(
                "\(HAPStateKeys.identifiers) in the database is not homegate's HomeKit identifier map (\(error))")
        }
    }

    func save(_ map: HAPIdentifierMap) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try await storage.save(HAPStateKeys.identifiers, String(decoding: try encoder.encode(map), as: UTF8.self))
    }
}

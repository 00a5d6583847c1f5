import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The identifier map in a JSON file next to the database. (The SQLite database would be the
/// better home, with the pairings; a file was quicker to land and keeps the Persistence schema
/// untouched for now.) Written to a temporary file and renamed, so a crash leaves the old map whole.
struct HAPIdentifierFile: Sendable {
    let path: String

    func load() throws(HAPBridgeError) -> HAPIdentifierMap {
        guard FileManager.default.fileExists(atPath: path) else { return HAPIdentifierMap() }
        do {
            return try JSONDecoder().decode(HAPIdentifierMap.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .storage("\(path) does not hold homegate's HomeKit identifiers (\(error)); move it away to start over, and pair again")
        }
    }

    func save(_ map: HAPIdentifierMap) throws(HAPBridgeError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let temporary = path + ".tmp"
        do {
            try encoder.encode(map).write(to: URL(fileURLWithPath: temporary))
        } catch {
            throw .storage("cannot write \(temporary): \(error)")
        }
        guard rename(temporary, path) == 0 else {
            throw .storage("cannot replace \(path): \(String(cString: strerror(errno)))")
        }
    }
}

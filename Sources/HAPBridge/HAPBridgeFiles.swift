import Foundation

/// Where the bridge keeps its state: next to the database (`data/homegate.sqlite` →
/// `data/homegate.hap-pairing.json` and `data/homegate.hap-ids.json`), so that a backup of the
/// data folder holds it. The pairing file has the accessory's secret key: mode 0600.
public struct HAPBridgeFiles: Sendable, Hashable {
    /// The first bridge's pairing store; see `pairingStore(bridge:)`.
    public var pairingStore: String
    public var identifiers: String

    public init(database: String) {
        let url = URL(fileURLWithPath: database)
        let stem = url.deletingPathExtension().lastPathComponent
        let folder = url.deletingLastPathComponent()
        pairingStore = folder.appendingPathComponent(stem + ".hap-pairing.json").path
        identifiers = folder.appendingPathComponent(stem + ".hap-ids.json").path
    }

    /// Bridge `index`'s pairing store: `homegate.hap-pairing.json`, then `homegate.hap-pairing-2.json`, …
    public func pairingStore(bridge index: Int) -> String {
        index == 0 ? pairingStore : pairingStore.replacingOccurrences(of: ".hap-pairing.json", with: ".hap-pairing-\(index + 1).json")
    }

    /// Bridge `index`'s name: "homegate", then "homegate 2", …
    public static func name(_ name: String, bridge index: Int) -> String {
        index == 0 ? name : "\(name) \(index + 1)"
    }

    /// The folder, made if missing (before the database's first start, `homegate hap pairing` may be first).
    func makeFolder() throws(HAPBridgeError) {
        let folder = URL(fileURLWithPath: pairingStore).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .storage("cannot make the folder \(folder): \(error)")
        }
    }
}

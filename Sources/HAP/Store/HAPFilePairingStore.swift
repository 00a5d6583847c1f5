import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pairing store in one JSON file (mode 0600), for the demo and the restart test.
public actor HAPFilePairingStore: HAPPairingStore {
    private let url: URL
    private var contents: HAPPairingRecord

    /// Opens the file, or starts empty when it does not exist yet.
    public init(path: String) throws(HAPError) {
        url = URL(fileURLWithPath: path)
        guard FileManager.default.fileExists(atPath: path) else {
            contents = HAPPairingRecord()
            return
        }
        do {
            contents = try JSONDecoder().decode(HAPPairingRecord.self, from: Data(contentsOf: url))
        } catch {
            throw .storage("\(path) is not a pairing store written by HAPFilePairingStore: \(error)")
        }
    }

    public func identity() throws -> HAPIdentity? { try contents.identity(at: url.path) }

    public func saveIdentity(_ identity: HAPIdentity) throws {
        contents.setIdentity(identity)
        try write()
    }

    public func pairings() -> [HAPPairing] { contents.pairingList }

    public func savePairing(_ pairing: HAPPairing) throws {
        contents.save(pairing)
        try write()
    }

    public func removePairing(controllerID: String) throws {
        contents.remove(controllerID: controllerID)
        try write()
    }

    public func configurationNumber() -> UInt32 { contents.configurationNumber }

    public func saveConfigurationNumber(_ number: UInt32) throws {
        contents.configurationNumber = number
        try write()
    }

    private func write() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            let data = try encoder.encode(contents)
            let temporary = url.appendingPathExtension("tmp")
            guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]),
                rename(temporary.path, url.path) == 0
            else { throw HAPError.storage("cannot write \(url.path): errno \(errno)") }
        } catch let error as HAPError {
            throw error
        } catch {
            throw HAPError.storage("cannot write \(url.path): \(error)")
        }
    }
}

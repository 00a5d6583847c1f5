import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pairing store in one JSON file (mode 0600), for the demo and the restart test.
public actor HAPFilePairingStore: HAPPairingStore {
    private let url: URL
    private var contents: Contents

    struct Contents: Codable {
        struct Pairing: Codable {
            var controllerID: String
            var publicKey: String
            var isAdmin: Bool
        }
        var deviceID: String?
        var longTermSecretKey: String?
        var setupCode: String?
        var setupID: String?
        var pairings: [Pairing] = []
        var configurationNumber: UInt32 = 1
    }

    /// Opens the file, or starts empty when it does not exist yet.
    public init(path: String) throws(HAPError) {
        url = URL(fileURLWithPath: path)
        guard FileManager.default.fileExists(atPath: path) else {
            contents = Contents()
            return
        }
        do {
            contents = try JSONDecoder().decode(Contents.self, from: Data(contentsOf: url))
        } catch {
            throw .storage("\(path) is not a pairing store written by HAPFilePairingStore: \(error)")
        }
    }

    public func identity() throws -> HAPIdentity? {
        guard let deviceID = contents.deviceID, let key = contents.longTermSecretKey, let code = contents.setupCode,
            let setupID = contents.setupID
        else { return nil }
        guard let keyBytes = Data(base64Encoded: key) else {
            throw HAPError.storage("\(url.path): longTermSecretKey is not base64")
        }
        return try HAPIdentity(
            deviceID: HAPDeviceID(deviceID), longTermSecretKey: Array(keyBytes), setupCode: HAPSetupCode(code),
            setupID: HAPSetupID(setupID))
    }

    public func saveIdentity(_ identity: HAPIdentity) throws {
        contents.deviceID = identity.deviceID.description
        contents.longTermSecretKey = Data(identity.longTermSecretKey).base64EncodedString()
        contents.setupCode = identity.setupCode.description
        contents.setupID = identity.setupID.description
        try write()
    }

    public func pairings() -> [HAPPairing] {
        contents.pairings.compactMap { pairing in
            Data(base64Encoded: pairing.publicKey).map {
                HAPPairing(controllerID: pairing.controllerID, publicKey: Array($0), isAdmin: pairing.isAdmin)
            }
        }
    }

    public func savePairing(_ pairing: HAPPairing) throws {
        contents.pairings.removeAll { $0.controllerID == pairing.controllerID }
        contents.pairings.append(
            .init(controllerID: pairing.controllerID, publicKey: Data(pairing.publicKey).base64EncodedString(), isAdmin: pairing.isAdmin))
        try write()
    }

    public func removePairing(controllerID: String) throws {
        contents.pairings.removeAll { $0.controllerID == controllerID }
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

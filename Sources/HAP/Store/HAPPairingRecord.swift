import Foundation

/// What a pairing store keeps, as one Codable value: the identity (device id, Ed25519 key, setup
/// code and ID), the pairings and `c#`. `HAPFilePairingStore` writes it to a file, the adapter to
/// its database; both read and change it through these functions.
public struct HAPPairingRecord: Codable, Sendable {
    struct Pairing: Codable, Sendable {
        var controllerID: String
        var publicKey: String
        var isAdmin: Bool
    }
    var deviceID: String?
    var longTermSecretKey: String?
    var setupCode: String?
    var setupID: String?
    var pairings: [Pairing] = []
    public var configurationNumber: UInt32 = 1

    public init() {}

    /// The identity kept, or nil when none is yet; `place` names where the record lies, for the error.
    public func identity(at place: String) throws -> HAPIdentity? {
        guard let deviceID, let longTermSecretKey, let setupCode, let setupID else { return nil }
        guard let key = Data(base64Encoded: longTermSecretKey) else {
            throw HAPError.storage("\(place): the long-term secret key is not base64")
        }
        return try HAPIdentity(
            deviceID: HAPDeviceID(deviceID), longTermSecretKey: Array(key), setupCode: HAPSetupCode(setupCode),
            setupID: HAPSetupID(setupID))
    }

    public mutating func setIdentity(_ identity: HAPIdentity) {
        deviceID = identity.deviceID.description
        longTermSecretKey = Data(identity.longTermSecretKey).base64EncodedString()
        setupCode = identity.setupCode.description
        setupID = identity.setupID.description
    }

    /// The pairings kept (one whose key is not base64 is left out).
    public var pairingList: [HAPPairing] {
        pairings.compactMap { pairing in
            Data(base64Encoded: pairing.publicKey).map {
                HAPPairing(controllerID: pairing.controllerID, publicKey: Array($0), isAdmin: pairing.isAdmin)
            }
        }
    }

    /// Adds a pairing, or replaces the one of the same controller.
    public mutating func save(_ pairing: HAPPairing) {
        remove(controllerID: pairing.controllerID)
        pairings.append(
            .init(controllerID: pairing.controllerID, publicKey: Data(pairing.publicKey).base64EncodedString(), isAdmin: pairing.isAdmin))
    }

    public mutating func remove(controllerID: String) {
        pairings.removeAll { $0.controllerID == controllerID }
    }
}

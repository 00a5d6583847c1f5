/// A controller that paired: its pairing identifier, Ed25519 long-term public key and admin bit.
public struct HAPPairing: Sendable, Hashable {
    public var controllerID: String
    public var publicKey: [UInt8]
    public var isAdmin: Bool

    public init(controllerID: String, publicKey: [UInt8], isAdmin: Bool) {
        self.controllerID = controllerID
        self.publicKey = publicKey
        self.isAdmin = isAdmin
    }
}

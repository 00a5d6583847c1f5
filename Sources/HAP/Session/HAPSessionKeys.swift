import Crypto

/// The two keys of an encrypted session, derived from the pair-verify shared secret.
struct HAPSessionKeys: Sendable {
    /// Accessory → controller ("Control-Read-Encryption-Key": what the controller reads).
    let outbound: SymmetricKey
    /// Controller → accessory ("Control-Write-Encryption-Key").
    let inbound: SymmetricKey

    init(sharedSecret: [UInt8]) {
        outbound = HAPKeys.derive(sharedSecret, salt: "Control-Salt", info: "Control-Read-Encryption-Key")
        inbound = HAPKeys.derive(sharedSecret, salt: "Control-Salt", info: "Control-Write-Encryption-Key")
    }

    init(outbound: SymmetricKey, inbound: SymmetricKey) {
        self.outbound = outbound
        self.inbound = inbound
    }
}

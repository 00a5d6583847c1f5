extension TLV8 {
    /// The item types of the pairing messages.
    public enum Tag: UInt8, Sendable {
        case method = 0x00
        case identifier = 0x01
        case salt = 0x02
        case publicKey = 0x03
        case proof = 0x04
        case encryptedData = 0x05
        case state = 0x06
        case error = 0x07
        case retryDelay = 0x08
        case certificate = 0x09
        case signature = 0x0A
        case permissions = 0x0B
        case fragmentData = 0x0C
        case fragmentLast = 0x0D
        case sessionID = 0x0E
        case flags = 0x13
        case separator = 0xFF
    }
}

import CMatterCrypto

/// AES-128-CCM as Matter uses it (13-byte nonce, 16-byte tag), on OpenSSL's libcrypto: swift-crypto
/// has no CCM in its public API.
public enum AESCCM {
    public static let keyLength = 16
    public static let nonceLength = 13
    public static let tagLength = 16

    /// The ciphertext followed by its tag (16 bytes in Matter; other even lengths from 4 for RFC 3610's vectors).
    public static func seal(
        _ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], authenticating aad: [UInt8], tagLength: Int = AESCCM.tagLength
    ) throws -> [UInt8] {
        try check(key: key, nonce: nonce, tagLength: tagLength)
        return try withCipher(encrypt: true, key: key, nonce: nonce, tag: nil, tagLength: tagLength, length: plaintext.count, aad: aad) {
            ctx in
            var out = [UInt8](repeating: 0, count: plaintext.count + tagLength)
            var written: Int32 = 0
            var final = [UInt8](repeating: 0, count: 16)  // CCM writes nothing at the end
            guard EVP_EncryptUpdate(ctx, &out, &written, nonEmpty(plaintext), Int32(plaintext.count)) == 1,
                EVP_EncryptFinal_ex(ctx, &final, &written) == 1
            else { throw MatterError.decryptionFailed("AES-CCM encryption failed") }
            var tag = [UInt8](repeating: 0, count: tagLength)
            guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, Int32(tagLength), &tag) == 1 else {
                throw MatterError.decryptionFailed("AES-CCM tag unavailable")
            }
            out.replaceSubrange(plaintext.count..., with: tag)
            return out
        }
    }

    /// The plaintext of `sealed` (ciphertext and tag), or an error when the tag does not match.
    public static func open(
        _ sealed: [UInt8], key: [UInt8], nonce: [UInt8], authenticating aad: [UInt8], tagLength: Int = AESCCM.tagLength
    ) throws -> [UInt8] {
        try check(key: key, nonce: nonce, tagLength: tagLength)
        guard sealed.count >= tagLength else { throw MatterError.decryptionFailed("\(sealed.count) bytes are shorter than the tag") }
        let ciphertext = Array(sealed.dropLast(tagLength))
        let tag = Array(sealed.suffix(tagLength))
        return try withCipher(encrypt: false, key: key, nonce: nonce, tag: tag, tagLength: tagLength, length: ciphertext.count, aad: aad) {
            ctx in
            var out = [UInt8](repeating: 0, count: max(ciphertext.count, 1))
            var written: Int32 = 0
            guard EVP_DecryptUpdate(ctx, &out, &written, nonEmpty(ciphertext), Int32(ciphertext.count)) == 1 else {
                throw MatterError.decryptionFailed("the message's tag does not match (wrong key or altered bytes)")
            }
            return Array(out.prefix(ciphertext.count))
        }
    }

    private static func check(key: [UInt8], nonce: [UInt8], tagLength: Int) throws {
        guard key.count == keyLength, nonce.count == nonceLength, (4...16).contains(tagLength), tagLength % 2 == 0 else {
            throw MatterError.decryptionFailed(
                "AES-CCM needs a \(keyLength)-byte key, a \(nonceLength)-byte nonce and an even tag length of 4 to 16")
        }
    }

    /// OpenSSL wants a valid pointer even for no bytes.
    private static func nonEmpty(_ bytes: [UInt8]) -> [UInt8] { bytes.isEmpty ? [0] : bytes }

    private static func withCipher<T>(
        encrypt: Bool, key: [UInt8], nonce: [UInt8], tag: [UInt8]?, tagLength: Int, length: Int, aad: [UInt8],
        _ body: (OpaquePointer) throws -> T
    ) throws -> T {
        guard let ctx = EVP_CIPHER_CTX_new() else { throw MatterError.decryptionFailed("EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let initialise = encrypt ? EVP_EncryptInit_ex : EVP_DecryptInit_ex
        let update = encrypt ? EVP_EncryptUpdate : EVP_DecryptUpdate
        var written: Int32 = 0
        var ready = initialise(ctx, EVP_aes_128_ccm(), nil, nil, nil) == 1
        ready = ready && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonceLength), nil) == 1
        if var expected = tag {  // decrypting: the tag to check; encrypting: only its length
            ready = ready && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, Int32(tagLength), &expected) == 1
        } else {
            ready = ready && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, Int32(tagLength), nil) == 1
        }
        ready = ready && initialise(ctx, nil, nil, key, nonce) == 1
        ready = ready && update(ctx, nil, &written, nil, Int32(length)) == 1  // CCM needs the length first
        if !aad.isEmpty { ready = ready && update(ctx, nil, &written, aad, Int32(aad.count)) == 1 }
        guard ready else { throw MatterError.decryptionFailed("cannot set up AES-128-CCM") }
        return try body(ctx)
    }
}

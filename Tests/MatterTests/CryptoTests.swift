import Testing

@testable import Matter

@Suite("Matter crypto")
struct CryptoTests {
    /// RFC 3610 packet vectors #1 and #2 (8-byte tag), and #1 again with Matter's 16-byte tag.
    static let ccmVectors: [(nonce: String, plaintext: ClosedRange<UInt8>, tagLength: Int, sealed: String)] = [
        ("00000003020100A0A1A2A3A4A5", 0x08...0x1E, 8, "588c979a61c663d2f066d0c2c0f989806d5f6b61dac38417e8d12cfdf926e0"),
        ("00000004030201A0A1A2A3A4A5", 0x08...0x1F, 8, "72c91a36e135f8cf291ca894085c87e3cc15c439c9e43a3ba091d56e10400916"),
        ("00000003020100A0A1A2A3A4A5", 0x08...0x1E, 16, "588c979a61c663d2f066d0c2c0f989806d5f6b61dac384509da654e32deac369c2dae7133cb08d"),
    ]
    static let ccmKey = Array(UInt8(0xC0)...UInt8(0xCF))
    static let ccmHeader = Array(UInt8(0)...UInt8(7))

    @Test("AES-CCM seals and opens RFC 3610's packet vectors")
    func ccmVectorsRoundTrip() throws {
        for vector in Self.ccmVectors {
            let sealed = try AESCCM.seal(
                Array(vector.plaintext), key: Self.ccmKey, nonce: hex(vector.nonce), authenticating: Self.ccmHeader,
                tagLength: vector.tagLength)
            #expect(sealed == hex(vector.sealed))
            let opened = try AESCCM.open(
                hex(vector.sealed), key: Self.ccmKey, nonce: hex(vector.nonce), authenticating: Self.ccmHeader, tagLength: vector.tagLength)
            #expect(opened == Array(vector.plaintext))
        }
    }

    @Test("AES-CCM refuses a changed byte, a changed header or a wrong key")
    func ccmRefusesTampering() throws {
        let vector = Self.ccmVectors[2]
        let nonce = hex(vector.nonce)
        for index in hex(vector.sealed).indices {
            var tampered = hex(vector.sealed)
            tampered[index] ^= 0x01
            #expect(throws: MatterError.self) { try AESCCM.open(tampered, key: Self.ccmKey, nonce: nonce, authenticating: Self.ccmHeader) }
        }
        #expect(throws: MatterError.self) { try AESCCM.open(hex(vector.sealed), key: Self.ccmKey, nonce: nonce, authenticating: [9]) }
        #expect(throws: MatterError.self) {
            try AESCCM.open(hex(vector.sealed), key: [UInt8](repeating: 0, count: 16), nonce: nonce, authenticating: Self.ccmHeader)
        }
        #expect(throws: MatterError.self) { try AESCCM.open([1, 2, 3], key: Self.ccmKey, nonce: nonce, authenticating: []) }
    }

    @Test("AES-CCM seals an empty message to its tag alone")
    func ccmEmpty() throws {
        let sealed = try AESCCM.seal([], key: Self.ccmKey, nonce: hex(Self.ccmVectors[0].nonce), authenticating: [1])
        #expect(sealed.count == 16)
        #expect(try AESCCM.open(sealed, key: Self.ccmKey, nonce: hex(Self.ccmVectors[0].nonce), authenticating: [1]) == [])
    }

    /// draft-bar-cfrg-spake2plus-01's first P-256 vector, as the Matter SDK's SPAKE2P_RFC_test_vectors.h keeps it.
    @Test("the SPAKE2+ verifier reproduces the draft's test vector: Y, Ke and both confirmations")
    func spake2PlusVector() throws {
        let verifier = PASEVerifier(
            w0: hex("e6887cf9bdfb7579c69bf47928a84514b5e355ac034863f7ffaf4390e67d798c"),
            L: hex(
                "0495645cfb74df6e58f9748bb83a86620bab7c82e107f57d6870da8cbcb2ff9f7063a14b6402c62f99afcb9706a4d1a143273259fe76f1c605a3639745a92154b9"
            ),
            salt: [], iterations: 0)
        let spake = try SPAKE2PlusVerifier(
            context: Array("SPAKE2+-P256-SHA256-HKDF draft-01".utf8),
            X: hex(
                "04af09987a593d3bac8694b123839422c3cc87e37d6b41c1d630f000dd64980e537ae704bcede04ea3bec9b7475b32fa2ca3b684be14d11645e38ea6609eb39e7e"
            ),
            verifier: verifier, y: hex("2e0895b0e763d6d5a9564433e64ac3cac74ff897f6c3445247ba1bab40082a91"),
            proverIdentity: Array("client".utf8), verifierIdentity: Array("server".utf8))
        #expect(
            spake.Y
                == hex(
                    "04417592620aebf9fd203616bbb9f121b730c258b286f890c5f19fea833a9c900cbe9057bc549a3e19975be9927f0e7614f08d1f0a108eede5fd7eb5624584a4f4"
                ))
        #expect(spake.sharedSecret == hex("801db297654816eb4f02868129b9dc89"))
        #expect(spake.confirmation == hex("0660a680663e8c5695956fb22dff298b1d07a526cf3cc591adfecd1f6ef6e02e"))
        #expect(spake.verifies(proverConfirmation: hex("d4376f2da9c72226dd151b77c2919071155fc22a2068d90b5faa6c78c11e77dd")))
        #expect(!spake.verifies(proverConfirmation: hex("d4376f2da9c72226dd151b77c2919071155fc22a2068d90b5faa6c78c11e77de")))
    }

    @Test("the verifier refuses a share that is not a point on P-256")
    func spake2PlusRefusesBadPoint() throws {
        let verifier = try PASEVerifier(passcode: 20_202_021, salt: [UInt8](repeating: 1, count: 16), iterations: 1000)
        var X = [UInt8](repeating: 0, count: 65)
        X[0] = 0x04
        #expect(throws: MatterError.self) { try SPAKE2PlusVerifier(context: [], X: X, verifier: verifier) }
        #expect(throws: MatterError.self) { try SPAKE2PlusVerifier(context: [], X: Array(X.prefix(33)), verifier: verifier) }
    }

    @Test("the PASE verifier refuses iteration counts and salts outside the specification's ranges")
    func verifierRanges() {
        #expect(throws: MatterError.self) { try PASEVerifier(passcode: 1, salt: [UInt8](repeating: 0, count: 16), iterations: 999) }
        #expect(throws: MatterError.self) { try PASEVerifier(passcode: 1, salt: [UInt8](repeating: 0, count: 15), iterations: 1000) }
    }
}

@Suite("The fuzz targets' fixed PASE verifier")
struct FuzzVerifierTests {
    @Test("w0 and L the Matter fuzz targets use are the verifier of passcode 20202021 with their salt")
    func fuzzVerifier() throws {
        let verifier = try PASEVerifier(passcode: 20_202_021, salt: [UInt8](repeating: 0x5A, count: 16), iterations: 1000)
        #expect(verifier.w0 == hex("26012df8bf442a5b9004c0c4af89d52d953a831b0151c15da32acba220e0b8b3"))
        #expect(verifier.L.prefix(4) == [0x04, 0x25, 0x03, 0xB1])
    }
}

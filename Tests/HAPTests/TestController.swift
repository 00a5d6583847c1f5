import Crypto
import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import HAP

/// A controller's side of one connection to a `HAPServer`, enough to pair-verify with a stored
/// pairing and send requests over the encrypted session. Used inside `TestController.connect`'s
/// scope; the server closing the connection shows as `closed`.
struct TestController {
    struct Closed: Error {}

    let closeFuture: EventLoopFuture<Void>
    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var received: [UInt8] = []
    private var sealed: [UInt8] = []
    private var cipher: HAPSessionCipher?

    /// Connects to `host`:`port` and runs `body` with the connection, closed after it.
    static func connect<Result: Sendable>(
        host: String = "127.0.0.1", port: Int, _ body: (inout TestController) async throws -> Result
    ) async throws -> Result {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: host, port: port) {
            channel in
            channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
        }
        let closeFuture = channel.channel.closeFuture
        return try await channel.executeThenClose { inbound, outbound in
            var controller = TestController(closeFuture: closeFuture, inbound: inbound.makeAsyncIterator(), outbound: outbound)
            return try await body(&controller)
        }
    }

    /// Whether the server closes the connection within `limit` (a bound for a failing server,
    /// not a wait: a passing one closes it as soon as it means to).
    func closedByServer(within limit: Duration = .seconds(10)) async -> Bool {
        let closeFuture = closeFuture
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await closeFuture.get()) != nil }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Pair-verify M1 to M4 as `controllerID`, whose pairing (with `key`'s public key) the server's
    /// store holds; afterwards every request is encrypted.
    mutating func verify(as controllerID: String, key: Curve25519.Signing.PrivateKey) async throws {
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let ownKey = Array(ephemeral.publicKey.rawRepresentation)
        let m2 = try TLV8(decoding: try await tlv(TLV8([(.state, [1]), (.publicKey, ownKey)])))
        let accessoryKey = try #require(m2[.publicKey], "M2 without a public key: \(m2)")
        let shared = try ephemeral.sharedSecretFromKeyAgreement(with: .init(rawRepresentation: accessoryKey)).withUnsafeBytes { Array($0) }
        let sessionKey = HAPKeys.derive(shared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        let identifier = Array(controllerID.utf8)
        let signature = Array(try key.signature(for: ownKey + identifier + accessoryKey))
        let inner = TLV8([(.identifier, identifier), (.signature, signature)]).encoded()
        let sealed = try HAPKeys.seal(inner, key: sessionKey, nonce: HAPKeys.nonce(label: "PV-Msg03"))
        let m4 = try TLV8(decoding: try await tlv(TLV8([(.state, [3]), (.encryptedData, sealed)])))
        #expect(m4.byte(.state) == 4 && m4[.error] == nil, "pair-verify refused: \(m4)")
        let server = HAPSessionKeys(sharedSecret: shared)
        cipher = HAPSessionCipher(keys: HAPSessionKeys(outbound: server.inbound, inbound: server.outbound))
    }

    private mutating func tlv(_ message: TLV8) async throws -> [UInt8] {
        let (status, body) = try await request("POST", "/pair-verify", body: message.encoded(), contentType: "application/pairing+tlv8")
        #expect(status == 200)
        return body
    }

    /// Sends one request and reads its response: the status and the body.
    mutating func request(
        _ method: String, _ path: String, body: [UInt8] = [], contentType: String = "application/hap+json"
    ) async throws -> (status: Int, body: [UInt8]) {
        var bytes = Array("\(method) \(path) HTTP/1.1\r\nHost: hap\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        bytes += body
        if var cipher {
            bytes = cipher.seal(bytes)
            self.cipher = cipher
        }
        try await outbound.write(ByteBuffer(bytes: bytes))
        return try await response()
    }

    private mutating func response() async throws -> (status: Int, body: [UInt8]) {
        while true {
            if let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                let lines = head.split(separator: "\r\n")
                let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
                let length = lines.compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
                if received.count >= end.upperBound + length {
                    let body = Array(received[end.upperBound..<end.upperBound + length])
                    received.removeFirst(end.upperBound + length)
                    return (status, body)
                }
            }
            guard var chunk = try await inbound.next() else { throw Closed() }
            let bytes = chunk.readBytes(length: chunk.readableBytes) ?? []
            if var cipher {
                sealed += bytes
                received += try cipher.open(&sealed)  // a partial frame stays in `sealed`
                self.cipher = cipher
            } else {
                received += bytes
            }
        }
    }
}

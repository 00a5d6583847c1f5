import Testing

@testable import Matter

@Suite("Matter message layer")
struct MessageTests {
    @Test("message headers round-trip with and without node ids")
    func messageHeaderRoundTrip() throws {
        let headers = [
            MessageHeader(sessionID: 0, messageCounter: 7, sourceNodeID: 0x1122_3344_5566_7788),
            MessageHeader(sessionID: 0x1234, messageCounter: 0xFFFF_FFFF, destination: .node(42)),
            MessageHeader(sessionID: 9, securityFlags: 0x01, messageCounter: 1, sourceNodeID: 3, destination: .group(0xABCD)),
        ]
        for header in headers {
            let bytes = header.encoded() + [0xEE]
            let (decoded, length) = try MessageHeader.decode(bytes)
            #expect(decoded == header)
            #expect(length == bytes.count - 1)
        }
        #expect(
            MessageHeader(sessionID: 0x1234, messageCounter: 1, sourceNodeID: 2).encoded()
                == hex("04 34 12 00 01 00 00 00 02 00 00 00 00 00 00 00"))
    }

    @Test(
        "message headers that are short, of another version or with a reserved destination size are refused",
        arguments: [
            "", "00 00", "04 00 00 00 01 00 00 00 02", "10 00 00 00 01 00 00 00", "03 00 00 00 01 00 00 00", "00 00 00 80 01 00 00 00",
        ])
    func refusesMalformedHeaders(bytes: String) {
        #expect(throws: MatterError.self) { try MessageHeader.decode(hex(bytes)) }
    }

    @Test("protocol headers round-trip with an acknowledgement and a vendor protocol")
    func protocolHeaderRoundTrip() throws {
        let header = ProtocolHeader(
            isInitiator: true, needsAcknowledgement: true, acknowledgedCounter: 0xDEAD_BEEF, opcode: 0x20, exchangeID: 0x4321,
            protocolID: ProtocolID(vendor: 0xFFF1, number: 3))
        let (decoded, payload) = try ProtocolHeader.decode(header.encoded() + [1, 2])
        #expect(decoded == header)
        #expect(payload == [1, 2])
        let standard = ProtocolHeader(
            isInitiator: false, needsAcknowledgement: false, opcode: 0x40, exchangeID: 1, protocolID: .secureChannel)
        #expect(standard.encoded() == hex("00 40 01 00 00 00"))
        #expect(throws: MatterError.self) { try ProtocolHeader.decode(hex("02 40 01 00 00 00 01")) }
    }

    @Test("status reports encode general code, protocol and protocol code little-endian")
    func statusReport() throws {
        let failure = StatusReport(.failure, code: .invalidParameter)
        #expect(failure.encoded() == hex("01 00 00 00 00 00 02 00"))
        #expect(try StatusReport.decode(failure.encoded()) == failure)
        #expect(throws: MatterError.self) { try StatusReport.decode([1, 0]) }
    }

    @Test("an encrypted session's window takes new counters once and refuses old ones")
    func encryptedWindow() {
        var window = ReceptionWindow(allowsRollover: false)
        #expect(window.receive(100) == .new)
        #expect(window.receive(100) == .duplicate)
        #expect(window.receive(102) == .new)
        #expect(window.receive(101) == .new)
        #expect(window.receive(101) == .duplicate)
        #expect(window.receive(140) == .new)
        #expect(window.receive(108) == .new)  // 32 behind: still in the window
        #expect(window.receive(107) == .duplicate)  // 33 behind: too old
        #expect(window.receive(102) == .duplicate)
    }

    @Test("the window follows the counter across 2^32 and an unencrypted peer may restart")
    func rolloverAndRestart() {
        var window = ReceptionWindow(allowsRollover: false)
        #expect(window.receive(0xFFFF_FFFF) == .new)
        #expect(window.receive(1) == .new)
        #expect(window.receive(0xFFFF_FFFF) == .duplicate)
        var unencrypted = ReceptionWindow(allowsRollover: true)
        #expect(unencrypted.receive(5000) == .new)
        #expect(unencrypted.receive(10) == .new)
        #expect(unencrypted.receive(10) == .duplicate)
    }

    @Test("MRP backs off by the specification's formula")
    func backoff() {
        let base = Duration.milliseconds(300)
        #expect(MRPParameters.backoff(base: base, transmission: 0, jitter: 0) == base * 1.1)
        #expect(MRPParameters.backoff(base: base, transmission: 1, jitter: 0) == base * 1.1)
        #expect(MRPParameters.backoff(base: base, transmission: 2, jitter: 0) == base * (1.1 * 1.6))
        #expect(MRPParameters.backoff(base: base, transmission: 3, jitter: 1) == base * (1.1 * 1.6 * 1.6 * 1.25))
    }

    @Test("MRP resends at each deadline, stops on the acknowledgement, and gives up after five transmissions")
    func retransmissionTable() {
        let start = ContinuousClock.now
        var table = RetransmissionTable<String>()
        let first = RetransmissionTable<String>.Key(session: 0, counter: 1)
        let second = RetransmissionTable<String>.Key(session: 0, counter: 2)
        let otherSession = RetransmissionTable<String>.Key(session: 7, counter: 2)
        table.sent(first, datagram: [1], to: "peer", baseInterval: .milliseconds(300), now: start, jitter: 0)
        table.sent(second, datagram: [2], to: "peer", baseInterval: .milliseconds(300), now: start, jitter: 0)
        #expect(table.due(now: start + .milliseconds(329), jitter: 0).resend.isEmpty)
        let elsewhere = table.acknowledged(otherSession)  // the same counter on another session is another message
        let acknowledged = table.acknowledged(second)
        let again = table.acknowledged(second)
        #expect(!elsewhere && acknowledged && !again)
        var now = start + .milliseconds(330)
        var sends = 1
        while true {
            let (resend, expired) = table.due(now: now, jitter: 0)
            if !expired.isEmpty {
                #expect(expired == [first])
                break
            }
            #expect(resend.map(\.datagram) == [[1]])
            sends += resend.count
            now = table.nextDeadline ?? now
        }
        #expect(sends == MRPParameters.maximumTransmissions)
        #expect(table.entries.isEmpty)
    }
}

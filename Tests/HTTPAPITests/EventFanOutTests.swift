import Foundation
import GatewayCore
import HomeModel
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Synchronization
import Testing

@testable import HTTPAPI

/// The live event stream's fan-out on test channels (no socket, no gateway): what each client is
/// sent, byte for byte; who is cut off and when, on the test loop's clock.
@Suite("The event stream's fan-out: each event made once, the same bytes to every client; a client that falls behind cut off alone")
struct EventFanOutTests {
    static let time = Date(timeIntervalSince1970: 1_800_000_000)
    static let formatted = "2027-01-15T08:00:00.000Z"

    static func reading(_ value: Double, accessory: String = "bulb") -> StreamEvent {
        let change = CharacteristicChange(
            accessory: accessory, service: "lightbulb", characteristic: "brightness", value: .float(value), previous: nil, source: .device)
        return StreamEvent(.characteristic(change), time: time, formatted: formatted)
    }

    static func frames(_ events: [StreamEvent]) -> [EventFrames] {
        events.map { EventFrames($0, serverSent: true, socket: true, allocator: ByteBufferAllocator()) }
    }

    /// The JSON a WebSocket message carries as `data`, as bytes.
    static func socketData(_ frame: ByteBuffer) -> [UInt8] {
        var frame = frame
        let length = Int(frame.getInteger(at: frame.readerIndex + 1, as: UInt8.self)! & 0x7f)
        frame.moveReaderIndex(forwardBy: length == 126 ? 4 : 2)
        let text = frame.readBytes(length: frame.readableBytes)!
        let prefix = Array(#"{"event":"characteristic","data":"#.utf8)
        #expect(Array(text.prefix(prefix.count)) == prefix && text.last == UInt8(ascii: "}"))
        return Array(text.dropFirst(prefix.count).dropLast())
    }

    @Test("Server-Sent Events and WebSocket carry the event's JSON as MQTT has it, byte for byte, made once per event")
    func sameBytes() {
        let event = Self.reading(42.5)
        let frames = Self.frames([event])[0]
        let mqtt = HomeJSON.eventPayload(event.event, time: Self.formatted)
        #expect(event.payload == mqtt)
        #expect(Array(frames.serverSent.readableBytesView) == Array("event: characteristic\ndata: ".utf8) + mqtt + Array("\n\n".utf8))
        #expect(Self.socketData(frames.socket) == mqtt)
        // A form no client takes is not made.
        let only = EventFrames(event, serverSent: false, socket: true, allocator: ByteBufferAllocator())
        #expect(only.serverSent.readableBytes == 0 && only.socket == frames.socket)
    }

    @Test("the step's JSON is handed on as it is, and an idle sink is passed by")
    func broadcastPassesRenderedJSON() {
        let broadcast = EventBroadcast()
        let sink = RecordingSink()
        broadcast.attach(sink)
        let change = CharacteristicChange(accessory: "a", service: "s", characteristic: "c", value: .int(1), previous: nil, source: .api)
        let rendered = Array(#"{"already":"written"}"#.utf8)
        broadcast.publish([StreamEvent(.characteristic(change), time: Self.time, payload: rendered)])
        #expect(sink.received.map(\.payload) == [rendered])
        sink.idle = true
        broadcast.publish([StreamEvent(.characteristic(change), time: Self.time, payload: rendered)])
        #expect(sink.received.count == 1)
        broadcast.close()
        #expect(sink.closed)
    }

    @Test("WebSocket: every client gets each event's one frame; one that takes nothing is cut off (1008) after `capacity`, alone")
    func socketCutOff() async throws {
        let fanOut = SocketFanOut(capacity: 5, logger: Logger(label: "test"))
        let reader = try await Self.socketConnection()
        let stuck = try await Self.socketConnection(held: true)
        let filter = EventFilter(accessories: ["bulb"])
        let readerMember = try #require(await fanOut.add(reader.channel, filter: filter))
        _ = try #require(await fanOut.add(stuck.channel, filter: EventFilter()))
        #expect(fanOut.counts.clients == 2)

        var sent: [EventFrames] = []
        for i in 0..<8 {
            let batch = Self.frames([Self.reading(Double(i), accessory: "lamp"), Self.reading(Double(i))])
            sent += batch
            fanOut.deliver(batch)
            await reader.channel.testingEventLoop.run()
            await stuck.channel.testingEventLoop.run()
        }
        let bulb = sent.filter { $0.event.accessory == "bulb" }
        #expect(try await reader.written() == bulb.map(\.socket), "the reader has every bulb event, in order, nothing else")

        // The stuck client had 5 unsent after the third batch's lamp and bulb: the next one cut it off.
        #expect(fanOut.counts.clients == 1 && fanOut.counts.dropped == 1)
        try await stuck.release()
        var expected = sent.prefix(5).map(\.socket)
        expected.append(EventFrames.closeFrame(1008, reason: "fell 5 events behind", allocator: ByteBufferAllocator()))
        #expect(try await stuck.written() == expected)
        // Once its close frame is sent, the connection ends.
        await stuck.channel.testingEventLoop.run()
        #expect(try await !stuck.isActive)
        #expect(fanOut.counts.delivered == 8 + 5)

        // A client whose connection ends is gone at once, with nothing of it left to write to.
        try await reader.channel.close()
        await reader.channel.testingEventLoop.run()
        #expect(fanOut.counts.clients == 0 && fanOut.isIdle)
        fanOut.remove(readerMember)  // its task's own removal comes after: no harm
        await reader.channel.testingEventLoop.run()
        #expect(fanOut.counts.clients == 0)
    }

    @Test("WebSocket: a client that stops reading is closed 15 s after it is cut off, even if its close frame never goes")
    func socketDeadline() async throws {
        let fanOut = SocketFanOut(capacity: 2, logger: Logger(label: "test"))
        let stuck = try await Self.socketConnection(held: true)
        _ = try #require(await fanOut.add(stuck.channel, filter: EventFilter()))
        fanOut.deliver(Self.frames((0..<3).map { Self.reading(Double($0)) }))
        await stuck.channel.testingEventLoop.run()
        #expect(fanOut.counts.dropped == 1)
        await stuck.channel.testingEventLoop.advanceTime(by: .seconds(14))
        #expect(try await stuck.isActive)
        await stuck.channel.testingEventLoop.advanceTime(by: .seconds(1))
        #expect(try await !stuck.isActive)
    }

    @Test("the gateway stops: every WebSocket client's task is told, and a client added after is refused")
    func socketClose() async throws {
        let fanOut = SocketFanOut(capacity: 5, logger: Logger(label: "test"))
        let client = try await Self.socketConnection()
        let member = try #require(await fanOut.add(client.channel, filter: EventFilter()))
        fanOut.close()
        await client.channel.testingEventLoop.run()
        for await _ in member.stopped {}
        let late = try await Self.socketConnection()
        #expect(await fanOut.add(late.channel, filter: EventFilter()) == nil)
    }

    @Test("a connection without hummingbird-websocket's frame encoder is refused, not written to below something else")
    func socketWithoutEncoder() async throws {
        let fanOut = SocketFanOut(capacity: 5, logger: Logger(label: "test"))
        let bare = try await Self.connection()
        #expect(await fanOut.add(bare, filter: EventFilter()) == nil)
        #expect(fanOut.isIdle)
    }

    @Test("Server-Sent Events: one stream per client; one that reads nothing is cut off after `capacity` with what waited, alone")
    func serverSentCutOff() async throws {
        let clients = ServerSentEventClients(capacity: 3, logger: Logger(label: "test"))
        let readerConnection = try await Self.connection()
        let stuckConnection = try await Self.connection()
        let reader = clients.add(EventFilter(accessories: ["bulb"]), connection: readerConnection)
        let stuck = clients.add(EventFilter(), connection: stuckConnection)
        var read = reader.frames.makeAsyncIterator()
        var sent: [EventFrames] = []
        for i in 0..<5 {
            let batch = Self.frames([Self.reading(Double(i), accessory: "lamp"), Self.reading(Double(i))])
            sent += batch
            clients.deliver(batch)
            let next = await read.next()
            #expect(next == batch[1].serverSent)
        }
        #expect(clients.counts.clients == 1 && clients.counts.dropped == 1 && clients.counts.delivered == 5 + 3)
        var waited: [ByteBuffer] = []
        for await frame in stuck.frames { waited.append(frame) }
        #expect(waited == sent.prefix(3).map(\.serverSent) && stuck.ending.isCutOff && !reader.ending.isCutOff)

        // Its connection is closed 15 s later unless its response has ended; the reader's keeps
        // its keepalive comment every 15 s.
        await stuckConnection.testingEventLoop.advanceTime(by: .seconds(15))
        #expect(try await !stuckConnection.isActiveAsync())
        await readerConnection.testingEventLoop.advanceTime(by: .seconds(15))
        let tick = await read.next()
        #expect(tick == ServerSentEventClients.keepalive)
        #expect(try await readerConnection.isActiveAsync())
    }

    @Test("Server-Sent Events: a client whose response stops reading is forgotten; the gateway stopping ends every stream")
    func serverSentLeaveAndClose() async throws {
        let clients = ServerSentEventClients(capacity: 3, logger: Logger(label: "test"))
        let connection = try await Self.connection()
        let leaving = clients.add(EventFilter(), connection: connection)
        let reading = Task { for await _ in leaving.frames {} }
        #expect(clients.counts.clients == 1)
        reading.cancel()
        await reading.value
        #expect(clients.counts.clients == 0 && clients.isIdle)

        let staying = clients.add(EventFilter(), connection: connection)
        clients.deliver(Self.frames([Self.reading(1)]))
        clients.close()
        var got = 0
        for await _ in staying.frames { got += 1 }
        #expect(got == 1 && !staying.ending.isCutOff && clients.counts.clients == 0)
        var late = clients.add(EventFilter(), connection: connection).frames.makeAsyncIterator()
        let none = await late.next()
        #expect(none == nil)
    }
}

extension EventFanOutTests {
    static func connection() async throws -> NIOAsyncTestingChannel {
        let channel = NIOAsyncTestingChannel()
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1))
        return channel
    }

    /// A connection as hummingbird-websocket leaves it after the upgrade (its frame encoder in the
    /// pipeline) with, nearest the socket, a hold: while held, nothing written is taken, as for a
    /// client that stopped reading.
    static func socketConnection(held: Bool = false) async throws -> TestSocket {
        let channel = try await connection()
        let hold = try await channel.testingEventLoop.executeInContext {
            let hold = HoldHandler(holding: held)
            try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())
            try channel.pipeline.syncOperations.addHandler(hold, position: .first)
            return NIOLoopBound(hold, eventLoop: channel.eventLoop)
        }
        return TestSocket(channel: channel, hold: hold)
    }
}

struct TestSocket {
    let channel: NIOAsyncTestingChannel
    let hold: NIOLoopBound<HoldHandler>

    /// Everything that has reached the socket so far.
    func written() async throws -> [ByteBuffer] {
        var all: [ByteBuffer] = []
        while let buffer = try await channel.readOutbound(as: ByteBuffer.self) { all.append(buffer) }
        return all
    }

    /// Lets what was held go on to the socket, and all after it.
    func release() async throws { try await channel.testingEventLoop.executeInContext { hold.value.release() } }

    var isActive: Bool { get async throws { try await channel.isActiveAsync() } }
}

/// Nearest the socket: while holding, what is written stays here unsent, its promise open.
final class HoldHandler: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    private var holding: Bool
    private var held: [(NIOAny, EventLoopPromise<Void>?)] = []
    private var context: ChannelHandlerContext?

    init(holding: Bool) { self.holding = holding }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if holding { held.append((data, promise)) } else { context.write(data, promise: promise) }
    }

    func flush(context: ChannelHandlerContext) { if !holding { context.flush() } }

    func release() {
        holding = false
        for (data, promise) in held { context?.write(data, promise: promise) }
        held = []
        context?.flush()
    }
}

extension NIOAsyncTestingChannel {
    func isActiveAsync() async throws -> Bool { try await testingEventLoop.executeInContext { self.isActive } }
}

/// A sink that keeps what it is handed.
final class RecordingSink: EventSink {
    private let state = Mutex<(received: [StreamEvent], idle: Bool, closed: Bool)>(([], false, false))
    var received: [StreamEvent] { state.withLock { $0.received } }
    var closed: Bool { state.withLock { $0.closed } }
    var idle: Bool {
        get { state.withLock { $0.idle } }
        set { state.withLock { $0.idle = newValue } }
    }
    var isIdle: Bool { idle }
    func receive(_ events: [StreamEvent]) { state.withLock { $0.received += events } }
    func close() { state.withLock { $0.closed = true } }
    var counts: (clients: Int, dropped: Int, delivered: Int) { (0, 0, 0) }
}

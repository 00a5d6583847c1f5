public import Logging
import NIOCore
import NIOPosix
public import ServiceLifecycle
import Synchronization

/// The Matter node on UDP as a `Service`: one socket on `::` (IPv6, and IPv4 through mapped
/// addresses), datagrams handed to the `MessageDispatcher`, MRP retransmissions on a short timer.
public final class MatterServer: Service, Sendable {
    public let port: Int
    let logger: Logger
    private let dispatcher: Mutex<MessageDispatcher<SocketAddress>>
    private let boundPort = Mutex<Int?>(nil)
    private let node: MatterNode?
    /// How often the retransmission table is looked at: well under MRP's shortest wait (330 ms).
    static let retransmissionCheck: Duration = .milliseconds(20)

    /// A node answering with `node` (or, for tests, any `application`).
    public init(
        port: Int, verifier: PASEVerifier, node: MatterNode? = nil, application: MatterApplication? = nil,
        logger: Logger = Logger(label: "matter")
    ) {
        self.port = port
        self.logger = logger
        self.node = node
        var dispatcher = MessageDispatcher<SocketAddress>(verifier: verifier, logger: logger)
        if let application {
            dispatcher.application = application
        } else if let node {
            dispatcher.application = { @Sendable in node.respond(to: $0, payload: $1, session: $2) }
        }
        if let node {
            dispatcher.fabrics = { node.fabrics }
            dispatcher.commissioningVerifier = { node.commissioningVerifier(default: $0) }
        }
        self.dispatcher = Mutex(dispatcher)
    }

    /// The port the node listens on once `run()` has bound it.
    public func listeningPort() -> Int? {
        boundPort.withLock { $0 }
    }

    public func run() async throws {
        let channel: NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>
        do {
            channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                .channelOption(ChannelOptions.Types.SocketOption(level: .ipv6, name: .ipv6_v6only), value: 0)
                .bind(host: "::", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>(
                            wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw MatterError.listen("UDP [::]:\(port): \(error)")
        }
        boundPort.withLock { $0 = channel.channel.localAddress?.port }
        logger.info("Matter node listening", metadata: ["port": "\(channel.channel.localAddress?.port ?? port)"])
        try await channel.executeThenClose { inbound, outbound in
            try await withGracefulShutdownHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await self.retransmit(outbound) }
                    if let node {
                        // A change is reported at once, not at the next look (when the subscription's floor allows).
                        group.addTask {
                            for await _ in node.changes {
                                try await self.send(self.dueReports(node, now: .now), on: outbound)
                            }
                        }
                    }
                    for try await envelope in inbound {
                        let replies = dispatcher.withLock {
                            $0.receive(Array(buffer: envelope.data), from: envelope.remoteAddress, now: .now)
                        }
                        try await send(replies, on: outbound)
                    }
                    group.cancelAll()
                }
            } onGracefulShutdown: {
                channel.channel.close(promise: nil)
            }
        }
        logger.info("Matter node stopped")
    }

    private func retransmit(_ outbound: NIOAsyncChannelOutboundWriter<AddressedEnvelope<ByteBuffer>>) async throws {
        while !Task.isCancelled {
            try await Task.sleep(for: Self.retransmissionCheck)
            let now = ContinuousClock.now
            var due: [Outgoing<SocketAddress>] = []
            if let node {
                node.tick(now: now)
                due = dueReports(node, now: now)
            }
            due += dispatcher.withLock { $0.tick(now: now) }
            try await send(due, on: outbound)
        }
    }

    /// The node's subscription reports due at `now`, each on a new exchange of its session; first the
    /// sessions of fabrics the node no longer belongs to end (their subscriptions with them).
    private func dueReports(_ node: MatterNode, now: ContinuousClock.Instant) -> [Outgoing<SocketAddress>] {
        let fabrics = Set(node.fabrics.map(\.index))
        let live = dispatcher.withLock {
            $0.closeSessions(ofFabricsOtherThan: fabrics)
            return Set($0.sessions.keys)
        }
        return node.dueReports(now: now, liveSessions: live).compactMap { report in
            dispatcher.withLock {
                $0.initiate(on: report.sessionID, protocolID: .interactionModel, opcode: report.opcode, payload: report.payload, now: now)
            }
        }
    }

    /// Sends each datagram; one that cannot go out (an unreachable peer) is logged, not fatal to the node.
    private func send(
        _ messages: [Outgoing<SocketAddress>], on outbound: NIOAsyncChannelOutboundWriter<AddressedEnvelope<ByteBuffer>>
    ) async throws {
        for message in messages {
            do {
                try await outbound.write(AddressedEnvelope(remoteAddress: message.peer, data: ByteBuffer(bytes: message.datagram)))
            } catch {
                try Task.checkCancellation()
                logger.debug("a datagram could not be sent", metadata: ["peer": "\(message.peer)", "reason": "\(error)"])
            }
        }
    }
}

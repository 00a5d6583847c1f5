import GatewayCore
import NIOCore

/// One WebSocket client of the event stream, as a handler of its own in its connection's pipeline,
/// just below the frame encoder: the whole frames it writes go on towards the socket next to those
/// the encoder makes (pongs, the close), with no copy per client. Touched on its event loop only.
final class EventSocketHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let id: UInt64
    let filter: EventFilter
    /// Ends when the gateway stops (not when the client is cut off: then its connection ends).
    let stop: AsyncStream<Never>.Continuation
    /// Told when the handler leaves the pipeline (the connection has closed).
    private let removed: @Sendable (UInt64) -> Void
    private var context: ChannelHandlerContext?
    /// Events written and not yet taken by the connection.
    private(set) var unsent = 0

    init(id: UInt64, filter: EventFilter, stop: AsyncStream<Never>.Continuation, removed: @escaping @Sendable (UInt64) -> Void) {
        self.id = id
        self.filter = filter
        self.stop = stop
        self.removed = removed
    }

    /// Who it is, for the log.
    var peer: String { context?.channel.peer ?? "?" }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        removed(id)
    }

    /// The frames of the events its filter wants, in order, as many as keep it under `capacity`
    /// unsent: the last with a promise that stands for them all (writes complete in order), then
    /// one flush. Returns how many it wrote, and whether all it wanted fitted.
    func send(_ events: [EventFrames], capacity: Int) -> (written: Int, fitted: Bool) {
        guard let context else { return (0, true) }
        var held: ByteBuffer?
        var written = 0
        var fitted = true
        // By index: each event is read in place, not copied (and retained) once per client.
        for index in events.indices where filter.matches(events[index].event) {
            guard unsent + written < capacity else {
                fitted = false
                break
            }
            if let held { context.write(wrapOutboundOut(held), promise: nil) }
            held = events[index].socket
            written += 1
        }
        guard let held else { return (0, fitted) }
        unsent += written
        let done = context.eventLoop.makePromise(of: Void.self)
        done.futureResult.assumeIsolated().whenComplete { [written] _ in self.unsent -= written }
        context.writeAndFlush(wrapOutboundOut(held), promise: done)
        return (written, fitted)
    }

    /// No more events: a close frame (1008, `reason`) after those it has, and the connection
    /// closed once that is sent or 15 s have passed.
    func cutOff(reason: String) {
        guard let context else { return }
        let channel = context.channel
        let sent = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(EventFrames.closeFrame(1008, reason: reason, allocator: channel.allocator)), promise: sent)
        let deadline = context.eventLoop.scheduleTask(in: .seconds(15)) { channel.close(promise: nil) }
        sent.futureResult.whenComplete { _ in
            deadline.cancel()
            channel.close(promise: nil)
        }
    }
}

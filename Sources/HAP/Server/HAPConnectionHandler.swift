import Logging
import NIOCore
import NIOHTTP1

/// One controller connection: assembles requests, answers them one at a time in order, slides
/// the session cipher in after pair-verify, and writes events between responses, when
/// `HAPEventGathering` says.
final class HAPConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    private var state: HAPConnectionState
    private let submit: @Sendable (HAPJob) -> Bool
    private let registry: HAPConnectionRegistry
    private let configuration: HAPServerConfiguration
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private var loopBound: NIOLoopBound<HAPConnectionHandler>?

    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var bodyTooLarge = false
    private var queue: [(request: HAPRequest, keepAlive: Bool)] = []
    private var inFlight = false
    private var closing = false

    static let maxQueuedRequests = 32

    private var events: HAPEventGathering
    private var flushTimer: Scheduled<Void>?
    private var flushTimerDeadline: ContinuousClock.Instant?

    init(
        id: HAPConnectionID, registry: HAPConnectionRegistry, configuration: HAPServerConfiguration, logger: Logger,
        submit: @escaping @Sendable (HAPJob) -> Bool
    ) {
        state = HAPConnectionState(id: id)
        self.registry = registry
        self.configuration = configuration
        self.logger = logger
        self.submit = submit
        events = HAPEventGathering(window: configuration.eventCoalescingDelay)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        loopBound = bound
        registry.add(state.id, channel: context.channel, handler: bound)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        flushTimer?.cancel()
        registry.remove(state.id)
        self.context = nil
        loopBound = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        registry.remove(state.id)
        flushTimer?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body = []
            bodyTooLarge = false
        case .body(var chunk):
            if body.count + chunk.readableBytes > configuration.maxBodyBytes {
                bodyTooLarge = true
            } else {
                body += chunk.readBytes(length: chunk.readableBytes) ?? []
            }
        case .end:
            guard let requestHead = head else { return }
            head = nil
            registry.heardFrom(state.id)
            if bodyTooLarge {
                respondAndClose(context: context, .status(.outOfResources, http: 413))
                return
            }
            // Controllers wait for each answer; a peer that pipelines without end is not one.
            guard queue.count < HAPConnectionHandler.maxQueuedRequests else {
                respondAndClose(context: context, .status(.outOfResources, http: 503))
                return
            }
            queue.append((HAPRequest(head: requestHead, body: body), requestHead.isKeepAlive))
            body = []
            processNext()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError {
            respondAndClose(context: context, .status(.invalidValue, http: 400))
        } else {
            logger.debug("connection error: \(error)", metadata: ["connection": "\(state.id)"])
            context.close(promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            logger.debug("closing an idle connection that has not pair-verified", metadata: ["connection": "\(state.id)"])
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func respondAndClose(context: ChannelHandlerContext, _ response: HAPResponse) {
        closing = true
        queue.removeAll()
        let bytes = response.serialized(closing: true)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(bytes: bytes))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    private func processNext() {
        guard !inFlight, !closing, !queue.isEmpty, let loopBound else { return }
        let (request, keepAlive) = queue.removeFirst()
        inFlight = true
        let eventLoop = loopBound.eventLoop
        let job = HAPJob(request: request, state: state) { outcome in
            eventLoop.execute { loopBound.value.finish(outcome, keepAlive: keepAlive) }
        }
        if !submit(job) {
            inFlight = false
            if let context { respondAndClose(context: context, .status(.resourceBusy, http: 503)) }
        }
    }

    private func finish(_ outcome: HAPOutcome, keepAlive: Bool) {
        inFlight = false
        guard let context, !closing else { return }
        if let newState = outcome.state { state = newState }
        let closeNow = outcome.closeAfterResponse || !keepAlive
        let bytes = outcome.response.serialized(closing: closeNow)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
        if let keys = outcome.sessionKeys, let session = state.session {
            // The M4 answer above went out in plaintext; everything after it is encrypted.
            do {
                try context.pipeline.syncOperations.addHandler(HAPSessionCipherHandler(keys: keys), position: .first)
                // A verified controller's connection stays open however quiet (HAPServerConfiguration.unverifiedIdleTimeout).
                context.pipeline.removeHandler(name: HAPServer.idleHandlerName, promise: nil)
                registry.setController(session.controllerID, for: state.id)
                logger.debug("session verified", metadata: ["connection": "\(state.id)"])
            } catch {
                context.close(promise: nil)
                return
            }
        }
        if closeNow {
            closing = true
            context.close(promise: nil)
            return
        }
        flushEventsIfDue()
        processNext()
    }

    /// Takes the changes this connection subscribed to; `immediate` are the button events among them.
    func enqueueEvents(_ changes: [HAPCharacteristicChange], immediate: Set<HAPCharacteristicID>) {
        guard state.session != nil, !closing else { return }
        events.add(changes.filter { state.subscriptions.contains($0.id) }, presses: immediate)
        flushEventsIfDue()
    }

    private func flushTimerFired() {
        flushTimer = nil
        flushTimerDeadline = nil
        flushEventsIfDue()
    }

    /// Writes what is due, unless a request is being answered: events never come between a request
    /// and its response, they wait for it (`finish` calls this again). What is not due yet gets a
    /// timer for the end of its window.
    private func flushEventsIfDue() {
        guard !closing, let context else { return }
        let now = ContinuousClock.now
        if !inFlight, events.isDue(at: now) {
            let subscriptions = state.subscriptions
            for message in events.take(at: now, subscribed: subscriptions.contains) where !message.isEmpty {
                var json = HAPJSONWriter()
                json.raw("{\"characteristics\":[")
                for (index, entry) in message.enumerated() {
                    if index > 0 { json.raw(",") }
                    json.raw("{\"aid\":\(entry.id.aid),\"iid\":\(entry.id.iid),\"value\":")
                    json.value(entry.value)
                    json.raw("}")
                }
                json.raw("]}")
                let bytes = HAPResponse.json(json.text).serialized(protocolName: "EVENT/1.0")
                context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
            }
            context.flush()
        }
        let deadline = events.deadline(at: now)
        guard deadline != flushTimerDeadline else { return }
        flushTimer?.cancel()
        flushTimer = nil
        flushTimerDeadline = deadline
        if let deadline, let loopBound {
            flushTimer = loopBound.eventLoop.scheduleTask(in: max(.zero, deadline - now).timeAmount) {
                loopBound.value.flushTimerFired()
            }
        }
    }
}

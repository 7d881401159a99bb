import Foundation
import MockCore
import NIOCore
import NIOHTTP1

/// Playing a plan on the wire: its delay on the event loop's `DelayQueue` (never a
/// sleeping thread), then the answer through the connection's `ResponseWriter`: whole,
/// paced, an endless event stream, or a transport fault in its place.
extension HTTPConnectionHandler {
    /// Waits off the event loop for the pipeline's answer from an upstream source, then
    /// plays it on the loop. A client that left meanwhile still has its request journaled
    /// (the pipeline journals it when it is decided).
    func respondLater(_ proxy: any AsyncResponder, to request: MockRequest, head: HTTPRequestHead, context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let pipeline = shared.pipeline
        let promise = context.eventLoop.makePromise(of: (plan: ResponsePlan, exchange: Exchange).self)
        promise.completeWithTask { await pipeline.answer(request, upstream: proxy, target: head.uri) }
        promise.futureResult.whenSuccess { answer in
            let (handler, context) = bound.value
            var plan = answer.plan
            handler.addConnectionSetup(to: &plan)
            handler.inFlight = answer.exchange
            guard context.channel.isActive else {
                handler.finishExchange()
                return
            }
            handler.execute(plan, for: head, context: context, keepAlive: handler.machine.keepsAlive(asked: head.isKeepAlive))
        }
    }

    /// Plays `plan`, after its delay. `keepAlive`: the connection may stay open after it, as
    /// `ConnectionStateMachine.keepsAlive` said when the plan was made.
    func execute(_ plan: ResponsePlan, for request: HTTPRequestHead, context: ChannelHandlerContext, keepAlive: Bool) {
        if plan.fault == .hang {
            machine.hang()
            return
        }
        guard plan.delay > 0 else {
            carryOut(plan, for: request, context: context, keepAlive: keepAlive)
            return
        }
        shared.delays.schedule(at: context.eventLoop.now + .nanoseconds(Int64(plan.delay * 1_000_000_000))) { [self] in
            guard context.channel.isActive else { return }
            // A server that began stopping meanwhile says so on this answer.
            carryOut(plan, for: request, context: context, keepAlive: keepAlive && machine.keepsAlive(asked: true))
        }
    }

    private func carryOut(_ plan: ResponsePlan, for request: HTTPRequestHead, context: ChannelHandlerContext, keepAlive: Bool) {
        // The answer to an upgrade request that does not upgrade closes the connection.
        let keepAlive = keepAlive && !upgradeAsked
        let writer = shared.writer
        let bodyAllowed = plan.status != 304 && plan.status != 204 && !(100..<200).contains(plan.status)
        // A plain whole answer (its whole body, at once) may be one this loop wrote before:
        // its frames or bytes again, whose headers were checked when they were kept.
        let reusable = bodyAllowed && request.method != .HEAD && plan.fault == nil && plan.pacing == nil && plan.stream == nil
            && plan.eventStream == nil && !upgradeAsked
        if reusable, let last = writer.kept(status: plan.status, headers: plan.headers, body: plan.body, request: request,
                                            keepAlive: keepAlive, cache: shared.delays.responses, context: context) {
            send(last, context: context, keepAlive: keepAlive)
            return
        }
        guard writer.canWrite(plan.headers) else {
            carryOut(Self.unwritableHeaders(plan), for: request, context: context, keepAlive: false)
            return
        }
        if upgradeAsked, plan.fault == nil, acceptWebSocket(plan, for: request, context: context) { return }
        if let fault = plan.fault {
            perform(fault, plan: plan, request: request, context: context)
            return
        }
        if plan.eventStream != nil {
            playEventStream(plan, request: request, context: context, keepAlive: keepAlive)
            return
        }
        if let hub = plan.stream {
            stream(hub, plan: plan, request: request, context: context)
            return
        }
        guard !writer.needsFinalStatus || !(100..<200).contains(plan.status) else {
            // An informational status is no final answer on HTTP/2 (RFC 9113 §8.1): say so.
            carryOut(.error(500, "The response's status \(plan.status) is informational: HTTP/2 needs a final status (200-599)"),
                     for: request, context: context, keepAlive: keepAlive)
            return
        }
        let body = bodyAllowed && request.method != .HEAD ? plan.body : Data()
        let contentLength = bodyAllowed ? plan.body.count : nil
        if let pacing = plan.pacing, !body.isEmpty {
            writer.head(status: plan.status, headers: plan.headers, contentLength: contentLength, request: request, keepAlive: keepAlive,
                        context: context)
            writePaced(context.channel.allocator.buffer(data: body), pacing: pacing, context: context, keepAlive: keepAlive)
            return
        }
        let last = writer.whole(status: plan.status, headers: plan.headers, body: body, contentLength: contentLength, request: request,
                                keepAlive: keepAlive, cache: reusable ? shared.delays.responses : nil, context: context)
        send(last, context: context, keepAlive: keepAlive)
    }

    /// A plan whose headers cannot go on the wire (a value with a line break, say) becomes
    /// a 500 that says which, rather than a response that splits into two.
    private static func unwritableHeaders(_ plan: ResponsePlan) -> ResponsePlan {
        let problems = plan.headers.compactMap { HeaderFields.problem(name: $0.name, value: $0.value) }
        return ResponsePlan.error(500, "The response's headers cannot be written: " + problems.joined(separator: "; "))
    }

    /// Writes the last part of an answer; then the next request is answered, or the
    /// connection closes once it is out.
    func send(_ last: NIOAny, context: ChannelHandlerContext, keepAlive: Bool) {
        context.writeAndFlush(last, promise: nil)
        answerEnded(context: context, keepAlive: keepAlive)
    }

    /// Writes `pacing.chunkSize` bytes, waits `pacing.interval`, and so on, then ends. A
    /// part waits for the channel to be writable: a client that stops reading holds the
    /// rest of the body here, not in NIO's buffer.
    func writePaced(_ body: ByteBuffer, pacing: BodyPacing, context: ChannelHandlerContext, keepAlive: Bool) {
        var body = body
        guard context.channel.isActive else { return }
        guard let chunk = body.readSlice(length: min(pacing.chunkSize, body.readableBytes)) else { return }
        let remaining = body
        guard remaining.readableBytes > 0 else {
            send(shared.writer.part(chunk, last: true, openEnded: false, context: context), context: context, keepAlive: keepAlive)
            return
        }
        context.writeAndFlush(shared.writer.part(chunk, last: false, openEnded: false, context: context), promise: nil)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .nanoseconds(Int64(pacing.interval * 1_000_000_000))) {
            let (handler, context) = bound.value
            handler.whenWritable(context: context) {
                handler.writePaced(remaining, pacing: pacing, context: context, keepAlive: keepAlive)
            }
        }
    }

    // MARK: Event streams

    /// Server-sent events: an open-ended body that grows with every event, a comment every
    /// 15 s so proxies keep the connection, until the client goes away.
    private func stream(_ hub: EventHub, plan: ResponsePlan, request: HTTPRequestHead, context: ChannelHandlerContext) {
        shared.writer.head(status: 200, headers: plan.headers, contentLength: nil, request: request, keepAlive: true, context: context)
        writeEvent(Data(": connected\n\n".utf8), context: context)
        machine.startStreaming()
        let loop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        let token = hub.subscribe { frame in
            loop.execute {
                let (handler, context) = bound.value
                handler.writeEvent(frame, context: context)
            }
        }
        let keepAlive = loop.scheduleRepeatedTask(initialDelay: .seconds(15), delay: .seconds(15)) { _ in
            let (handler, context) = bound.value
            handler.writeEvent(Data(": keep-alive\n\n".utf8), context: context)
        }
        subscription = (hub, token, keepAlive)
    }

    /// An event for a subscriber. One that stopped reading (NIO's buffer over the high
    /// water mark on top of a full socket buffer) is dropped rather than buffered for ever;
    /// it reconnects when it reads again, as EventSource clients do.
    private func writeEvent(_ bytes: Data, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        guard context.channel.isWritable else {
            stopStreaming()
            context.close(promise: nil)
            return
        }
        context.writeAndFlush(shared.writer.part(context.channel.allocator.buffer(data: bytes), last: false, openEnded: true, context: context),
                              promise: nil)
    }

    func stopStreaming() {
        guard let subscription else { return }
        subscription.hub.unsubscribe(subscription.token)
        subscription.keepAlive.cancel()
        self.subscription = nil
    }

    // MARK: Faults

    /// A transport fault in place of the answer: the writer shows it as the protocol
    /// carries it (the table is in the Faults article); `hang` writes nothing and leaves
    /// the connection (or stream) open until the client gives up.
    private func perform(_ fault: Fault, plan: ResponsePlan, request: HTTPRequestHead, context: ChannelHandlerContext) {
        guard fault != .hang else {
            machine.hang()
            return
        }
        machine.closeAfterAnswer()
        clock?.stop()
        finishExchange()
        _ = shared.writer.fault(fault, plan: plan, request: request, context: context)
    }
}

import Foundation
import NIOCore
import NIOHTTP1
import Scenarios

/// Carrying out a plan on the wire: delay on the event loop's `DelayQueue` (never a sleeping thread),
/// then the response — whole, paced, or replaced by a transport fault.
extension HTTPRequestHandler {
    /// Waits for an asynchronous answer off the event loop, then journals and writes it
    /// on the loop. A client that left meanwhile still gets its request journaled.
    func respondLater(_ proxy: any AsyncResponder, to request: MockRequest, head: HTTPRequestHead, context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let engine = shared.engine
        let promise = context.eventLoop.makePromise(of: ResponsePlan.self)
        promise.completeWithTask { await proxy.respond(to: request, target: head.uri) }
        promise.futureResult.whenSuccess { answer in
            let (handler, context) = bound.value
            var plan = answer
            handler.addConnectionSetup(to: &plan)
            plan.journalID = engine.record(request, plan)
            handler.inFlight = (plan.journalID, request.receivedAt)
            guard context.channel.isActive else {
                handler.finishTiming()
                return
            }
            handler.execute(plan, for: head, context: context, keepAlive: handler.keepsAlive(head))
        }
    }

    func execute(_ plan: ResponsePlan, for request: HTTPRequestHead, context: ChannelHandlerContext, keepAlive: Bool) {
        if plan.fault == .hang {
            startHanging()
            return
        }
        guard plan.delay > 0 else {
            carryOut(plan, for: request, context: context, keepAlive: keepAlive)
            return
        }
        shared.delays.schedule(at: .now() + .nanoseconds(Int64(plan.delay * 1_000_000_000))) { [self] in
            guard context.channel.isActive else { return }
            carryOut(plan, for: request, context: context, keepAlive: keepAlive)
        }
    }

    private func carryOut(_ plan: ResponsePlan, for request: HTTPRequestHead, context: ChannelHandlerContext, keepAlive: Bool) {
        // A stopping server's last answer on this connection says so.
        let keepAlive = keepAlive && !stopRequested
        let http10 = request.version.major == 1 && request.version.minor == 0
        // The same answer as one this loop wrote before: its bytes again (`ResponseCache`).
        // Only a whole body written at once; its headers were checked when it was kept.
        let bodyAllowed = plan.status != 304 && plan.status != 204 && !(100..<200).contains(plan.status)
        let reusable = plan.fault == nil && plan.stream == nil && plan.pacing == nil && bodyAllowed
            && request.method != .HEAD && ResponseCache.admits(plan.body)
        if reusable {
            if isHTTP2 {
                // On a stream, the frames kept for the same answer; the header check below
                // ran once for them, not on each stream (a stream keeps no lines of its own).
                if let frames = shared.delays.responses.frames(status: plan.status, headers: plan.headers, body: plan.body) {
                    writeOnHTTP2(frames, context: context, keepAlive: keepAlive)
                    return
                }
            } else if let whole = shared.delays.responses.answer(status: plan.status, http10: http10, keepAlive: keepAlive,
                                                          headers: plan.headers, body: plan.body) {
                send(wrapOutboundOut(whole), context: context, keepAlive: keepAlive)
                return
            }
        }
        // One check for every path below that writes the plan's headers (ResponseHead trusts
        // them); lines written before on this connection were checked then.
        let keptLines = shared.requests.headerLines.lines(for: plan.headers)
        guard keptLines != nil || plan.headers.areWritable else {
            carryOut(Self.unwritableHeaders(plan), for: request, context: context, keepAlive: false)
            return
        }
        if let fault = plan.fault {
            perform(fault, plan: plan, request: request, context: context)
            return
        }
        if let hub = plan.stream {
            stream(hub, plan: plan, request: request, context: context)
            return
        }
        let body = bodyAllowed && request.method != .HEAD ? plan.body : Data()
        if isHTTP2 {
            respondOnHTTP2(status: plan.status, headers: plan.headers, body: body, contentLength: bodyAllowed ? plan.body.count : nil,
                           pacing: plan.pacing, context: context, keepAlive: keepAlive)
            return
        }
        let paced = plan.pacing != nil && !body.isEmpty
        let headCapacity = keptLines.map { ResponseHead.capacity(forFieldBytes: $0.readableBytes) } ?? ResponseHead.capacity(for: plan.headers)
        var buffer = context.channel.allocator.buffer(capacity: headCapacity + (paced ? 0 : body.count))
        ResponseHead.writeStatusLine(status: plan.status, http10: http10, into: &buffer)
        var newLines: Range<Int>?
        if let keptLines {
            buffer.writeImmutableBuffer(keptLines)
        } else {
            let start = buffer.writerIndex
            ResponseHead.writeFields(plan.headers, into: &buffer)
            newLines = start..<buffer.writerIndex
        }
        ResponseHead.writeEnd(framing: bodyAllowed ? .length(plan.body.count) : .none, keepAlive: keepAlive, into: &buffer)
        if let pacing = plan.pacing, paced {
            keepLines(newLines, of: buffer, for: plan.headers, context: context)
            context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
            writePaced(context.channel.allocator.buffer(data: body), pacing: pacing, context: context, keepAlive: keepAlive)
            return
        }
        buffer.writeData(body)
        keepLines(newLines, of: buffer, for: plan.headers, context: context)
        if reusable {
            shared.delays.responses.keep(buffer, status: plan.status, http10: http10, keepAlive: keepAlive, headers: plan.headers, body: plan.body)
        }
        send(wrapOutboundOut(buffer), context: context, keepAlive: keepAlive)
    }

    /// Keeps the header lines just written (`range` of the finished `buffer`) for the next
    /// answer on this connection: copied out, so an idle connection holds their bytes, not
    /// the response (a slice would keep its body alive).
    private func keepLines(_ range: Range<Int>?, of buffer: ByteBuffer, for headers: HeaderFields, context: ChannelHandlerContext) {
        guard let range, let written = buffer.getSlice(at: range.lowerBound, length: range.count) else { return }
        var lines = context.channel.allocator.buffer(capacity: written.readableBytes)
        lines.writeImmutableBuffer(written)
        shared.requests.headerLines.keep(lines, for: headers)
    }

    /// A plan whose headers cannot go on the wire (a value with a line break, say) becomes
    /// a 500 that says which, rather than a response that splits into two.
    private static func unwritableHeaders(_ plan: ResponsePlan) -> ResponsePlan {
        let problems = plan.headers.compactMap { HeaderFields.problem(name: $0.name, value: $0.value) }
        return ResponsePlan.error(500, "The response's headers cannot be written: " + problems.joined(separator: "; "))
    }

    /// Writes the last part of a response (bytes, or a frame that ends the stream); then
    /// the next request is answered, or the connection closes once they are out.
    func send(_ last: NIOAny, context: ChannelHandlerContext, keepAlive: Bool) {
        guard !keepAlive else {
            // No future to allocate on the common path.
            context.writeAndFlush(last, promise: nil)
            finishResponse(context: context)
            return
        }
        let written = context.writeAndFlush(last)
        finishClosing()
        written.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
    }

    /// Writes `pacing.chunkSize` bytes, waits `pacing.interval`, and so on, then ends. A
    /// chunk waits for the channel to be writable: a client that stops reading holds the
    /// rest of the body here, not in NIO's buffer.
    func writePaced(_ body: ByteBuffer, pacing: BodyPacing, context: ChannelHandlerContext, keepAlive: Bool) {
        var body = body
        guard context.channel.isActive else { return }
        guard let chunk = body.readSlice(length: min(pacing.chunkSize, body.readableBytes)) else { return }
        let remaining = body
        guard remaining.readableBytes > 0 else {
            send(bodyPart(chunk, last: true), context: context, keepAlive: keepAlive)
            return
        }
        context.writeAndFlush(bodyPart(chunk, last: false), promise: nil)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .nanoseconds(Int64(pacing.interval * 1_000_000_000))) {
            let (handler, context) = bound.value
            handler.whenWritable(context: context) {
                handler.writePaced(remaining, pacing: pacing, context: context, keepAlive: keepAlive)
            }
        }
    }

    // MARK: Event streams

    /// Server-sent events: a chunked body that grows with every event, a comment every
    /// 15 s so proxies keep the connection, until the client goes away.
    private func stream(_ hub: EventHub, plan: ResponsePlan, request: HTTPRequestHead, context: ChannelHandlerContext) {
        if let framing = shared.http2 {
            context.write(framing.head(status: 200, headers: plan.headers, contentLength: nil, endStream: false), promise: nil)
            context.writeAndFlush(bodyPart(context.channel.allocator.buffer(string: ": connected\n\n"), last: false), promise: nil)
        } else {
            var head = context.channel.allocator.buffer(capacity: 256)
            ResponseHead.write(status: 200, headers: plan.headers, framing: .chunked, keepAlive: true, into: &head)
            ResponseHead.chunk(": connected\n\n".utf8, into: &head)
            context.writeAndFlush(wrapOutboundOut(head), promise: nil)
        }
        startStreaming()
        let loop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        let token = hub.subscribe { frame in
            loop.execute {
                let (handler, context) = bound.value
                handler.writeChunk(frame, context: context)
            }
        }
        let keepAlive = loop.scheduleRepeatedTask(initialDelay: .seconds(15), delay: .seconds(15)) { _ in
            let (handler, context) = bound.value
            handler.writeChunk(Data(": keep-alive\n\n".utf8), context: context)
        }
        subscription = (hub, token, keepAlive)
    }

    /// An event for a subscriber. One that stopped reading (NIO's buffer over the high
    /// water mark on top of a full socket buffer) is dropped rather than buffered for ever;
    /// it reconnects when it reads again, as EventSource clients do.
    private func writeChunk(_ bytes: Data, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        guard context.channel.isWritable else {
            stopStreaming()
            context.close(promise: nil)
            return
        }
        guard !isHTTP2 else {
            context.writeAndFlush(bodyPart(context.channel.allocator.buffer(data: bytes), last: false), promise: nil)
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: bytes.count + 16)
        ResponseHead.chunk(bytes, into: &buffer)
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    // MARK: Faults

    private func perform(_ fault: Fault, plan: ResponsePlan, request: HTTPRequestHead, context: ChannelHandlerContext) {
        if let framing = shared.http2 {
            performOnHTTP2(fault, plan: plan, framing: framing, context: context)
            return
        }
        switch fault {
        case .hang:
            startHanging()
        case .emptyResponse:
            finishClosing()
            context.close(promise: nil)
        case .connectionReset:
            finishClosing()
            context.channel.resetConnection()
        case .truncatedBody:
            // The head promises the whole body; half of it arrives, then the connection closes.
            var buffer = context.channel.allocator.buffer(capacity: 256 + plan.body.count)
            ResponseHead.write(status: plan.status, headers: plan.headers, framing: .length(max(plan.body.count, 64)),
                               keepAlive: false, into: &buffer)
            buffer.writeData(plan.body.prefix(plan.body.count / 2))
            writeRaw(buffer, context: context)
        case .malformedChunk:
            var buffer = context.channel.allocator.buffer(capacity: 256)
            let type: HeaderFields = plan.headers["Content-Type"].map { ["Content-Type": $0] } ?? [:]
            ResponseHead.write(status: plan.status, headers: type, framing: .chunked, keepAlive: false, into: &buffer)
            // A chunk-size line that is not hexadecimal.
            buffer.writeStaticString("ZZZ; not-a-size\r\n")
            buffer.writeData(plan.body.prefix(32))
            buffer.writeStaticString("\r\n")
            writeRaw(buffer, context: context)
        case .randomDataThenClose:
            var random = SeededRandom(seed: StableHash.fnv1a64(request.uri), stream: "random-data")
            let bytes = (0..<256).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            writeRaw(context.channel.allocator.buffer(bytes: bytes), context: context)
        }
    }

    /// Bytes as they are, then close.
    private func writeRaw(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
        finishClosing()
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { [channel = context.channel] _ in
            channel.close(promise: nil)
        }
    }

}

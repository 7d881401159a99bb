import Foundation
import NIOCore
import NIOHTTP1
import Scenarios
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Carrying out a plan on the wire: delay on the event loop (never a sleeping thread),
/// then the response — whole, paced, or replaced by a transport fault.
extension HTTPRequestHandler {
    func execute(_ plan: ResponsePlan, for request: HTTPRequestHead, context: ChannelHandlerContext, keepAlive: Bool) {
        if plan.fault == .hang {
            startHanging()
            return
        }
        guard plan.delay > 0 else {
            carryOut(plan, for: request, context: context, keepAlive: keepAlive)
            return
        }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .nanoseconds(Int64(plan.delay * 1_000_000_000))) {
            let (handler, context) = bound.value
            guard context.channel.isActive else { return }
            handler.carryOut(plan, for: request, context: context, keepAlive: keepAlive)
        }
    }

    private func carryOut(_ plan: ResponsePlan, for request: HTTPRequestHead, context: ChannelHandlerContext, keepAlive: Bool) {
        if let fault = plan.fault {
            perform(fault, plan: plan, request: request, context: context)
            return
        }
        if let hub = plan.stream {
            stream(hub, plan: plan, request: request, context: context)
            return
        }
        let bodyAllowed = plan.status != 304 && plan.status != 204 && !(100..<200).contains(plan.status)
        context.write(wrapOutboundOut(.head(responseHead(plan, for: request, keepAlive: keepAlive, bodyAllowed: bodyAllowed))), promise: nil)
        let body = bodyAllowed && request.method != .HEAD ? plan.body : Data()
        if let pacing = plan.pacing, !body.isEmpty {
            context.flush()
            writePaced(context.channel.allocator.buffer(data: body), pacing: pacing, context: context, keepAlive: keepAlive)
            return
        }
        if !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(data: body)))), promise: nil)
        }
        end(context: context, keepAlive: keepAlive)
    }

    private func responseHead(_ plan: ResponsePlan, for request: HTTPRequestHead, keepAlive: Bool, bodyAllowed: Bool) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        for field in plan.headers where !field.name.caseInsensitiveEquals("content-length") {
            headers.add(name: field.name, value: field.value)
        }
        if bodyAllowed { headers.replaceOrAdd(name: "Content-Length", value: String(plan.body.count)) }
        headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let version: HTTPVersion = request.version.major == 1 && request.version.minor == 0 ? .http1_0 : .http1_1
        return HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: plan.status), headers: headers)
    }

    private func end(context: ChannelHandlerContext, keepAlive: Bool) {
        guard !keepAlive else {
            // No future to allocate on the common path.
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            finishResponse()
            return
        }
        let ended = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        finishResponse()
        ended.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
    }

    /// Writes `pacing.chunkSize` bytes, waits `pacing.interval`, and so on, then ends.
    private func writePaced(_ body: ByteBuffer, pacing: BodyPacing, context: ChannelHandlerContext, keepAlive: Bool) {
        var body = body
        guard context.channel.isActive else { return }
        guard let chunk = body.readSlice(length: min(pacing.chunkSize, body.readableBytes)) else { return }
        let remaining = body
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
        guard remaining.readableBytes > 0 else {
            end(context: context, keepAlive: keepAlive)
            return
        }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .nanoseconds(Int64(pacing.interval * 1_000_000_000))) {
            let (handler, context) = bound.value
            handler.writePaced(remaining, pacing: pacing, context: context, keepAlive: keepAlive)
        }
    }

    // MARK: Event streams

    /// Server-sent events: a chunked body that grows with every event, a comment every
    /// 15 s so proxies keep the connection, until the client goes away.
    private func stream(_ hub: EventHub, plan: ResponsePlan, request: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        for field in plan.headers { headers.add(name: field.name, value: field.value) }
        headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: ": connected\n\n")))), promise: nil)
        startStreaming()
        let loop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        let token = hub.subscribe { frame in
            loop.execute {
                let (_, context) = bound.value
                guard context.channel.isActive else { return }
                context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(context.channel.allocator.buffer(data: frame)))), promise: nil)
            }
        }
        let keepAlive = loop.scheduleRepeatedTask(initialDelay: .seconds(15), delay: .seconds(15)) { _ in
            let (_, context) = bound.value
            context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(context.channel.allocator.buffer(string: ": keep-alive\n\n")))), promise: nil)
        }
        subscription = (hub, token, keepAlive)
    }

    // MARK: Faults

    private func perform(_ fault: Fault, plan: ResponsePlan, request: HTTPRequestHead, context: ChannelHandlerContext) {
        switch fault {
        case .hang:
            startHanging()
        case .emptyResponse:
            finishTiming()
            context.close(promise: nil)
        case .connectionReset:
            finishTiming()
            reset(context)
        case .truncatedBody:
            // The head promises the whole body; half of it arrives, then the connection closes.
            let promised = max(plan.body.count, 64)
            var head = statusLine(plan.status) + "Content-Length: \(promised)\r\nConnection: close\r\n"
            for field in plan.headers where !field.name.caseInsensitiveEquals("content-length") && !field.name.caseInsensitiveEquals("connection") {
                head += "\(field.name): \(field.value)\r\n"
            }
            writeRaw(Data((head + "\r\n").utf8) + plan.body.prefix(plan.body.count / 2), context: context)
        case .malformedChunk:
            var head = statusLine(plan.status) + "Transfer-Encoding: chunked\r\nConnection: close\r\n"
            if let type = plan.headers["Content-Type"] { head += "Content-Type: \(type)\r\n" }
            // A chunk-size line that is not hexadecimal.
            writeRaw(Data((head + "\r\nZZZ; not-a-size\r\n").utf8) + plan.body.prefix(32) + Data("\r\n".utf8), context: context)
        case .randomDataThenClose:
            var random = SeededRandom(seed: StableHash.fnv1a64(request.uri), stream: "random-data")
            let bytes = (0..<256).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            writeRaw(Data(bytes), context: context)
        }
    }

    private func statusLine(_ status: Int) -> String {
        let reason = HTTPResponseStatus(statusCode: status).reasonPhrase
        return "HTTP/1.1 \(status) \(reason)\r\n"
    }

    /// Bytes straight to the socket, past the HTTP encoder, then close.
    private func writeRaw(_ data: Data, context: ChannelHandlerContext) {
        finishTiming()
        let buffer = context.channel.allocator.buffer(data: data)
        guard let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self) else {
            context.close(promise: nil)
            return
        }
        encoder.writeAndFlush(NIOAny(buffer)).whenComplete { [channel = context.channel] _ in
            channel.close(promise: nil)
        }
    }

    /// SO_LINGER with a zero timeout makes close() send a TCP RST instead of a FIN.
    private func reset(_ context: ChannelHandlerContext) {
        let channel = context.channel
        guard let provider = channel as? any SocketOptionProvider else {
            channel.close(promise: nil)
            return
        }
        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}

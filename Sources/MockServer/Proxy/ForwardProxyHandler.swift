import Foundation
import MockCore
import NIOCore
import NIOHTTP1
import NIOPosix

/// The proxy port's handler, between NIO's request decoder and the HTTP handler: requests
/// the server answers (origin-form, or absolute-form to a host the mock answers) go on to
/// the HTTP handler without their `Proxy-Authorization`; the others are the proxy's
/// (`ForwardProxyStateMachine`). A `CONNECT` becomes a tunnel, answered here (a mapped host)
/// or glued to the real host (pass-through); an absolute-form request to another host is
/// forwarded; anything else is refused with a JSON reason. Every refusal and every tunnel
/// is journaled through the server's pipeline. While a tunnel is set up (an upstream
/// connecting) nothing more is read from the client.
final class ForwardProxyHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let proxy: ProxyContext
    private let shared: ConnectionShared
    /// The connection's deadlines: a request the proxy takes over is past its head, and a
    /// takeover carried out has none.
    private let clock: ConnectionClock?
    private var machine: ForwardProxyStateMachine
    /// A read asked for while reads were held.
    private var readWithheld = false

    init(proxy: ProxyContext, shared: ConnectionShared, clock: ConnectionClock?) {
        self.proxy = proxy
        self.shared = shared
        self.clock = clock
        machine = ForwardProxyStateMachine(maxBodySize: shared.maxRequestBodySize)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let action: ForwardProxyStateMachine.PartAction
        var part = unwrapInboundIn(data)
        switch part {
        case .head(var head):
            let decision = ForwardProxyStateMachine.decide(head, proxy: proxy)
            // The proxy's credential (the admin token) is for this hop alone: it is neither
            // journaled nor passed on.
            head.headers.remove(name: "proxy-authorization")
            part = .head(head)
            action = machine.receivedHead(head, decision: decision, at: shared.engine.timeSource.now())
            if decision != .pass { clock?.headArrived() }
        case .body(var chunk):
            action = machine.receivedBody(&chunk)
        case .end:
            action = machine.receivedEnd()
        }
        switch action {
        case .pass: context.fireChannelRead(wrapInboundOut(part))
        case .none: break
        case .carryOut(let takeover): carryOut(takeover, context: context)
        }
    }

    func read(context: ChannelHandlerContext) {
        if machine.mayRead { context.read() } else { readWithheld = true }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let event = event as? ConnectionEvent else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        promise?.succeed()
        switch event {
        case .answerEnded:
            if case .carryOut(let takeover) = machine.answerEnded() { carryOut(takeover, context: context) }
        }
    }

    // MARK: Carrying a takeover out

    private func carryOut(_ takeover: ForwardProxyStateMachine.Takeover, context: ChannelHandlerContext) {
        clock?.stop()
        let request = journalRequest(takeover)
        switch takeover.decision {
        case .pass:
            return
        case .refuse(let status, let reason):
            refuse(status, reason, request: request, context: context)
        case .tunnelToMock(let target):
            shared.pipeline.ended(request, ResponsePlan(status: 200, answeredBy: "proxy.connect"))
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: Self.connectionEstablished)), promise: nil)
            becomeTunnel(context: context, handlers: [TunnelStart(target: target, proxy: proxy)])
        case .tunnelThrough(let target):
            connectUpstream(target, request: request, context: context) { handler, context, _, glue in
                handler.shared.pipeline.ended(request, ResponsePlan(status: 200, answeredBy: "proxy.tunnel"))
                context.writeAndFlush(handler.wrapOutboundOut(context.channel.allocator.buffer(string: Self.connectionEstablished)), promise: nil)
                handler.becomeTunnel(context: context, handlers: [IdleStateHandler(allTimeout: handler.proxy.services.limits.idleTimeout), glue])
            }
        case .forward(let target, let originForm):
            forward(to: target, originForm: originForm, takeover: takeover, request: request, context: context)
        }
    }

    /// The request as the journal keeps it.
    private func journalRequest(_ takeover: ForwardProxyStateMachine.Takeover) -> MockRequest {
        shared.requests.begun += 1
        var headers = HeaderFields(fields: takeover.head.headers.map { (name: $0.name, value: $0.value) })
        headers.remove("Proxy-Authorization")
        let host = takeover.head.headers.first(name: "host")
        let baseURL = host.map { MockRequest.isPlainHost($0) ? "http://" + $0 : shared.fallbackBaseURL } ?? shared.fallbackBaseURL
        return MockRequest(method: takeover.head.method.rawValue, uri: takeover.head.uri, headers: headers, body: Data(), baseURL: baseURL,
                           receivedAt: takeover.receivedAt, connection: ConnectionRef(id: shared.requests.id, ordinal: shared.requests.begun))
    }

    static let connectionEstablished = "HTTP/1.1 200 Connection Established\r\n\r\n"

    /// A proxy request refused: a JSON error, journaled as unmatched (nothing answers it,
    /// as a request no route or stub answers), then the connection closes.
    private func refuse(_ status: Int, _ reason: String, request: MockRequest, context: ChannelHandlerContext) {
        var plan = ResponsePlan.error(status, reason)
        if status == 407 { plan.headers.add("Proxy-Authenticate", "Basic realm=\"mock-server\"") }
        let exchange = shared.pipeline.rejected(request, plan).exchange
        var buffer = context.channel.allocator.buffer(capacity: 256 + plan.body.count)
        ResponseHead.write(status: plan.status, headers: plan.headers, framing: .length(plan.body.count), keepAlive: false, into: &buffer)
        buffer.writeData(plan.body)
        context.writeAndFlush(wrapOutboundOut(buffer)).assumeIsolated().whenComplete { _ in
            exchange.finished()
            context.close(promise: nil)
        }
    }

    /// An absolute-form request to a host the mock does not answer, sent on to it
    /// (pass-through) as an origin-form request with `Connection: close`; its answer comes
    /// back unchanged, the connection closes when the upstream's does, and nothing more
    /// the client sends on it goes anywhere.
    private func forward(to target: ProxyTarget, originForm: String, takeover: ForwardProxyStateMachine.Takeover, request: MockRequest,
                         context: ChannelHandlerContext) {
        let head = takeover.head
        let body = takeover.body
        var outgoing = context.channel.allocator.buffer(capacity: 256 + body.readableBytes)
        outgoing.writeString("\(head.method.rawValue) \(originForm) HTTP/1.1\r\nHost: \(target.port == 80 ? Self.urlHost(target.host) : target.authority)\r\n")
        for (name, value) in head.headers where !Self.hopByHop.contains(name.lowercased()) {
            outgoing.writeString("\(name): \(value)\r\n")
        }
        if body.readableBytes > 0 || ["POST", "PUT", "PATCH"].contains(head.method.rawValue) {
            outgoing.writeString("Content-Length: \(body.readableBytes)\r\n")
        }
        outgoing.writeString("Connection: close\r\n\r\n")
        outgoing.writeImmutableBuffer(body)
        let journaled = NIOLoopBoundBox(false, eventLoop: context.eventLoop)
        let pipeline = shared.pipeline
        connectUpstream(target, request: request, context: context, firstAnswer: { first in
            guard !journaled.value else { return }
            journaled.value = true
            pipeline.ended(request, ResponsePlan(status: first.flatMap(Self.statusCode(of:)) ?? 502, answeredBy: "proxy.forward"))
        }) { handler, context, upstream, glue in
            upstream.writeAndFlush(outgoing, promise: nil)
            // One request: the answer comes back, and anything more the client sends on this
            // connection (a pipelined request, perhaps for another host) goes nowhere.
            glue.dropsReads = true
            handler.becomeTunnel(context: context, handlers: [IdleStateHandler(allTimeout: handler.proxy.services.limits.idleTimeout), glue])
        }
    }

    private static func urlHost(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    /// Fields that belong to one connection, not to the request (RFC 9110 7.6.1), and the
    /// ones `forward` writes itself.
    private static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te", "trailer",
        "transfer-encoding", "upgrade", "content-length", "host",
    ]

    /// The status code of an HTTP/1.x status line at the start of `bytes`.
    static func statusCode(of bytes: ByteBuffer) -> Int? {
        guard let line = bytes.getString(at: bytes.readerIndex, length: min(bytes.readableBytes, 12)), line.hasPrefix("HTTP/1."),
              line.count >= 12 else { return nil }
        return Int(line.dropFirst(9).prefix(3))
    }

    /// Opens a connection to `target` on this connection's loop; on success `connected`
    /// gets it and the glue for this side (the upstream side's is installed), on failure
    /// the client gets a 502 naming the reason.
    private func connectUpstream(_ target: ProxyTarget, request: MockRequest, context: ChannelHandlerContext,
                                 firstAnswer: ((ByteBuffer?) -> Void)? = nil,
                                 connected: @escaping (ForwardProxyHandler, ChannelHandlerContext, any Channel, GlueHandler) -> Void) {
        let bound = NIOLoopBound((self, context, connected, firstAnswer), eventLoop: context.eventLoop)
        let limits = proxy.services.limits
        let proxy = proxy
        ClientBootstrap(group: context.eventLoop)
            .connectTimeout(proxy.settings.connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.writeBufferWaterMark, value: .init(low: limits.writeBufferLow, high: limits.writeBufferHigh))
            .connect(host: target.host, port: target.port)
            .whenComplete { result in
                let (handler, context, connected, firstAnswer) = bound.value
                switch result {
                case .failure(let error):
                    handler.refuse(502, "The proxy cannot reach \(target.authority): \(error)", request: request, context: context)
                case .success(let upstream):
                    if proxy.refusesLocalDestinations, let address = upstream.remoteAddress, ProxyContext.isLocal(address) {
                        upstream.close(promise: nil)
                        handler.refuse(403, "\(target.host) is this machine or its link (\(address.ipAddress ?? "")): other machines reach the proxy, so it passes nothing through to local addresses",
                                       request: request, context: context)
                        return
                    }
                    guard context.channel.isActive else {
                        upstream.close(promise: nil)
                        handler.shared.pipeline.ended(request, ResponsePlan(status: 499, answeredBy: "proxy.abandoned"))
                        return
                    }
                    let (ours, theirs) = GlueHandler.matchedPair(firstUpstreamRead: firstAnswer)
                    do {
                        try upstream.pipeline.syncOperations.addHandlers([IdleStateHandler(allTimeout: limits.idleTimeout), theirs])
                    } catch {
                        upstream.close(promise: nil)
                        context.close(promise: nil)
                        return
                    }
                    connected(handler, context, upstream, ours)
                }
            }
    }

    /// Makes this connection a tunnel: `handlers` take its bytes from now on, the bytes the
    /// decoder already read after the request's head first. The HTTP handlers, the decoder
    /// and the clock leave the pipeline (after the current read, whose call stack holds them).
    private func becomeTunnel(context: ChannelHandlerContext, handlers: [any ChannelHandler]) {
        let bound = NIOLoopBound((context, handlers), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (context, handlers) = bound.value
            let pipeline = context.pipeline.syncOperations
            do {
                try pipeline.addHandlers(handlers, position: .last)
                let http = try pipeline.handler(type: HTTPConnectionHandler.self)
                let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                http.clock.map { pipeline.removeHandler($0, promise: nil) }
                pipeline.removeHandler(http, promise: nil)
                pipeline.removeHandler(context: context, promise: nil)
                // Last: the decoder hands the bytes it holds to what follows it then, the tunnel.
                pipeline.removeHandler(decoder, promise: nil)
                // Reads were held while the tunnel was set up; its handlers ask from now on.
                context.channel.read()
            } catch {
                context.close(promise: nil)
            }
        }
    }
}

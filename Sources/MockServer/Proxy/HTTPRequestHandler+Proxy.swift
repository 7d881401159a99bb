import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Scenarios

/// Proxy requests on the proxy port (`ForwardProxy`), taken in order with the connection's
/// other requests: a `CONNECT` becomes a tunnel, answered here (a mapped host) or glued to
/// the real host (pass-through); an absolute-form request is answered as the server's own
/// (a mapped host) or forwarded. Every refusal is a JSON error, journaled, and closes the
/// connection; every `CONNECT` is journaled too, so the journal shows each tunnel. While a
/// tunnel is set up (an upstream connecting) nothing more is read from the client.
extension HTTPRequestHandler {
    /// Handles `request` if it is a proxy request. Returns the request to answer as the
    /// server's own: `request` itself (origin-form), or an absolute-form request to a
    /// mapped host with that host as its base URL; nil when it was handled here.
    func proxyRequest(_ proxy: ProxyContext, _ received: MockRequest, head: HTTPRequestHead, body: ByteBuffer,
                      context: ChannelHandlerContext) -> MockRequest? {
        // The proxy's credential (the admin token) is for this hop alone: it is neither
        // journaled nor passed on.
        var request = received
        request.headers.remove("Proxy-Authorization")
        if head.method == .CONNECT {
            guard proxy.authorizes(head.headers.first(name: "proxy-authorization")) else {
                refuseProxy(407, Self.proxyAuthenticationReason, request: request, head: head, context: context)
                return nil
            }
            switch ProxyTarget.connect(head.uri) {
            case .failure(let problem):
                refuseProxy(400, "Malformed CONNECT request: \(problem.reason)", request: request, head: head, context: context)
            case .success(let target):
                if proxy.isMapped(target.host) {
                    openTunnel(to: target, request: request, proxy: proxy, context: context)
                } else if !proxy.settings.passThrough {
                    refuseProxy(403, proxy.unmappedReason(target), request: request, head: head, context: context)
                } else if let refusal = Self.portRefusal(target, proxy) {
                    refuseProxy(403, refusal, request: request, head: head, context: context)
                } else {
                    tunnelThrough(to: target, request: request, head: head, proxy: proxy, context: context)
                }
            }
            return nil
        }
        guard let absolute = ProxyTarget.absolute(head.uri) else { return request }
        guard proxy.authorizes(head.headers.first(name: "proxy-authorization")) else {
            refuseProxy(407, Self.proxyAuthenticationReason, request: request, head: head, context: context)
            return nil
        }
        switch absolute.target {
        case .failure(let problem):
            refuseProxy(400, "Malformed proxy request: \(problem.reason)", request: request, head: head, context: context)
        case .success(let target):
            if proxy.isMapped(target.host) {
                let defaultPort = absolute.scheme == "https" ? 443 : 80
                return MockRequest(method: request.method, uri: absolute.originForm, headers: request.headers, body: request.body,
                                   baseURL: absolute.scheme + "://" + (target.port == defaultPort ? Self.urlHost(target.host) : target.authority),
                                   receivedAt: request.receivedAt, connection: request.connection)
            } else if !proxy.settings.passThrough {
                refuseProxy(403, proxy.unmappedReason(target), request: request, head: head, context: context)
            } else if absolute.scheme == "https" {
                refuseProxy(400, "An https:// request target goes through a CONNECT tunnel, not in the clear", request: request, head: head, context: context)
            } else if let refusal = Self.portRefusal(target, proxy) {
                refuseProxy(403, refusal, request: request, head: head, context: context)
            } else {
                forward(to: target, originForm: absolute.originForm, request: request, head: head, body: body, proxy: proxy, context: context)
            }
        }
        return nil
    }

    static let proxyAuthenticationReason = "The proxy needs the token given to --admin-token, as Proxy-Authorization: Basic (any user name, the token as password) or Bearer TOKEN"

    private static func urlHost(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    private static func portRefusal(_ target: ProxyTarget, _ proxy: ProxyContext) -> String? {
        guard !proxy.settings.allowedTunnelPorts.contains(target.port) else { return nil }
        let allowed = proxy.settings.allowedTunnelPorts.sorted().map(String.init).joined(separator: ", ")
        return "Port \(target.port) is not allowed: the proxy passes traffic through to ports \(allowed) only; --proxy-allow-port \(target.port) allows it"
    }

    /// A proxy request refused: a JSON error, journaled as unmatched (nothing answers it,
    /// as a request no route or stub answers), then the connection closes.
    private func refuseProxy(_ status: Int, _ reason: String, request: MockRequest, head: HTTPRequestHead, context: ChannelHandlerContext) {
        var plan = ResponsePlan.error(status, reason)
        if status == 407 { plan.headers.add("Proxy-Authenticate", "Basic realm=\"mock-server\"") }
        tunnelPending = false
        state = .responding
        inFlight = (shared.engine.recordRejected(request, plan: plan), request.receivedAt)
        execute(plan, for: head, context: context, keepAlive: false)
    }

    /// Journals a tunnel or a forwarded exchange the proxy carried out (`answeredBy` says which).
    private func journalProxied(_ request: MockRequest, status: Int, answeredBy: String) {
        let id = shared.engine.recordRejected(request, plan: ResponsePlan(status: status, answeredBy: answeredBy))
        shared.completed(id, receivedAt: request.receivedAt)
    }

    static let connectionEstablished = "HTTP/1.1 200 Connection Established\r\n\r\n"

    /// A tunnel to a mapped host, answered here: what the client sends next decides how
    /// (`TunnelStart`: a TLS handshake, or plain HTTP).
    private func openTunnel(to target: ProxyTarget, request: MockRequest, proxy: ProxyContext, context: ChannelHandlerContext) {
        journalProxied(request, status: 200, answeredBy: "proxy.connect")
        startHanging()
        tunnelPending = true
        clock?.stop()
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: Self.connectionEstablished)), promise: nil)
        becomeTunnel(context: context, handlers: [TunnelStart(target: target, proxy: proxy)])
    }

    /// A tunnel to the real host (pass-through): bytes go both ways unchanged.
    private func tunnelThrough(to target: ProxyTarget, request: MockRequest, head: HTTPRequestHead, proxy: ProxyContext,
                               context: ChannelHandlerContext) {
        startHanging()
        tunnelPending = true
        clock?.stop()
        connectUpstream(target, request: request, head: head, proxy: proxy, context: context) { handler, context, upstream, glue in
            handler.journalProxied(request, status: 200, answeredBy: "proxy.tunnel")
            context.writeAndFlush(handler.wrapOutboundOut(context.channel.allocator.buffer(string: Self.connectionEstablished)), promise: nil)
            handler.becomeTunnel(context: context, handlers: [IdleStateHandler(allTimeout: proxy.services.limits.idleTimeout), glue])
        }
    }

    /// An absolute-form request to a host the mock does not answer, sent on to it
    /// (pass-through) as an origin-form request with `Connection: close`; its answer comes
    /// back unchanged, the connection closes when the upstream's does, and nothing more
    /// the client sends on it goes anywhere.
    private func forward(to target: ProxyTarget, originForm: String, request: MockRequest, head: HTTPRequestHead, body: ByteBuffer,
                         proxy: ProxyContext, context: ChannelHandlerContext) {
        startHanging()
        tunnelPending = true
        clock?.stop()
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
        connectUpstream(target, request: request, head: head, proxy: proxy, context: context,
                        firstAnswer: { [self] first in
            guard !journaled.value else { return }
            journaled.value = true
            journalProxied(request, status: first.flatMap(Self.statusCode(of:)) ?? 502, answeredBy: "proxy.forward")
        }) { handler, context, upstream, glue in
            upstream.writeAndFlush(outgoing, promise: nil)
            // One request: the answer comes back, and anything more the client sends on this
            // connection (a pipelined request, perhaps for another host) goes nowhere.
            glue.dropsReads = true
            handler.becomeTunnel(context: context, handlers: [IdleStateHandler(allTimeout: proxy.services.limits.idleTimeout), glue])
        }
    }

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
    private func connectUpstream(_ target: ProxyTarget, request: MockRequest, head: HTTPRequestHead, proxy: ProxyContext,
                                 context: ChannelHandlerContext, firstAnswer: ((ByteBuffer?) -> Void)? = nil,
                                 connected: @escaping (HTTPRequestHandler, ChannelHandlerContext, any Channel, GlueHandler) -> Void) {
        let bound = NIOLoopBound((self, context, connected, firstAnswer), eventLoop: context.eventLoop)
        let limits = proxy.services.limits
        ClientBootstrap(group: context.eventLoop)
            .connectTimeout(proxy.settings.connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.writeBufferWaterMark, value: .init(low: limits.writeBufferLow, high: limits.writeBufferHigh))
            .connect(host: target.host, port: target.port)
            .whenComplete { result in
                let (handler, context, connected, firstAnswer) = bound.value
                switch result {
                case .failure(let error):
                    handler.refuseProxy(502, "The proxy cannot reach \(target.authority): \(error)", request: request, head: head, context: context)
                case .success(let upstream):
                    if proxy.refusesLocalDestinations, let address = upstream.remoteAddress, ProxyContext.isLocal(address) {
                        upstream.close(promise: nil)
                        handler.refuseProxy(403, "\(target.host) is this machine or its link (\(address.ipAddress ?? "")): other machines reach the proxy, so it passes nothing through to local addresses",
                                            request: request, head: head, context: context)
                        return
                    }
                    guard context.channel.isActive else {
                        upstream.close(promise: nil)
                        handler.journalProxied(request, status: 499, answeredBy: "proxy.abandoned")
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
    /// decoder already read after the request's head first. This handler, the decoder and
    /// the clock leave the pipeline (after the current read, whose call stack holds them).
    func becomeTunnel(context: ChannelHandlerContext, handlers: [any ChannelHandler]) {
        let bound = NIOLoopBound((self, context, handlers), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (handler, context, handlers) = bound.value
            let pipeline = context.pipeline.syncOperations
            do {
                try pipeline.addHandlers(handlers, position: .last)
                let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                pipeline.removeHandler(context: context, promise: nil)
                pipeline.removeHandler(decoder, promise: nil)
                if let clock = handler.clock { pipeline.removeHandler(clock, promise: nil) }
                // Reads were held while the tunnel was set up; its handlers ask from now on.
                handler.tunnelPending = false
                context.channel.read()
            } catch {
                context.close(promise: nil)
            }
        }
    }
}

import Foundation
import MockCore
import NIOCore

/// The first handler of a tunnel to a mapped host: its first byte says what the client
/// speaks. A TLS handshake record (0x16) gets the `SecureListener`'s interception (a
/// certificate for the host asked for, then HTTP/2 or HTTP/1.1 by ALPN); anything else
/// gets plain HTTP/1.1. Then it leaves, handing its bytes to what it installed. A client
/// that sends nothing is closed after the head timeout.
final class TunnelStart: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let target: ProxyTarget
    private let proxy: ProxyContext
    private var timeout: Scheduled<Void>?
    private var started = false

    init(target: ProxyTarget, proxy: ProxyContext) {
        self.target = target
        self.proxy = proxy
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timeout = context.eventLoop.scheduleTask(in: proxy.services.limits.headTimeout) {
            bound.value.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeout?.cancel()
        timeout = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            context.close(promise: nil)   // the server is stopping, and nothing was asked yet
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !started else {
            context.fireChannelRead(data)
            return
        }
        let bytes = unwrapInboundIn(data)
        guard let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) else { return }
        started = true
        timeout?.cancel()
        let channel = context.channel
        let services = proxy.services
        do {
            if first == 0x16 {
                guard let secure = proxy.secure, let intercept = secure.intercept else {
                    services.logger.warning("a tunnel to a mapped host started TLS, and the proxy has no TLS (give it a SecureTransport)",
                                            metadata: ["host": "\(target.authority)"])
                    context.close(promise: nil)
                    return
                }
                let fallback = "https://" + target.authority
                // Installs its handlers at once (the TLS handler once the ClientHello's
                // server name is read), so the bytes passed on below reach them.
                let proxy = proxy
                _ = intercept(services.secureConnection(channel, fallbackBaseURL: { fallback }), target.host, { proxy.isMapped($0) })
            } else {
                try services.addHTTP1(channel, scheme: "http", fallbackBaseURL: "http://" + target.authority)
            }
        } catch {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// One side of a pass-through tunnel: what one channel reads, its partner writes, with
/// backpressure both ways (a side stops reading while its partner cannot write), so a tunnel
/// holds at most the write buffers' high water marks. Either side closing, or going idle
/// (`IdleStateHandler`), closes both.
final class GlueHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var partner: GlueHandler?
    private var context: ChannelHandlerContext?
    private var pendingRead = false
    /// What this side reads goes nowhere (the client of a forwarded request, which is one
    /// request: a pipelined one after it must not reach the upstream).
    var dropsReads = false
    /// On the upstream side of a forwarded request: told of the answer's first bytes (nil if
    /// the upstream closed first), once.
    private var firstRead: ((ByteBuffer?) -> Void)?

    private init(firstRead: ((ByteBuffer?) -> Void)? = nil) { self.firstRead = firstRead }

    /// The client side's handler and the upstream side's, joined.
    static func matchedPair(firstUpstreamRead: ((ByteBuffer?) -> Void)? = nil) -> (client: GlueHandler, upstream: GlueHandler) {
        let client = GlueHandler()
        let upstream = GlueHandler(firstRead: firstUpstreamRead)
        client.partner = upstream
        upstream.partner = client
        return (client, upstream)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // The partner may have held a read back while this side was not there to write it.
        if context.channel.isWritable { partner?.partnerBecameWritable() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    private func partnerWrite(_ bytes: ByteBuffer) {
        context?.write(wrapOutboundOut(bytes), promise: nil)
    }

    private func partnerFlush() {
        context?.flush()
    }

    private func partnerWriteEOF() {
        context?.close(mode: .output, promise: nil)
    }

    /// Closes once what was written to this side has gone out: the end of an answer the
    /// partner read just before it closed reaches a slow reader too.
    private func partnerCloseFull() {
        guard let context else { return }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    private func partnerBecameWritable() {
        if pendingRead {
            pendingRead = false
            context?.read()
        }
    }

    private var partnerWritable: Bool { context?.channel.isWritable ?? false }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        if let firstRead {
            self.firstRead = nil
            firstRead(bytes)
        }
        guard !dropsReads else { return }
        partner?.partnerWrite(bytes)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner?.partnerFlush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let firstRead {
            self.firstRead = nil
            firstRead(nil)
        }
        partner?.partnerCloseFull()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event {
            partner?.partnerWriteEOF()
        } else if event is IdleStateHandler.IdleStateEvent || event is ChannelShouldQuiesceEvent {
            // Idle, or the server is stopping: a tunnel has no answer to finish.
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            partner?.partnerBecameWritable()
        }
    }

    func read(context: ChannelHandlerContext) {
        if let partner, partner.partnerWritable {
            context.read()
        } else {
            pendingRead = true
        }
    }
}

import MockCore
import MockServer
import NIOCore
import NIOSSL
import NIOTLS

/// Sits before the TLS handler and sees the raw bytes of a new HTTPS connection: it
/// carries out the handshake faults that are not a certificate (a reset, a slow
/// handshake) and bounds the handshake's time, since the HTTP deadlines start after it.
final class HandshakeGate: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Mode {
        case normal
        /// The ClientHello is read, then the connection is reset.
        case reset
        /// The ClientHello waits this long before the TLS handler sees it.
        case hold(TimeAmount)
    }

    /// ClientHellos are a few hundred bytes; a client that sends more while held is not one.
    static let maxHeldBytes = 64 * 1024

    private var mode: Mode
    private let timeout: TimeAmount
    private var held: [ByteBuffer] = []
    private var heldBytes = 0
    private var releasing = false
    private var deadline: Scheduled<Void>?
    /// Set by `HandshakeWatch` (after the TLS handler) when the handshake completed.
    var completed = false

    init(mode: Mode, timeout: TimeAmount) {
        self.mode = mode
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        var wait = timeout
        if case .hold(let delay) = mode { wait = wait + delay }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: wait) {
            let (gate, context) = bound.value
            if !gate.completed { context.close(promise: nil) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        held.removeAll()
        context.fireChannelInactive()
    }

    /// A stopping server closes a connection still in its handshake at once: nothing is
    /// under way on it, and no HTTP handler is there yet to hear the stop (nor could one
    /// write before the handshake ends). The gate stays in the pipeline for this until
    /// the handshake completes (`HandshakeWatch` then removes it).
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, !completed {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch mode {
        case .normal:
            context.fireChannelRead(data)
        case .reset:
            mode = .normal
            context.channel.resetConnection()
        case .hold(let delay):
            let bytes = unwrapInboundIn(data)
            heldBytes += bytes.readableBytes
            held.append(bytes)
            guard heldBytes <= Self.maxHeldBytes else {
                context.close(promise: nil)
                return
            }
            guard !releasing else { return }
            releasing = true
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: delay) {
                let (gate, context) = bound.value
                gate.release(context: context)
            }
        }
    }

    /// A held ClientHello goes on to the TLS handler; later bytes pass straight through.
    private func release(context: ChannelHandlerContext) {
        mode = .normal
        guard context.channel.isActive else { return }
        let bytes = held
        held.removeAll()
        for buffer in bytes { context.fireChannelRead(wrapInboundOut(buffer)) }
        context.fireChannelReadComplete()
    }
}

/// After the TLS handler: tells the gate the handshake is done (its deadline is off), then
/// takes the gate and itself out of the pipeline. Past the handshake neither has anything
/// left to do, and every read, write and flush of the connection went through both only to
/// be passed on. A handshake that fails is told to `failed` once (a proxy tunnel journals
/// it: a client that does not trust the CA is the commonest setup mistake).
final class HandshakeWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private let gate: HandshakeGate
    private var failed: ((any Error) -> Void)?

    init(gate: HandshakeGate, failed: ((any Error) -> Void)? = nil) {
        self.gate = gate
        self.failed = failed
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !gate.completed, let failed {
            self.failed = nil
            failed(error)
        }
        context.fireErrorCaught(error)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let tlsEvent = event as? TLSUserEvent, case .handshakeCompleted = tlsEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        gate.completed = true
        // The ALPN handler after this one sets up HTTP/1.1 or HTTP/2 on this event.
        context.fireUserInboundEventTriggered(event)
        let sync = context.pipeline.syncOperations
        if let gateContext = try? sync.context(handler: gate) { _ = sync.removeHandler(context: gateContext) }
        _ = sync.removeHandler(context: context)
    }
}

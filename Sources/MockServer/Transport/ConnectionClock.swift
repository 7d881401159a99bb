import NIOCore

/// Sits before the HTTP decoder and watches bytes, not messages: the deadlines of a
/// connection's phases and the size of a request head (NIO's decoder bounds header fields
/// but not the request line). It never answers; it tells `HTTPConnectionHandler`, which
/// does, through a `ConnectionClockEvent`.
///
/// Phases (the request handler moves them):
/// - `idle`: waiting for a request; a deadline of `idleTimeout` from the phase's start.
/// - `head`: a request's first byte came; `headTimeout` from that byte, not extended.
/// - `body`: the head is in; `idleTimeout` from the latest byte.
/// - `responding`: no deadline (delays and hangs are what a scenario asked for).
final class ConnectionClock: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    enum Phase { case idle, head, body, responding, done }

    private let limits: ConnectionLimits
    @exclusivity(unchecked) private var phase = Phase.idle
    @exclusivity(unchecked) private var deadline: NIODeadline?
    @exclusivity(unchecked) private var lastByte = NIODeadline.uptimeNanoseconds(0)
    @exclusivity(unchecked) private var headStart = NIODeadline.uptimeNanoseconds(0)
    /// While a read that the clock looked at passes down the pipeline: when it came. What
    /// the request handler does within it (a head arrived, a whole answer written) happens
    /// at that time, without another look at the clock.
    @exclusivity(unchecked) private var readAt: NIODeadline?
    /// When the one scheduled timer fires (it may fire early and re-arm).
    @exclusivity(unchecked) private var timerAt: NIODeadline?
    @exclusivity(unchecked) private var timer: Scheduled<Void>?
    /// Bytes seen since the current head started, before the decoder took them.
    @exclusivity(unchecked) private var headBytes = 0
    @exclusivity(unchecked) private var context: ChannelHandlerContext?

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { enter(.idle) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        phase = .done
        timer?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data).readableBytes
        switch phase {
        case .idle:
            // The head deadline is armed only if the head is still incomplete after this
            // read (below): a head that comes in one read costs no timer.
            phase = .head
            headStart = context.eventLoop.now
            readAt = headStart
            headBytes += bytes
        case .head:
            headBytes += bytes
        case .body:
            lastByte = context.eventLoop.now
            readAt = lastByte
        case .responding, .done:
            break
        }
        context.fireChannelRead(data)
        readAt = nil
        // The decoder has taken what it could: a head that arrived reset the count.
        guard phase == .head || phase == .idle else { return }
        if headBytes > limits.maxHeadSize {
            phase = .done
            timer?.cancel()
            context.fireUserInboundEventTriggered(ConnectionClockEvent.headTooLarge(limit: limits.maxHeadSize))
        } else if phase == .head {
            arm(headStart + limits.headTimeout)
        }
    }

    /// The loop's clock (an `EmbeddedEventLoop`'s own in tests), or the time of the read
    /// under way.
    private var now: NIODeadline { readAt ?? context?.eventLoop.now ?? .now() }

    // MARK: Moved by the request handler

    func headArrived() {
        headBytes = 0
        lastByte = now
        enter(.body)
    }

    func requestEnded() { enter(.responding) }

    /// The server itself holds the body back (a network profile's uplink): no deadline
    /// until `bodyResumed`, so a paced upload is never taken for a stalled client.
    func bodyHeld() { enter(.responding) }

    func bodyResumed() {
        lastByte = now
        enter(.body)
    }

    /// The answer is out: the idle period runs from now, on the loop's clock, not from the
    /// start of the read that carried the request (answering may have taken a while), and
    /// a pipelined request after it is timed from now too.
    func responseFinished() {
        headBytes = 0
        readAt = nil
        enter(.idle)
    }

    func stop() {
        phase = .done
        timer?.cancel()
    }

    private func enter(_ next: Phase) {
        guard phase != .done else { return }
        phase = next
        switch next {
        case .idle: arm(now + limits.idleTimeout)
        case .head: arm(headStart + limits.headTimeout)
        case .body: arm(lastByte + limits.idleTimeout)
        case .responding, .done:
            deadline = nil
        }
    }

    /// One timer per connection at most. A later deadline keeps the timer (it re-arms when
    /// it fires early); only an earlier one reschedules it, so a keep-alive request that
    /// arrives in one read schedules nothing.
    private func arm(_ at: NIODeadline) {
        deadline = at
        if let timerAt, timerAt <= at, timer != nil { return }
        guard let context else { return }
        timer?.cancel()
        timerAt = at
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: at) { bound.value.fire() }
    }

    private func fire() {
        timer = nil
        timerAt = nil
        guard let context, let deadline else { return }
        let effective = phase == .body ? lastByte + limits.idleTimeout : deadline
        if effective > context.eventLoop.now {
            arm(effective)
            return
        }
        let event: ConnectionClockEvent
        switch phase {
        case .idle: event = .idle
        case .head: event = .headTimedOut
        case .body: event = .bodyStalled
        case .responding, .done: return
        }
        phase = .done
        context.fireUserInboundEventTriggered(event)
    }
}

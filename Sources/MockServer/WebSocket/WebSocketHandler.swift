import Foundation
import Logging
import MockCore
import NIOCore
import NIOFoundationCompat
import NIOWebSocket

/// One WebSocket, after the upgrade: the client's frames go through `WebSocketInbound`
/// (RFC 6455's rules) to the plan's `WebSocketConversation`, whose actions this carries
/// out on the event loop's timers (`scheduleTask`, so an `EmbeddedEventLoop`'s
/// `advanceTime` drives it). Every frame, both ways, goes to the exchange's transcript,
/// and the exchange ends, with how, when the connection does.
///
/// The protocol's rules a server keeps, whatever the script says: pings are answered with
/// pongs; a close is answered with a close, then the TCP connection closes; nothing is
/// sent after a close frame; a close the client never answers ends the connection after
/// `WebSocketConversation.closeHandshakeTimeout`; a client that breaks the protocol gets a
/// close with its code (1002, 1007, 1009) and the connection closes. A client that stops
/// reading (its socket over the write buffer's high-water mark, and `maxQueuedBytes`
/// written since) is dropped.
///
/// While open it is listed in the engine's `LiveSockets`, through which the admin API
/// and tests send into it and close it.
///
/// It runs only on its channel's event loop, and no call it makes while a stored property
/// is being changed reaches that property again, so the properties every frame touches
/// skip Swift's run-time exclusivity check (`@exclusivity(unchecked)`), as the HTTP
/// handler's do: `Benchmarks/README.md`, "Streams", has what the checks cost per echo.
final class WebSocketHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    /// Frames go out as bytes made here (`ServerFrame`), one buffer each.
    typealias OutboundOut = ByteBuffer

    @exclusivity(unchecked) private var conversation: WebSocketConversation
    private let exchange: Exchange
    private let sockets: LiveSockets
    private let socket: LiveSockets.Socket
    @exclusivity(unchecked) private var inbound: WebSocketInbound
    /// Bytes written while the socket is over its write buffer's high-water mark (not
    /// writable) past which the client is dropped; a writable socket takes a frame of any size.
    let maxQueuedBytes: Int
    private let logger: Logger

    @exclusivity(unchecked) private var context: ChannelHandlerContext?
    /// The conversation's time zero.
    @exclusivity(unchecked) private var openedAt = NIODeadline.uptimeNanoseconds(0)
    private var timers: [Int: Scheduled<Void>] = [:]
    /// A close frame was sent: nothing more is.
    @exclusivity(unchecked) private(set) var closeSent = false
    /// The client's close frame came.
    @exclusivity(unchecked) private(set) var closeReceived = false
    /// The exchange ended (the connection is closing or closed).
    @exclusivity(unchecked) private(set) var ended = false
    /// Where the client's messages go for the admin API and tests; nil until the socket is
    /// listed (and when the list was full).
    private var inbox: LiveSockets.Inbox?
    /// The close timeout of a close this handler sent itself (the admin API's, a violation's).
    private var closeTimeout: Scheduled<Void>?
    /// The conversation's actions for the event being handled (kept to be reused).
    @exclusivity(unchecked) private var actions: [WebSocketConversation.Action] = []
    /// Bytes written since the socket went over its high-water mark; zero while it is writable.
    @exclusivity(unchecked) private var bytesWhileUnwritable = 0

    init(conversation: WebSocketConversation, exchange: Exchange, sockets: LiveSockets, socket: LiveSockets.Socket,
         maxMessageSize: Int, writeBufferHigh: Int, logger: Logger) {
        self.conversation = conversation
        self.exchange = exchange
        self.sockets = sockets
        self.socket = socket
        inbound = WebSocketInbound(maxMessageSize: maxMessageSize)
        maxQueuedBytes = 16 * writeBufferHigh
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        connectionGone(.clientClosed)
        self.context = nil
    }

    /// The upgrade is done: the socket is listed and the conversation opens. A server with
    /// `LiveSockets.capacity` sockets open closes this one at once with 1013 (try again later).
    func open() {
        guard let context else { return }
        openedAt = context.eventLoop.now
        inbox = sockets.add(socket, connection: Remote(handler: NIOLoopBound(self, eventLoop: context.eventLoop), loop: context.eventLoop))
        guard inbox != nil else {
            serverClose(code: WebSocketCloseCode.tryAgainLater, reason: "too many open WebSockets")
            return
        }
        handle(.opened, at: 0)
    }

    /// Seconds since the conversation opened, on the loop's clock.
    private var now: TimeInterval {
        guard let context else { return 0 }
        return Double((context.eventLoop.now - openedAt).nanoseconds) / 1e9
    }

    // MARK: The client's frames

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let received = inbound.receive(frame)
        // Consumed: its payload moves into the case that binds it.
        switch consume received {
        case .fragment, .ignored:
            return
        case .afterClose(let text, let bytes):
            exchange.record(.received, text ? .text : .binary, payload: Data(buffer: bytes), note: "after the client's close")
        case .text(let text, let fragments):
            exchange.record(.received, .text, size: text.utf8.count, payload: { Data(text.utf8.prefix(StreamTranscript.payloadLimit)) }, note: fragments > 1 ? "\(fragments) fragments" : nil)
            inbox?.received(.text(text))
            handle(.text(text), at: now)
        case .binary(let bytes, let fragments):
            let data = Data(buffer: bytes)
            exchange.record(.received, .binary, payload: data, note: fragments > 1 ? "\(fragments) fragments" : nil)
            inbox?.received(.binary(data))
            handle(.binary(data), at: now)
        case .ping(let bytes):
            let data = Data(buffer: bytes)
            exchange.record(.received, .ping, payload: data)
            handle(.ping(data), at: now)
        case .pong(let bytes):
            let data = Data(buffer: bytes)
            exchange.record(.received, .pong, payload: data)
            handle(.pong(data), at: now)
        case .close(let code, let reason):
            closeReceived = true
            exchange.record(.received, .close, note: Self.note(code: code, reason: reason))
            if closeSent {
                // The answer to the server's own close: the handshake is done.
                closeConnection()
            } else {
                handle(.peerClosed(code: code, reason: reason), at: now)
            }
        case .violation(let code, let reason):
            exchange.record(.received, .malformed, note: reason)
            failConnection(code: code, reason: reason)
        }
    }

    /// NIO's frame decoder refuses a frame over the size limit (1009) or a control frame
    /// that is fragmented or too long (1002).
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? NIOWebSocketError else {
            logger.debug("WebSocket connection error", metadata: ["error": "\(error)"])
            connectionGone(.reset)
            context.close(promise: nil)
            return
        }
        let code: UInt16
        let reason: String
        switch error {
        case .invalidFrameLength:
            code = WebSocketInbound.messageTooBig
            reason = "A frame is over the limit of \(inbound.maxMessageSize) bytes"
        case .fragmentedControlFrame:
            code = WebSocketCloseCode.protocolError
            reason = "A control frame is fragmented"
        case .multiByteControlFrameLength:
            code = WebSocketCloseCode.protocolError
            reason = "A control frame is longer than 125 bytes"
        }
        exchange.record(.received, .malformed, note: reason)
        failConnection(code: code, reason: reason)
    }

    func channelInactive(context: ChannelHandlerContext) {
        connectionGone(closeSent && closeReceived ? .finished : .clientClosed)
        context.fireChannelInactive()
    }

    /// A stopping server closes its sockets with 1001, going away.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            serverClose(code: WebSocketCloseCode.goingAway, reason: "the server is stopping")
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    // MARK: Carrying out the conversation's actions

    /// Hands `event` to the conversation and carries out what it says, in one array kept
    /// for every event and empty between events. Once the connection ended it does nothing:
    /// an action that closes the connection can bring a frame still decoded back here, and
    /// only then is it re-entered.
    private func handle(_ event: WebSocketConversation.Event, at time: TimeInterval) {
        guard !ended else { return }
        conversation.handle(event, at: time, into: &actions)
        if actions.count == 1 {
            // The usual event's one action, moved out of the array rather than copied and
            // then destroyed in it.
            perform(actions.removeLast())
        } else {
            for action in actions { perform(action) }
            actions.removeAll(keepingCapacity: true)
        }
    }

    private func perform(_ action: WebSocketConversation.Action) {
        guard !ended, let context else { return }
        switch action {
        case .send(let frame):
            send(frame)
        case .schedule(let timer, let at):
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            timers[timer.id] = context.eventLoop.scheduleTask(deadline: openedAt + .nanoseconds(Int64(max(0, at) * 1e9))) {
                let handler = bound.value
                handler.timers[timer.id] = nil
                handler.handle(.timerFired(timer), at: handler.now)
            }
        case .close(let code, let reason):
            writeClose(code: code, reason: reason)
        case .closeWithoutCode:
            writeClose(code: nil, reason: "")
        case .sendMalformedFrame:
            guard !closeSent else { return }
            // FIN and the reserved opcode 0x3, empty: `WebSocketConversation.malformedFrame`.
            write(context.channel.allocator.buffer(bytes: WebSocketConversation.malformedFrame))
            exchange.record(.sent, .malformed, note: "reserved opcode 0x3")
        case .stall(let until):
            exchange.record(.sent, .stall, note: until.map { "until \(Int(($0 * 1000).rounded())) ms after the opening" } ?? "for ever")
        case .closeConnection:
            closeConnection()
        case .reset:
            connectionGone(.reset)
            context.channel.resetConnection()
        }
    }

    /// A data or control frame, unless a close went out before it.
    private func send(_ frame: WebSocketConversation.Frame) {
        guard !closeSent, let context else { return }
        let allocator = context.channel.allocator
        switch frame {
        // A frame the client was dropped for instead is not in the transcript.
        case .text(let text):
            guard write(ServerFrame.text(allocator, text)) else { return }
            exchange.record(.sent, .text, size: text.utf8.count, payload: { Data(text.utf8.prefix(StreamTranscript.payloadLimit)) })
        case .binary(let bytes):
            guard write(ServerFrame.bytes(allocator, opcode: .binary, bytes)) else { return }
            exchange.record(.sent, .binary, payload: bytes)
        case .ping(let bytes):
            guard write(ServerFrame.bytes(allocator, opcode: .ping, bytes.prefix(125))) else { return }
            exchange.record(.sent, .ping, payload: bytes)
        case .pong(let bytes):
            guard write(ServerFrame.bytes(allocator, opcode: .pong, bytes.prefix(125))) else { return }
            exchange.record(.sent, .pong, payload: bytes)
        }
    }

    /// The close frame (`code` nil: an empty payload); nothing is sent after it.
    private func writeClose(code: UInt16?, reason: String) {
        guard !closeSent, let context else { return }
        closeSent = true
        var note = "no code"
        var kept = ""
        if let code {
            // A control frame carries at most 125 bytes: the reason is cut at a character.
            for character in reason {
                guard kept.utf8.count + String(character).utf8.count <= 123 else { break }
                kept.append(character)
            }
            note = Self.note(code: code, reason: kept)
        }
        let size = code == nil ? 0 : 2 + kept.utf8.count
        write(ServerFrame.make(context.channel.allocator, opcode: .connectionClose, size: size) { payload in
            guard let code else { return }
            payload.writeInteger(code)
            payload.writeString(kept)
        })
        exchange.record(.sent, .close, note: note)
    }

    /// Writes and flushes `frame`. A writable socket takes it whatever its size; one over its
    /// high-water mark counts it, and past `maxQueuedBytes` so counted the client, which
    /// stopped reading, is dropped rather than buffered without end. No promise per frame:
    /// `closeConnection` waits for the frames written with one write behind them.
    /// Whether the frame was written (not: the connection is gone, or was dropped for it).
    @discardableResult
    private func write(_ frame: ByteBuffer) -> Bool {
        guard let context, !ended else { return false }
        if !context.channel.isWritable {
            let size = frame.readableBytes
            guard bytesWhileUnwritable + size <= maxQueuedBytes else {
                logger.debug("a WebSocket client stopped reading; dropped", metadata: ["socket": "\(socket.id)"])
                connectionGone(.closedWithoutEnd)
                context.close(promise: nil)
                return false
            }
            bytesWhileUnwritable += size
        }
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        return true
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { bytesWhileUnwritable = 0 }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Closing

    /// A close the server starts itself (the admin API, a test, the server stopping): its
    /// close frame, then the client's is awaited for `closeHandshakeTimeout`.
    func serverClose(code: UInt16?, reason: String) {
        guard !closeSent, !ended, let context else { return }
        writeClose(code: code, reason: reason)
        cancelTimers()
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        closeTimeout = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(WebSocketConversation.closeHandshakeTimeout * 1e9))) {
            bound.value.closeConnection()
        }
    }

    /// A message the admin API or a test sends: out now, unless a close went out before it.
    func serverSend(_ message: LiveSockets.Message) {
        guard !ended, !closeReceived else { return }
        switch message {
        case .text(let text): send(.text(text))
        case .binary(let bytes): send(.binary(bytes))
        }
    }

    /// The client broke the protocol: a close with `code`, then the connection closes.
    private func failConnection(code: UInt16, reason: String) {
        writeClose(code: code, reason: reason)
        closeConnection()
    }

    /// Closes the TCP connection once the frames written are out (the server closes first,
    /// RFC 6455 §7.1.1), and at the latest ``closeGrace`` later: a write the socket never
    /// takes does not keep the connection open. The stream ended properly when a close
    /// frame went out.
    ///
    /// "Out" is an empty write made after every frame: a channel completes writes in order,
    /// so it completes once those before it are written (TLS keeps that order too, and its
    /// close sends close_notify after them).
    private func closeConnection() {
        guard !ended, let context else { return }
        connectionGone(closeSent ? .finished : .closedWithoutEnd)
        let channel = context.channel
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(capacity: 0)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in channel.close(promise: nil) }
        context.eventLoop.scheduleTask(in: Self.closeGrace) { channel.close(promise: nil) }
    }

    /// The longest the connection waits, after the server decided to close it, for the
    /// frames written before to go out.
    static let closeGrace = TimeAmount.seconds(2)

    /// The exchange ends `how` (once); timers stop and the socket leaves the list.
    private func connectionGone(_ how: StreamTranscript.Ending) {
        guard !ended else { return }
        ended = true
        cancelTimers()
        closeTimeout?.cancel()
        closeTimeout = nil
        _ = conversation.handle(.connectionLost, at: now)
        if inbox != nil { sockets.closed(socket.id) }
        exchange.endStream(how)
    }

    private func cancelTimers() {
        timers.values.forEach { $0.cancel() }
        timers.removeAll()
    }

    /// A close's code and reason, as the transcript notes it.
    static func note(code: UInt16?, reason: String) -> String {
        guard let code else { return "no code" }
        return reason.isEmpty ? "\(code)" : "\(code) \(reason)"
    }

    /// How `LiveSockets` reaches this handler: on its event loop.
    private struct Remote: LiveSockets.Connection {
        let handler: NIOLoopBound<WebSocketHandler>
        let loop: any EventLoop

        func send(_ message: LiveSockets.Message) {
            loop.execute { handler.value.serverSend(message) }
        }

        func close(code: UInt16?, reason: String) {
            loop.execute { handler.value.serverClose(code: code, reason: reason) }
        }
    }
}

import Foundation
import Logging
import MockAdmin
import MockCore
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// One HTTP/1.1 connection, or one HTTP/2 stream: feeds what the channel tells it to its
/// `ConnectionStateMachine` and carries out the actions that come back. A complete request
/// goes through the server's `Pipeline`; its plan is played by `HTTPConnectionHandler+Answers`
/// through the connection's `ResponseWriter`.
///
/// Backpressure: nothing is produced for a connection NIO cannot write to. After an answer
/// the next request waits until the channel is writable again, a paced body waits before
/// its next part, and an event stream whose client stopped reading is dropped. A client
/// that never reads costs at most the high water mark, one answer and one read's worth of
/// queued requests.
///
/// NIO's request decoder parses; its response encoder and pipelining handler are not used:
/// doing both jobs here saves three pipeline messages per answer.
final class HTTPConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// What the connection's handlers share: the pipeline, the limits, the writer.
    /// Read as `shared.pipeline` and the like where they are used: a property of this
    /// handler that forwarded to one of them retained and released it on every use.
    let shared: ConnectionShared
    @exclusivity(unchecked) var machine: ConnectionStateMachine
    /// The exchange being answered: its end is reported through it.
    @exclusivity(unchecked) var inFlight: Exchange?
    /// What to do once the channel is writable again (a paced part, a stream's event).
    @exclusivity(unchecked) var pendingWhenWritable: (() -> Void)?
    /// The connection's deadlines and head-size watch, before the decoder (HTTP/1.1 only).
    let clock: ConnectionClock?
    /// On an HTTP/2 stream, what its frames said so far of the request.
    @exclusivity(unchecked) private var streamRead = StreamReadState()
    /// The uplink pace of the request body being read, under a network profile.
    @exclusivity(unchecked) var upload: UploadPace?
    /// Whether the request being answered is its connection's first (it pays a network
    /// profile's connection setup).
    @exclusivity(unchecked) var firstOnConnection = false
    /// Whether the request being answered asks to upgrade the connection (an `Upgrade`
    /// field): NIO's decoder reads nothing after such a request, so unless the answer
    /// upgrades it (a WebSocket), the connection closes after it.
    @exclusivity(unchecked) var upgradeAsked = false
    /// The event-stream subscription of this connection, if it streams.
    @exclusivity(unchecked) var subscription: (hub: EventHub, token: UUID, keepAlive: RepeatedTask)?
    /// The scripted event stream this connection (or HTTP/2 stream) plays, if any.
    @exclusivity(unchecked) var scripted: ScriptedStream?

    init(shared: ConnectionShared, clock: ConnectionClock? = nil) {
        self.shared = shared
        self.clock = clock
        machine = ConnectionStateMachine(multiplexed: shared.http2 != nil, maxBodySize: shared.maxRequestBodySize)
    }

    /// A stream's handler is added by the stream's initializer and removed once the
    /// stream closes, whichever way (NIO removes a closed channel's handlers, once): the
    /// connection's count of open streams.
    func handlerAdded(context: ChannelHandlerContext) {
        shared.http2?.streamOpened(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        shared.http2?.streamClosed()
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let framing = shared.http2 else {
            receive(unwrapInboundIn(data), context: context)
            return
        }
        let (part, ends) = framing.decode(data, into: &streamRead, context: context)
        if let part { receive(part, context: context) }
        if ends { receive(.end(nil), context: context) }
    }

    func receive(_ part: HTTPServerRequestPart, context: ChannelHandlerContext, fromQueue: Bool = false) {
        if case .closed = machine.state {
            arrivedAfterClose(part)
            return
        }
        switch part {
        case .head(let head):
            // The body's framing, in one pass over the fields.
            var declared: Int?, framed = false, upgrade = false
            for (name, value) in head.headers {
                switch name.utf8.count {
                case 7 where name.caseInsensitiveEquals("upgrade"):
                    upgrade = true
                case 14 where name.caseInsensitiveEquals("content-length"):
                    framed = true
                    if declared == nil { declared = Int(value) ?? 0 }
                case 17 where name.caseInsensitiveEquals("transfer-encoding"):
                    framed = true
                default:
                    break
                }
            }
            switch machine.receivedHead(head, declaredLength: declared ?? 0, at: shared.engine.timeSource.now(), fromQueue: fromQueue) {
            case .queued:
                return
            case .began:
                // Counted per connection: an HTTP/2 connection's streams share the count.
                shared.requests.begun += 1
                firstOnConnection = shared.requests.begun == 1
                upgradeAsked = upgrade && !machine.multiplexed
                clock?.headArrived()
                // An HTTP/2 stream may carry a body with neither field, unless the HEADERS
                // frame that opened it also ended it (a GET, mostly).
                upload = uploadPace(for: head, mayCarryBody: framed || (machine.multiplexed && !streamRead.headEndedStream),
                                    context: context)
            }
        case .body(var chunk):
            switch machine.receivedBody(&chunk, fromQueue: fromQueue) {
            case .stored(let bytes): paceUpload(bytes: bytes, context: context)
            case .queued, .dropped, .ignored: break
            }
        case .end:
            let pending = upload.map { $0.due > context.eventLoop.now } ?? false
            act(on: machine.receivedEnd(uplinkPending: pending, fromQueue: fromQueue), context: context)
        }
    }

    /// Carries out what the end of a request (or its uplink's end) asks for.
    func act(on action: ConnectionStateMachine.EndAction, context: ChannelHandlerContext) {
        switch action {
        case .queued, .ignored:
            return
        case .awaitUplink:
            awaitUpload(context: context)
        case .refuseTooLarge(let request):
            upload = nil
            clock?.requestEnded()
            let plan = ResponsePlan.error(413, "The request body is larger than the limit of \(shared.maxRequestBodySize) bytes",
                                          details: ["limit": .number(Double(shared.maxRequestBodySize))])
            inFlight = shared.rejected(makeRequest(request.head, body: Data(), receivedAt: request.receivedAt), plan).exchange
            execute(plan, for: request.head, context: context, keepAlive: false)
        case .answer(let request):
            upload = nil
            clock?.requestEnded()
            answer(request, context: context)
        }
    }

    /// A complete request through the pipeline, then its plan on the wire.
    private func answer(_ request: ConnectionStateMachine.Request, context: ChannelHandlerContext) {
        let head = request.head
        let mockRequest = makeRequest(head, body: request.body.readableBytes == 0 ? Data() : Data(buffer: request.body),
                                      receivedAt: request.receivedAt)
        // Per request, nothing is copied that need not be: the proxy is bound only when
        // there is one (`proxies`), the answer is taken apart at once (the pair is destroyed
        // through the runtime), and the head is asked about keep-alive before the machine
        // is (a call into NIO while the machine is read copies it).
        if shared.proxies, !AdminAPI.handles(mockRequest.path), let proxy = shared.proxy {
            respondLater(proxy, to: mockRequest, head: head, context: context)
            return
        }
        var plan: ResponsePlan
        let exchange: Exchange
        (plan, exchange) = shared.answer(mockRequest)
        addConnectionSetup(to: &plan)
        inFlight = exchange
        let asked = head.isKeepAlive
        execute(plan, for: head, context: context, keepAlive: machine.keepsAlive(asked: asked))
    }

    /// Holds reads while queued requests wait, the uplink catches up or a stopping server
    /// reads no more (`ConnectionStateMachine.readRequested`).
    func read(context: ChannelHandlerContext) {
        if machine.readRequested() == .read { context.read() }
    }

    // MARK: After an answer

    /// The last part of an answer is written: the next request is answered, or the
    /// connection closes once the bytes are out.
    func answerEnded(context: ChannelHandlerContext, keepAlive: Bool) {
        finishExchange()
        if shared.forwardProxy != nil { context.triggerUserOutboundEvent(ConnectionEvent.answerEnded, promise: nil) }
        after(machine.responseEnded(keepAlive: keepAlive, writable: context.channel.isWritable), context: context)
    }

    private func after(_ action: ConnectionStateMachine.AfterResponse, context: ChannelHandlerContext) {
        switch action {
        case .none:
            return
        case .closeAfterWrites:
            clock?.stop()
            closeAfterWrites(context: context)
        case .ready:
            clock?.responseFinished()
            while let part = machine.nextQueued() { receive(part, context: context, fromQueue: true) }
            if machine.resumeReading() == .read { context.read() }
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let action = pendingWhenWritable {
            pendingWhenWritable = nil
            action()
        }
        after(machine.writabilityChanged(writable: context.channel.isWritable), context: context)
        context.fireChannelWritabilityChanged()
    }

    /// Runs `action` now if the channel is writable, else when it becomes writable.
    func whenWritable(context: ChannelHandlerContext, _ action: @escaping () -> Void) {
        if context.channel.isWritable {
            action()
        } else {
            pendingWhenWritable = action
        }
    }

    /// Closes once every write queued before now has gone out (writes complete in order):
    /// a close drops what the socket has not taken yet, such as the end of an answer a slow
    /// reader left in the buffer. The shutdown grace bounds the wait. (A connection still in
    /// its TLS handshake, whose writes would wait for it, is closed by `HandshakeGate` first.)
    func closeAfterWrites(context: ChannelHandlerContext) {
        pendingWhenWritable = nil
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// Tells the journal the answer ended (once per request).
    func finishExchange() {
        guard let inFlight else { return }
        inFlight.finished()
        self.inFlight = nil
    }

    // MARK: Close and errors

    func channelInactive(context: ChannelHandlerContext) {
        stopStreaming()
        endEventStream(.clientClosed, context: context)
        pendingWhenWritable = nil
        journalAbandoned()
        context.fireChannelInactive()
    }

    /// Malformed HTTP: a 400 (431 for headers too large) with a JSON body, journaled, then
    /// the connection closes (the decoder cannot find the next request's start).
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            shared.logger.debug("connection error", metadata: ["error": "\(error)"])
            context.close(promise: nil)
            return
        }
        // The client closed mid-request (the decoder's last bytes at the close): nothing
        // to answer on. A body cut off is journaled by the close, with its request; a head
        // cut off has no request yet, so it is journaled here as the malformed request it is.
        guard context.channel.isActive else {
            if machine.cutBytesStartANewRequest { journalCutHead(parserError) }
            return
        }
        if parserError == .headerOverflow {
            refuse(.headTooLarge(limit: shared.limits.maxHeadSize), context: context)
        } else {
            refuse(.malformed("\(parserError)"), context: context)
        }
    }

    /// The engine's request for `head`. An absolute-form target (`http://host/path`, which a
    /// server must accept and a proxy's client sends) is answered as its origin-form path,
    /// with the base URL it names.
    func makeRequest(_ head: HTTPRequestHead, body: Data, receivedAt: Date) -> MockRequest {
        var uri = head.uri
        let baseURL: String
        if uri.utf8.first != UInt8(ascii: "/"), let absolute = ProxyTarget.absolute(uri), case .success(let target) = absolute.target {
            uri = absolute.originForm
            let defaultPort = absolute.scheme == "https" ? 443 : 80
            baseURL = absolute.scheme + "://" + (target.port == defaultPort ? (target.host.contains(":") ? "[\(target.host)]" : target.host) : target.authority)
        } else {
            baseURL = self.baseURL(for: head)
        }
        return MockRequest(
            method: head.method.rawValue,
            uri: uri,
            headers: HeaderFields(fields: head.headers.map { (name: $0.name, value: $0.value) }),
            body: body,
            baseURL: baseURL,
            receivedAt: receivedAt,
            connection: ConnectionRef(id: shared.requests.id, ordinal: shared.requests.begun))
    }

    /// The address the client used (its `Host` header) when it is a plain host[:port].
    private func baseURL(for head: HTTPRequestHead) -> String {
        guard let host = head.headers.first(name: "host") else { return shared.fallbackBaseURL }
        // Checked and built once per connection (`ConnectionRequests.lastBaseURL`). Compared
        // byte for byte: `==` on String would take "\u{212A}" (Kelvin) for "K".
        if let last = shared.requests.lastBaseURL, last.host.utf8Equals(host) { return last.baseURL }
        let baseURL = MockRequest.isPlainHost(host) ? shared.scheme + "://" + host : shared.fallbackBaseURL
        shared.requests.lastBaseURL = (host, baseURL)
        return baseURL
    }
}

/// What a connection's HTTP handler tells the handlers ahead of it (a user outbound event).
enum ConnectionEvent {
    /// An answer's last part is written (the forward proxy waits for it before a tunnel).
    case answerEnded
}

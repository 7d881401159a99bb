import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Scenarios

/// One connection's HTTP/1.1 exchange (or one HTTP/2 stream's, through `StreamFraming`): collects a request, asks the engine for a plan,
/// writes it as bytes (`ResponseHead` plus the body, one write), or on HTTP/2 as frames. Pipelined requests that
/// arrive while a response is under way wait in a queue, and reading pauses until it
/// drains, so answers go out in order. Errors stay on this connection.
///
/// Backpressure: nothing is produced for a connection NIO cannot write to. After a
/// response, the next request waits until the channel is writable again (below the low
/// water mark), a paced body waits before its next chunk, and an event stream whose
/// subscriber stopped reading is dropped. A client that never reads costs at most the
/// high water mark, one response and one read's worth of queued requests.
///
/// NIO's request decoder parses; its response encoder and pipelining handler are not
/// used: doing both jobs here saves three pipeline messages per response.
final class HTTPRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum State {
        case idle
        case receiving(HTTPRequestHead, ByteBuffer, receivedAt: Date)
        /// The whole body is in, but a network profile's uplink has not had the time to
        /// carry it yet: the request is answered when it has.
        case awaitingUpload(HTTPRequestHead, ByteBuffer, receivedAt: Date)
        /// The body passed the limit; the rest is read and dropped, then 413.
        case discarding(HTTPRequestHead, size: Int, receivedAt: Date)
        case responding
        /// The last response is written; the connection closes once it is out.
        case closing
        /// A `hang` fault: nothing more is ever written on this connection.
        case hanging
        /// An event stream: events are written until the client goes away.
        case streaming
        /// A response is out but NIO's buffer is over the high water mark: the next
        /// request waits for `channelWritabilityChanged`.
        case blocked
    }

    /// What the connection's handlers share: the engine, the responders, the limits.
    /// Read as `shared.engine` and the like where they are used: a property of this
    /// handler that forwarded to one of them retained and released it on every use.
    let shared: ConnectionShared
    /// On an HTTP/2 stream (which reads through the connection's `StreamFraming`): faults
    /// become frames (`HTTPRequestHandler+Streams`).
    var isHTTP2: Bool { streamRead != nil }
    @exclusivity(unchecked) var state = State.idle

    /// The journal entry being answered and when its request arrived.
    @exclusivity(unchecked) var inFlight: (id: UInt64?, receivedAt: Date)?

    /// Request parts that arrived while a response was under way (pipelining).
    @exclusivity(unchecked) var queued = PartQueue()
    @exclusivity(unchecked) private var readWithheld = false
    @exclusivity(unchecked) private var draining = false
    /// What to do once the channel is writable again (the next request, a paced chunk).
    @exclusivity(unchecked) private var pendingWhenWritable: (() -> Void)?
    /// The connection's deadlines and head-size watch, before the decoder.
    let clock: ConnectionClock?
    /// A stopping server asked this connection to finish: the current response goes out
    /// with `Connection: close`, and nothing more is read.
    @exclusivity(unchecked) var stopRequested = false
    /// Whether the request being read is its connection's first.
    @exclusivity(unchecked) var firstOnConnection = false
    /// On an HTTP/2 stream, what its frames said so far of the request (this is the
    /// stream's only handler); nil on HTTP/1.1.
    @exclusivity(unchecked) private var streamRead: StreamReadState?
    /// The uplink pace of the request body being read, under a network profile.
    @exclusivity(unchecked) var upload: UploadPace?
    /// Reads are held until the uplink has carried what came so far.
    @exclusivity(unchecked) var uploadHeld = false
    /// Reads are held while the proxy sets up a tunnel (`HTTPRequestHandler+Proxy`).
    @exclusivity(unchecked) var tunnelPending = false

    /// Whether a new request has to wait for the current response.
    private var isBusy: Bool {
        switch state {
        case .idle, .receiving, .discarding: return false
        case .awaitingUpload, .responding, .closing, .hanging, .streaming, .blocked: return true
        }
    }

    /// A keep-alive response is out: the next request may be answered once the channel
    /// can take more bytes.
    func finishResponse(context: ChannelHandlerContext) {
        finishTiming()
        guard context.channel.isWritable else {
            state = .blocked
            pendingWhenWritable = { [unowned self] in self.resume(context: context) }
            return
        }
        resume(context: context)
    }

    private func resume(context: ChannelHandlerContext) {
        state = .idle
        clock?.responseFinished()
        if readsStopped && queued.isEmpty {
            finishClosing()
            closeAfterWrites(context: context)
            return
        }
        drainQueue(context: context)
    }

    /// Runs `action` now if the channel is writable, else when it becomes writable.
    func whenWritable(context: ChannelHandlerContext, _ action: @escaping () -> Void) {
        if context.channel.isWritable {
            action()
        } else {
            pendingWhenWritable = action
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let action = pendingWhenWritable {
            pendingWhenWritable = nil
            action()
        }
        context.fireChannelWritabilityChanged()
    }

    /// Closes once every write queued before now has gone out (writes complete in order):
    /// a close drops what the socket has not taken yet, such as the end of an answer a slow
    /// reader left in the buffer. The shutdown grace bounds the wait. (A connection still in
    /// its TLS handshake, whose writes would wait for it, is closed by `HandshakeGate` first.)
    func closeAfterWrites(context: ChannelHandlerContext) {
        // Nothing more is answered here: a writability change must not resume the queue.
        pendingWhenWritable = nil
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// The response is written and the connection will close: nothing else is answered.
    func finishClosing() {
        state = .closing
        clock?.stop()
        finishTiming()
    }

    /// Tells the journal how long the answer took (once per request).
    func finishTiming() {
        guard let inFlight else { return }
        shared.completed(inFlight.id, receivedAt: inFlight.receivedAt)
        self.inFlight = nil
    }
    func startHanging() { state = .hanging }
    func startStreaming() { state = .streaming }

    /// The event-stream subscription of this connection, if it streams.
    @exclusivity(unchecked) var subscription: (hub: EventHub, token: UUID, keepAlive: RepeatedTask)?

    func stopStreaming() {
        guard let subscription else { return }
        subscription.hub.unsubscribe(subscription.token)
        subscription.keepAlive.cancel()
        self.subscription = nil
    }

    init(shared: ConnectionShared, clock: ConnectionClock? = nil) {
        self.shared = shared
        self.clock = clock
        streamRead = shared.http2 == nil ? nil : StreamReadState()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if streamRead != nil, let framing = shared.http2 {
            let (part, ends) = framing.decode(data, into: &streamRead!, context: context)
            if let part { receive(part, context: context) }
            if ends { receive(.end(nil), context: context) }
            return
        }
        receive(unwrapInboundIn(data), context: context)
    }

    private func receive(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        guard !isBusy && queued.isEmpty else {
            queued.append(part)
            return
        }
        handle(part, context: context)
    }

    /// Holds reads while pipelined requests wait, so a client cannot queue without bound.
    /// A stopping server reads no further HTTP/1.1 requests; an HTTP/2 stream still reads
    /// the rest of its one request (the GOAWAY named it as taken).
    func read(context: ChannelHandlerContext) {
        if queued.isEmpty && !readsStopped && !uploadHeld && !tunnelPending {
            context.read()
        } else {
            readWithheld = true
        }
    }

    /// A stopping server's HTTP/1.1 connection: no more requests are read or answered.
    private var readsStopped: Bool { stopRequested && !isHTTP2 }

    private func drainQueue(context: ChannelHandlerContext) {
        guard !draining else { return }   // a response finished while draining: the loop below goes on
        draining = true
        while !isBusy, let part = queued.popFirst() {
            handle(part, context: context)
        }
        draining = false
        if queued.isEmpty && readWithheld && !readsStopped {
            readWithheld = false
            context.read()
        }
    }

    func handle(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let head):
            clock?.headArrived()
            shared.requests.begun += 1
            firstOnConnection = shared.requests.begun == 1
            // The body's framing, in one pass over the fields.
            var declared: Int?, framed = false
            for (name, value) in head.headers {
                switch name.utf8.count {
                case 14 where name.caseInsensitiveEquals("content-length"):
                    framed = true
                    if declared == nil { declared = Int(value) ?? 0 }
                case 17 where name.caseInsensitiveEquals("transfer-encoding"):
                    framed = true
                default:
                    break
                }
            }
            let declaredLength = declared ?? 0
            // An HTTP/2 stream may carry a body with neither field, unless the HEADERS frame
            // that opened it also ended it (a GET, mostly).
            upload = uploadPace(for: head, mayCarryBody: framed || streamRead.map { !$0.headEndedStream } ?? false)
            let now = shared.engine.timeSource.now()
            if declaredLength > shared.maxRequestBodySize {
                state = .discarding(head, size: 0, receivedAt: now)
            } else {
                state = .receiving(head, context.channel.allocator.buffer(capacity: max(0, declaredLength)), receivedAt: now)
            }
        case .body(var chunk):
            // Taken out of `state`, and the taken value dropped before the body grows: a
            // body bound from an enum shares its storage with the enum's, so while the enum
            // lives each chunk written would copy the whole body received so far. `switch
            // consume` does not drop it, hence `taken = .idle` before the body is written.
            var taken = State.idle
            swap(&taken, &state)
            switch taken {
            case .receiving(let head, var body, let receivedAt):
                taken = .idle
                if body.readableBytes + chunk.readableBytes > shared.maxRequestBodySize {
                    state = .discarding(head, size: body.readableBytes + chunk.readableBytes, receivedAt: receivedAt)
                } else {
                    paceUpload(bytes: chunk.readableBytes, context: context)
                    body.writeBuffer(&chunk)
                    state = .receiving(head, body, receivedAt: receivedAt)
                }
            case .discarding(let head, let size, let receivedAt):
                state = .discarding(head, size: size + chunk.readableBytes, receivedAt: receivedAt)
            case .idle, .awaitingUpload, .responding, .closing, .hanging, .streaming, .blocked:
                state = taken
            }
        case .end:
            // The request is taken out of `state` (now `.responding`) rather than copied
            // out of it and released when `state` is set: a head, a buffer and a date
            // retained and released for nothing on every request.
            var taken = State.responding
            swap(&taken, &state)
            switch consume taken {
            case .receiving(let head, let body, let receivedAt):
                if let due = upload?.due, due > .now() {
                    awaitUpload(until: due, head: head, body: body, receivedAt: receivedAt, context: context)
                    return
                }
                upload = nil
                clock?.requestEnded()
                var request = makeRequest(head, body: body.readableBytes == 0 ? Data() : Data(buffer: body), receivedAt: receivedAt)
                if let forwardProxy = shared.forwardProxy {
                    guard let own = proxyRequest(forwardProxy, request, head: head, body: body, context: context) else { return }
                    request = own
                }
                if let proxy = shared.proxy, !AdminAPI.handles(request.path) {
                    respondLater(proxy, to: request, head: head, context: context)
                    return
                }
                var plan = shared.respond(to: request)
                addConnectionSetup(to: &plan)
                inFlight = (plan.journalID, receivedAt)
                execute(plan, for: head, context: context, keepAlive: keepsAlive(head))
            case .discarding(let head, _, let receivedAt):
                clock?.requestEnded()
                let request = makeRequest(head, body: Data(), receivedAt: receivedAt)
                let plan = ResponsePlan.error(413, "The request body is larger than the limit of \(shared.maxRequestBodySize) bytes",
                                              details: ["limit": .number(Double(shared.maxRequestBodySize))])
                inFlight = (shared.engine.recordRejected(request, plan: plan), receivedAt)
                execute(plan, for: head, context: context, keepAlive: false)
            case let unchanged:
                state = unchanged   // no request to answer: nothing changes
            }
        }
    }

    /// Whether the connection stays open after this request's answer: HTTP/1.1's rules, and
    /// always on an HTTP/2 stream, which ends with its answer while the connection goes on
    /// (NIO's `isKeepAlive` says false for version 2, which sent every stream down the
    /// closing path).
    func keepsAlive(_ head: HTTPRequestHead) -> Bool {
        isHTTP2 || head.isKeepAlive
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopStreaming()
        pendingWhenWritable = nil
        journalAbandoned()
        context.fireChannelInactive()
    }

    /// Malformed HTTP: a 400 with a JSON body, journaled, then the connection closes
    /// (the decoder cannot find the next request's start).
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            shared.logger.debug("connection error", metadata: ["error": "\(error)"])
            context.close(promise: nil)
            return
        }
        if parserError == .headerOverflow {
            reject(431, "The request's headers are larger than the limit of \(shared.limits.maxHeadSize) bytes",
                   details: ["limit": .number(Double(shared.limits.maxHeadSize))], method: "INVALID", context: context)
        } else {
            reject(400, "Malformed HTTP request (\(parserError))", method: "INVALID", context: context)
        }
    }

    func makeRequest(_ head: HTTPRequestHead, body: Data, receivedAt: Date) -> MockRequest {
        MockRequest(
            method: head.method.rawValue,
            uri: head.uri,
            headers: HeaderFields(fields: head.headers.map { (name: $0.name, value: $0.value) }),
            body: body,
            baseURL: baseURL(for: head),
            receivedAt: receivedAt,
            connection: ConnectionRef(id: shared.requests.id, ordinal: shared.requests.begun))
    }

    /// The address the client used (its `Host` header) when it is a plain host[:port].
    private func baseURL(for head: HTTPRequestHead) -> String {
        guard let host = head.headers.first(name: "host") else { return shared.fallbackBaseURL }
        // Checked and built once per connection (`ConnectionRequests.lastBaseURL`). Compared
        // byte for byte: `==` on String would take "\u{212A}" (Kelvin) for "K".
        if let last = shared.requests.lastBaseURL, last.host.utf8Equals(host) { return last.baseURL }
        let baseURL = HTTPRequestHandler.isPlainHost(host) ? shared.scheme + "://" + host : shared.fallbackBaseURL
        shared.requests.lastBaseURL = (host, baseURL)
        return baseURL
    }

    static func isPlainHost(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= 255 && host.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":")
                || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "_")
        }
    }
}

import MockServer
import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// Reads one HTTP/2 stream's frames as the request parts `MockServer`'s request handler
/// takes, so scenarios, the journal, the admin API, delays, pacing and network profiles are
/// the same code on both protocols. Only the request side is translated: the handler
/// answers a stream with HEADERS and DATA frames made by `HTTP2ConnectionFacts`, with no
/// HTTP/1 bytes or response parts in between.
///
/// What a stream has read so far is the handler's own `StreamReadState` (a value in the
/// handler, which is the stream's only handler): no handler of its own in front, and no
/// object of its own per stream.
///
/// The connection handler has already checked the header block (RFC 9113 §8.3.1: the
/// pseudo-headers a request needs, lower-case names, no connection-specific fields).
enum HTTP2RequestDecoder {
    /// What a stream's channel reads (`unwrapInboundIn`).
    private final class Frames: ChannelInboundHandler {
        typealias InboundIn = HTTP2Frame.FramePayload
    }

    /// The request parts of one frame of the stream, in order: a part or none, and whether
    /// the request ends with the frame. `context` is the stream handler's: a CONNECT, which
    /// nothing here serves, is refused on it.
    static func decode(_ data: NIOAny, into state: inout StreamReadState, context: ChannelHandlerContext) -> (part: HTTPServerRequestPart?, ends: Bool) {
        switch Frames.unwrapInboundIn(data) {
        case .headers(let content):
            guard !state.headRead else {
                // Trailers: the handler takes no trailers, only the end they mark.
                return (nil, true)
            }
            state.headRead = true
            guard let head = Self.requestHead(content.headers) else {
                // A CONNECT (no :path): nothing here serves it.
                context.writeAndFlush(NIOAny(HTTP2Frame.FramePayload.rstStream(.refusedStream)), promise: nil)
                return (nil, false)
            }
            state.headEndedStream = content.endStream
            return (.head(head), content.endStream)
        case .data(let content):
            guard case .byteBuffer(let bytes) = content.data else { return (nil, false) }
            return (bytes.readableBytes > 0 ? .body(bytes) : nil, content.endStream)
        default:
            return (nil, false)   // RST_STREAM, WINDOW_UPDATE and the like have no request part
        }
    }

    /// The request a header block asks for: `:method` and `:path`, `:authority` as `Host`
    /// (unless the block has one), the regular fields as they came, except that the
    /// `cookie` crumbs HTTP/2 splits are joined into one field again (RFC 9113 §8.2.3).
    static func requestHead(_ block: HPACKHeaders) -> HTTPRequestHead? {
        var method: String?
        var path: String?
        var fields: [(String, String)] = []
        fields.reserveCapacity(block.count)
        var cookies: [String] = []
        var hasHost = false
        // Where the `host` made from `:authority` is: the pseudo-fields come before the
        // regular ones (RFC 9113 §8.3, which NIO checks), so it is the first field.
        var authorityIndex: Int?
        // Names are told apart by their length first: comparing a name with each literal
        // in turn costs a string comparison apiece.
        for (name, value, _) in block {
            let utf8 = name.utf8
            guard utf8.first == UInt8(ascii: ":") else {
                switch utf8.count {
                case 6 where name == "cookie":
                    cookies.append(value)
                    continue
                case 4 where name == "host":
                    // The client's own Host wins over the one made from :authority.
                    hasHost = true
                    if let index = authorityIndex {
                        fields.remove(at: index)
                        authorityIndex = nil
                    }
                default:
                    break
                }
                fields.append((name, value))
                continue
            }
            switch utf8.count {
            case 7 where name == ":method": method = value
            case 5 where name == ":path": path = value
            case 10 where name == ":authority" && !hasHost:
                if let index = authorityIndex {
                    fields[index] = ("host", value)
                } else {
                    // At the front, where no field is yet in a block NIO let through.
                    authorityIndex = 0
                    fields.insert(("host", value), at: 0)
                }
            default: break
            }
        }
        guard let method, let path else { return nil }
        if !cookies.isEmpty { fields.append(("cookie", cookies.joined(separator: "; "))) }
        return HTTPRequestHead(version: .http2, method: HTTPMethod(rawValue: method), uri: path, headers: HTTPHeaders(fields))
    }
}

/// What the handlers of one HTTP/2 connection's streams share: the connection's framing
/// (`HTTP2ConnectionFacts+Framing`).
final class HTTP2ConnectionFacts {
    /// The connection (the parent of the streams): GOAWAY and resets go there.
    let parent: any Channel
    /// The connection's open streams, which each stream's handler reports.
    let streams: HTTP2OpenStreams
    init(parent: any Channel, streams: HTTP2OpenStreams) {
        self.parent = parent
        self.streams = streams
    }
}

/// The open streams of one HTTP/2 connection, as each stream's request handler reports
/// them: opened when it is added to the stream, closed when it is removed (NIO removes a
/// closed channel's handlers). Used on the connection's event loop only: by the
/// connection's `HTTP2GracefulClose` and its streams' handlers, which run on that loop. No
/// `NIOLoopBoundBox` (a check of the loop on every access): nothing off the loop can reach
/// this object (it is not `Sendable`).
///
/// Not `NIOHTTP2Handler`'s stream delegate: its inline multiplexer copies the delegate's
/// existential with its own state several times per frame (Benchmarks/README.md has the
/// cost); a stream's handler sees the same opening and closing.
final class HTTP2OpenStreams {
    @exclusivity(unchecked) private var open = 0
    /// The highest stream the client opened (the root stream if none).
    @exclusivity(unchecked) private(set) var last = HTTP2StreamID.rootStream
    @exclusivity(unchecked) private var pending: (() -> Void)?

    init() {}

    /// Runs `action` once no stream is open: now, or when the last open one closes.
    func whenNoneOpen(_ action: @escaping () -> Void) {
        if open == 0 { action() } else { pending = action }
    }

    /// Forgets a pending `whenNoneOpen` (the connection closed first; it held the
    /// connection's handler context).
    func cancel() {
        pending = nil
    }

    /// A stream's handler was added (`id` nil when the stream has none to tell).
    func opened(_ id: HTTP2StreamID?) {
        open += 1
        if let id { last = max(last, id) }
    }

    /// A handler `opened` reported was removed: its stream closed.
    func closed() {
        open -= 1
        if open == 0, let action = pending {
            pending = nil
            action()
        }
    }
}

/// Its state has no lock: only its event loop may reach it (a `@unchecked Sendable` added
/// later would be a silent race; this makes it a compile error).
@available(*, unavailable)
extension HTTP2OpenStreams: Sendable {}

/// A stopping server's HTTP/2 connection: GOAWAY (NO_ERROR, naming the last stream it
/// took) at once, so the client opens no more streams here, then the connection closes
/// when its last open stream does (each stream's handler finishes its answer first).
///
/// Sits after `NIOHTTP2Handler`, which passes NIO's quiesce event on to every stream.
/// Without it a stopping server held idle HTTP/2 connections for the whole shutdown grace.
final class HTTP2GracefulClose: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let streams: HTTP2OpenStreams
    private var stopping = false

    init(streams: HTTP2OpenStreams) {
        self.streams = streams
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, !stopping {
            stopping = true
            let goAway = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: streams.last, errorCode: .noError, opaqueData: nil))
            context.writeAndFlush(wrapOutboundOut(goAway), promise: nil)
            // The last stream counts as closed once NIO has removed its handler, a tick
            // after its final frame was written: on the tick after that, the GOAWAY again
            // (the same last stream, which RFC 9113 6.8 allows) and the close once it is
            // written. Writes complete in order, so the streams' last bytes are out by
            // then, also when the socket or flow control held them.
            let loop = context.eventLoop.assumeIsolated()
            streams.whenNoneOpen { [self] in
                loop.execute {
                    context.writeAndFlush(self.wrapOutboundOut(goAway)).assumeIsolated().whenComplete { _ in
                        context.close(promise: nil)
                    }
                }
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        streams.cancel()
        context.fireChannelInactive()
    }
}

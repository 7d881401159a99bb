import Foundation
import MockCore
import NIOCore
import NIOHTTP1

/// How a connection's answers go on the wire: HTTP/1.1 bytes (`HTTP1ResponseWriter`) or an
/// HTTP/2 stream's frames (`MockServerTLS`'s writer). The connection handler decides what
/// to write and when (delays, pacing, faults, streams, the state machine); a writer only
/// encodes it, so the handler has no branch on the protocol.
///
/// Each method that ends an answer returns its last part unwritten: the handler writes and
/// flushes it, and knows from that write when the answer is out. Used on the connection's
/// event loop only.
package protocol ResponseWriter: AnyObject {
    /// Whether these header fields can go on the wire (no line breaks in a value, say).
    func canWrite(_ headers: HeaderFields) -> Bool

    /// Whether every answer needs a final status (200-599): HTTP/2 has no informational
    /// answer in place of a final one.
    var needsFinalStatus: Bool { get }

    /// The same whole answer (the whole `body` sent) as one this loop wrote and kept in
    /// `cache` before, or nil: everything but its last part is written, the last part is
    /// returned. Its headers were checked when it was kept, so it needs no `canWrite`.
    func kept(status: Int, headers: HeaderFields, body: Data, request: HTTPRequestHead, keepAlive: Bool,
              cache: ResponseCache, context: ChannelHandlerContext) -> NIOAny?

    /// A whole answer: everything but its last part is written; the last part is returned.
    /// `contentLength` is announced (the body's, even for a `HEAD`, which sends none); `body`
    /// is empty when none is sent. `cache`: where a whole body's answer is kept for `kept`
    /// (nil: not kept); the caller tried `kept` first.
    func whole(status: Int, headers: HeaderFields, body: Data, contentLength: Int?, request: HTTPRequestHead, keepAlive: Bool,
               cache: ResponseCache?, context: ChannelHandlerContext) -> NIOAny

    /// The head of an answer whose body follows in parts (`part`): with its length, or
    /// open-ended (`contentLength` nil: an event stream). Written and flushed.
    func head(status: Int, headers: HeaderFields, contentLength: Int?, request: HTTPRequestHead, keepAlive: Bool,
              context: ChannelHandlerContext)

    /// A part of a body whose head `head` wrote; the `last` one ends the answer. For an
    /// open-ended body each part is framed as it goes (a chunk, a DATA frame).
    func part(_ bytes: ByteBuffer, last: Bool, openEnded: Bool, context: ChannelHandlerContext) -> NIOAny

    /// The end of an open-ended body (the last chunk, an empty DATA frame that ends the stream).
    func end(context: ChannelHandlerContext) -> NIOAny

    /// An open-ended body stops without its end, after what was written went out: the
    /// connection closes (HTTP/1.1: FIN; a TCP reset when `reset`), or on HTTP/2 the
    /// stream is reset (RST_STREAM CANCEL; INTERNAL_ERROR when `reset`).
    func cut(reset: Bool, context: ChannelHandlerContext) -> FaultEnd
    /// A transport fault in place of the answer (never `hang`, which writes nothing). The
    /// writer writes what the fault shows the client and says what becomes of the connection.
    func fault(_ fault: Fault, plan: ResponsePlan, request: HTTPRequestHead, context: ChannelHandlerContext) -> FaultEnd
}

/// What a fault leaves of the connection.
package enum FaultEnd {
    /// The connection is closed (or reset) by the writer.
    case connectionClosed
    /// Only the stream ended (HTTP/2): the connection goes on.
    case streamEnded
}

/// HTTP/1.1: a whole answer is one buffer (the status line, the header lines this
/// connection wrote before when the plan brings the same list, the framing, the body), or
/// the same answer this loop encoded before (`ResponseCache`).
final class HTTP1ResponseWriter: ResponseWriter {
    private let requests: ConnectionRequests

    init(requests: ConnectionRequests) {
        self.requests = requests
    }

    var needsFinalStatus: Bool { false }

    func canWrite(_ headers: HeaderFields) -> Bool {
        // Lines written before on this connection were checked then.
        requests.headerLines.lines(for: headers) != nil || headers.areWritable
    }

    func kept(status: Int, headers: HeaderFields, body: Data, request: HTTPRequestHead, keepAlive: Bool,
              cache responses: ResponseCache, context: ChannelHandlerContext) -> NIOAny? {
        guard ResponseCache.admits(body) else { return nil }
        let http10 = request.version.major == 1 && request.version.minor == 0
        return responses.answer(status: status, http10: http10, keepAlive: keepAlive, headers: headers, body: body).map { NIOAny($0) }
    }

    func whole(status: Int, headers: HeaderFields, body: Data, contentLength: Int?, request: HTTPRequestHead, keepAlive: Bool,
               cache responses: ResponseCache?, context: ChannelHandlerContext) -> NIOAny {
        let http10 = request.version.major == 1 && request.version.minor == 0
        var buffer = headBuffer(status: status, headers: headers, http10: http10, extra: body.count,
                                framing: contentLength.map { .length($0) } ?? .none, keepAlive: keepAlive, context: context)
        buffer.writeData(body)
        if let responses, contentLength == body.count, ResponseCache.admits(body) {
            responses.keep(buffer, status: status, http10: http10, keepAlive: keepAlive, headers: headers, body: body)
        }
        return NIOAny(buffer)
    }

    func head(status: Int, headers: HeaderFields, contentLength: Int?, request: HTTPRequestHead, keepAlive: Bool,
              context: ChannelHandlerContext) {
        let http10 = request.version.major == 1 && request.version.minor == 0
        let buffer = headBuffer(status: status, headers: headers, http10: http10, extra: 0,
                                framing: contentLength.map { .length($0) } ?? .chunked, keepAlive: keepAlive, context: context)
        context.writeAndFlush(NIOAny(buffer), promise: nil)
    }

    func part(_ bytes: ByteBuffer, last: Bool, openEnded: Bool, context: ChannelHandlerContext) -> NIOAny {
        guard openEnded else { return NIOAny(bytes) }
        var buffer = context.channel.allocator.buffer(capacity: bytes.readableBytes + 16)
        ResponseHead.chunk(bytes.readableBytesView, into: &buffer)
        if last { buffer.writeStaticString("0\r\n\r\n") }
        return NIOAny(buffer)
    }

    func end(context: ChannelHandlerContext) -> NIOAny {
        NIOAny(context.channel.allocator.buffer(staticString: "0\r\n\r\n"))
    }

    /// The status line, the header lines and the framing, with room for `extra` more bytes.
    /// New header lines are kept for this connection's next answer: copied out, so an idle
    /// connection holds their bytes, not the response (a slice would keep its body alive).
    private func headBuffer(status: Int, headers: HeaderFields, http10: Bool, extra: Int, framing: ResponseHead.Framing,
                            keepAlive: Bool, context: ChannelHandlerContext) -> ByteBuffer {
        let keptLines = requests.headerLines.lines(for: headers)
        let capacity = keptLines.map { ResponseHead.capacity(forFieldBytes: $0.readableBytes) } ?? ResponseHead.capacity(for: headers)
        var buffer = context.channel.allocator.buffer(capacity: capacity + extra)
        ResponseHead.writeStatusLine(status: status, http10: http10, into: &buffer)
        if let keptLines {
            buffer.writeImmutableBuffer(keptLines)
        } else {
            let start = buffer.writerIndex
            ResponseHead.writeFields(headers, into: &buffer)
            if let written = buffer.getSlice(at: start, length: buffer.writerIndex - start) {
                var lines = context.channel.allocator.buffer(capacity: written.readableBytes)
                lines.writeImmutableBuffer(written)
                requests.headerLines.keep(lines, for: headers)
            }
        }
        ResponseHead.writeEnd(framing: framing, keepAlive: keepAlive, into: &buffer)
        return buffer
    }

    func fault(_ fault: Fault, plan: ResponsePlan, request: HTTPRequestHead, context: ChannelHandlerContext) -> FaultEnd {
        switch fault {
        case .hang:
            return .streamEnded
        case .emptyResponse:
            context.close(promise: nil)
        case .connectionReset:
            context.channel.resetConnection()
        case .truncatedBody:
            // The head promises the whole body; half of it arrives, then the connection closes.
            var buffer = context.channel.allocator.buffer(capacity: 256 + plan.body.count)
            ResponseHead.write(status: plan.status, headers: plan.headers, framing: .length(max(plan.body.count, 64)),
                               keepAlive: false, into: &buffer)
            buffer.writeData(plan.body.prefix(plan.body.count / 2))
            writeThenClose(buffer, context: context)
        case .malformedChunk:
            var buffer = context.channel.allocator.buffer(capacity: 256)
            let type: HeaderFields = plan.headers["Content-Type"].map { ["Content-Type": $0] } ?? [:]
            ResponseHead.write(status: plan.status, headers: type, framing: .chunked, keepAlive: false, into: &buffer)
            // A chunk-size line that is not hexadecimal.
            buffer.writeStaticString("ZZZ; not-a-size\r\n")
            buffer.writeData(plan.body.prefix(32))
            buffer.writeStaticString("\r\n")
            writeThenClose(buffer, context: context)
        case .randomDataThenClose:
            var random = SeededRandom(seed: StableHash.fnv1a64(request.uri), stream: "random-data")
            let bytes = (0..<256).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            writeThenClose(context.channel.allocator.buffer(bytes: bytes), context: context)
        }
        return .connectionClosed
    }

    func cut(reset: Bool, context: ChannelHandlerContext) -> FaultEnd {
        let channel = context.channel
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(capacity: 0))).assumeIsolated().whenComplete { _ in
            if reset { channel.resetConnection() } else { context.close(promise: nil) }
        }
        return .connectionClosed
    }

    /// Bytes as they are, then close.
    private func writeThenClose(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
        context.writeAndFlush(NIOAny(buffer)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

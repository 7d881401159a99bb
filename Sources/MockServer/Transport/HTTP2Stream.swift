import NIOCore
import NIOHTTP1
import NIOHTTP2

/// HTTP/2 streams reuse `HTTPRequestHandler` whole (#15): scenarios, journal, admin,
/// delays, pacing and network profiles are the same code on both protocols. The handler
/// writes HTTP/1.1 response bytes it composed itself (`ResponseHead`); this adapter, on
/// each stream, reads them back into response parts, which NIO's codec turns into
/// HEADERS and DATA frames. It parses only what `ResponseHead` writes: a status line,
/// headers, and a body framed by `Content-Length`, chunks, or nothing.
///
/// Faults do not come through here: on a stream they are frames (`HTTPRequestHandler+HTTP2`).
final class HTTP2ResponseAdapter: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = HTTPServerResponsePart

    private enum Phase {
        /// Bytes of the head so far.
        case head(ByteBuffer)
        case length(remaining: Int)
        /// Chunked: reading a size line (bytes so far), or `remaining` bytes of a chunk
        /// then its CRLF (`trailer` bytes of it left).
        case chunkSize(ByteBuffer)
        case chunkData(remaining: Int)
        case chunkEnd(remaining: Int)
        case done
    }

    /// A head larger than this is not one `ResponseHead` wrote.
    static let maxHeadBytes = 256 * 1024

    private var phase = Phase.head(ByteBuffer())
    private var isHEAD = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) { isHEAD = head.method == .HEAD }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var bytes = unwrapOutboundIn(data)
        var parts: [HTTPServerResponsePart] = []
        convert(&bytes, into: &parts)
        guard let last = parts.popLast() else {
            promise?.succeed(())
            return
        }
        for part in parts { context.write(wrapOutboundOut(part), promise: nil) }
        context.write(wrapOutboundOut(last), promise: promise)
    }

    /// Whether the response was written to its end (else closing the stream resets it).
    var finished: Bool {
        if case .done = phase { return true }
        return false
    }

    private func convert(_ bytes: inout ByteBuffer, into parts: inout [HTTPServerResponsePart]) {
        while bytes.readableBytes > 0 {
            switch phase {
            case .head(var buffer):
                buffer.writeBuffer(&bytes)
                guard let end = buffer.readableBytesView.firstRange(of: [13, 10, 13, 10]) else {
                    phase = buffer.readableBytes > Self.maxHeadBytes ? .done : .head(buffer)
                    return
                }
                let headLength = end.upperBound - buffer.readerIndex
                let text = buffer.readString(length: headLength) ?? ""
                bytes = buffer   // what followed the head
                let (head, framing) = Self.parseHead(text)
                parts.append(.head(head))
                switch framing {
                case .length(let count) where count > 0 && !isHEAD:
                    phase = .length(remaining: count)
                case .chunked where !isHEAD:
                    phase = .chunkSize(ByteBuffer())
                default:
                    parts.append(.end(nil))
                    phase = .done
                }
            case .length(let remaining):
                let slice = bytes.readSlice(length: min(remaining, bytes.readableBytes))!
                parts.append(.body(.byteBuffer(slice)))
                if remaining - slice.readableBytes == 0 {
                    parts.append(.end(nil))
                    phase = .done
                } else {
                    phase = .length(remaining: remaining - slice.readableBytes)
                }
            case .chunkSize(var line):
                let byte = bytes.readInteger(as: UInt8.self)!
                guard byte == 10 else {
                    line.writeInteger(byte)
                    phase = line.readableBytes > 64 ? .done : .chunkSize(line)
                    continue
                }
                let text = (line.readString(length: line.readableBytes) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                let size = Int(text.prefix { $0 != ";" }, radix: 16) ?? 0
                if size == 0 {
                    parts.append(.end(nil))
                    phase = .done
                } else {
                    phase = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let slice = bytes.readSlice(length: min(remaining, bytes.readableBytes))!
                parts.append(.body(.byteBuffer(slice)))
                phase = remaining == slice.readableBytes ? .chunkEnd(remaining: 2) : .chunkData(remaining: remaining - slice.readableBytes)
            case .chunkEnd(let remaining):
                let skip = min(remaining, bytes.readableBytes)
                bytes.moveReaderIndex(forwardBy: skip)
                phase = remaining == skip ? .chunkSize(ByteBuffer()) : .chunkEnd(remaining: remaining - skip)
            case .done:
                return
            }
        }
    }

    enum Framing: Equatable { case length(Int), chunked, none }

    /// The status and headers of a head `ResponseHead` wrote; its framing headers tell
    /// how the body ends and are not passed on (HTTP/2 frames the body itself), except
    /// `Content-Length`, which HTTP/2 keeps.
    static func parseHead(_ text: String) -> (HTTPResponseHead, Framing) {
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: true).makeIterator()
        let statusLine = lines.next() ?? ""
        let code = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 500
        var headers = HTTPHeaders()
        var framing = Framing.none
        while let line = lines.next() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = String(line[line.index(after: colon)...].drop { $0 == " " })
            switch name.lowercased() {
            case "content-length":
                framing = .length(Int(value) ?? 0)
                headers.add(name: name, value: value)
            case "transfer-encoding":
                framing = .chunked
            case "connection", "keep-alive", "proxy-connection", "upgrade":
                break
            default:
                headers.add(name: name, value: value)
            }
        }
        return (HTTPResponseHead(version: .http2, status: HTTPResponseStatus(statusCode: code), headers: headers), framing)
    }
}

/// Asks the lowest handler of a stream to end it with `RST_STREAM` and this code.
struct ResetStream {
    let code: HTTP2ErrorCode
}

/// The lowest handler of a stream (below NIO's HTTP/1 codec, which knows no resets):
/// writes the `RST_STREAM` frame a fault asks for.
final class StreamResetter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let reset = event as? ResetStream else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        context.writeAndFlush(wrapOutboundOut(.rstStream(reset.code)), promise: promise)
    }
}

/// What the handlers of one HTTP/2 connection's streams share.
final class HTTP2ConnectionFacts {
    /// The connection (the parent of the streams): GOAWAY and resets go there.
    let parent: any Channel
    init(parent: any Channel) {
        self.parent = parent
    }
}

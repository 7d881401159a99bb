import Foundation
import MockCore
import MockServer
import NIOCore
import NIOFoundationCompat
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// Answering on an HTTP/2 stream: the connection handler writes the HEADERS and DATA
/// frames made here (this is its `ResponseWriter`). The response's head is one HEADERS frame (ending the stream when there
/// is no body) and a whole body one DATA frame that ends it; NIO's connection handler
/// splits DATA to the peer's frame size and flow-control window.
///
/// Faults on a stream are frames too. The table is in the Faults article.
///
/// | Fault | HTTP/2 |
/// |---|---|
/// | `connectionReset` | GOAWAY (INTERNAL_ERROR) and a TCP reset: every stream on the connection fails |
/// | `emptyResponse` | RST_STREAM (INTERNAL_ERROR) before any HEADERS; the connection lives on |
/// | `truncatedBody` | HEADERS with the whole `content-length`, half the DATA, RST_STREAM (INTERNAL_ERROR) |
/// | `malformedChunk` | HEADERS, a DATA frame, RST_STREAM (PROTOCOL_ERROR) (HTTP/2 has no chunks) |
/// | `randomDataThenClose` | GOAWAY (PROTOCOL_ERROR), then the connection closes |
/// | `hang` | no frame; the stream stays open until the client gives up (the connection handler's doing) |
extension HTTP2ConnectionFacts: StreamFraming {
    func decode(_ data: NIOAny, into state: inout StreamReadState, context: ChannelHandlerContext) -> (part: HTTPServerRequestPart?, ends: Bool) {
        HTTP2RequestDecoder.decode(data, into: &state, context: context)
    }

    func streamOpened(context: ChannelHandlerContext) {
        streams.opened(try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID))
    }

    func streamClosed() {
        streams.closed()
    }

    // MARK: ResponseWriter

    var needsFinalStatus: Bool { true }

    func canWrite(_ headers: HeaderFields) -> Bool { headers.areWritable }

    /// The frames this loop made for the same parts: the HEADERS frame written, the DATA
    /// frame that ends the stream returned.
    func kept(status: Int, headers: HeaderFields, body: Data, request: HTTPRequestHead, keepAlive: Bool,
              cache: ResponseCache, context: ChannelHandlerContext) -> NIOAny? {
        guard ResponseCache.admits(body), let frames = cache.frames(status: status, headers: headers, body: body) else { return nil }
        context.write(frames.head, promise: nil)
        return dataFrame(frames.body, last: true)
    }

    /// The HEADERS frame, then the body in one DATA frame that ends the stream (returned).
    func whole(status: Int, headers: HeaderFields, body: Data, contentLength: Int?, request: HTTPRequestHead, keepAlive: Bool,
               cache: ResponseCache?, context: ChannelHandlerContext) -> NIOAny {
        guard !body.isEmpty else {
            return headFrame(status: status, headers: headers, contentLength: contentLength, endStream: true)
        }
        if let cache, contentLength == body.count, ResponseCache.admits(body) {
            let frames = StreamAnswer(head: headFrame(status: status, headers: headers, contentLength: contentLength, endStream: false),
                                      body: context.channel.allocator.buffer(data: body))
            cache.keep(frames, status: status, headers: headers, body: body)
            context.write(frames.head, promise: nil)
            return dataFrame(frames.body, last: true)
        }
        context.write(headFrame(status: status, headers: headers, contentLength: contentLength, endStream: false), promise: nil)
        return dataFrame(context.channel.allocator.buffer(data: body), last: true)
    }

    func head(status: Int, headers: HeaderFields, contentLength: Int?, request: HTTPRequestHead, keepAlive: Bool,
              context: ChannelHandlerContext) {
        context.writeAndFlush(headFrame(status: status, headers: headers, contentLength: contentLength, endStream: false), promise: nil)
    }

    func part(_ bytes: ByteBuffer, last: Bool, openEnded: Bool, context: ChannelHandlerContext) -> NIOAny {
        dataFrame(bytes, last: last)
    }

    func end(context: ChannelHandlerContext) -> NIOAny {
        dataFrame(context.channel.allocator.buffer(capacity: 0), last: true)
    }

    private func headFrame(status: Int, headers: HeaderFields, contentLength: Int?, endStream: Bool) -> NIOAny {
        NIOAny(Self.headersFrame(status: status, headers: headers, contentLength: contentLength, endStream: endStream))
    }

    private func dataFrame(_ bytes: ByteBuffer, last: Bool) -> NIOAny {
        NIOAny(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(bytes), endStream: last)))
    }

    func cut(reset: Bool, context: ChannelHandlerContext) -> FaultEnd {
        resetStream(reset ? .internalError : .cancel, context: context)
        return .streamEnded
    }

    /// A fault as HTTP/2 carries it (the table above).
    func fault(_ fault: Fault, plan: ResponsePlan, request: HTTPRequestHead, context: ChannelHandlerContext) -> FaultEnd {
        switch fault {
        case .hang:
            return .streamEnded
        case .connectionReset:
            goAway(.internalError, context: context, reset: true)
            return .connectionClosed
        case .randomDataThenClose:
            goAway(.protocolError, context: context, reset: false)
            return .connectionClosed
        case .emptyResponse:
            resetStream(.internalError, context: context)
        case .truncatedBody:
            // The head promises the whole body; half of it arrives, then the stream is reset.
            context.write(headFrame(status: plan.status, headers: plan.headers, contentLength: max(plan.body.count, 64), endStream: false), promise: nil)
            let half = plan.body.prefix(plan.body.count / 2)
            if !half.isEmpty { context.write(dataFrame(context.channel.allocator.buffer(data: half), last: false), promise: nil) }
            resetStream(.internalError, context: context)
        case .malformedChunk:
            let type: HeaderFields = plan.headers["Content-Type"].map { ["Content-Type": $0] } ?? [:]
            context.write(headFrame(status: plan.status, headers: type, contentLength: nil, endStream: false), promise: nil)
            let start = plan.body.prefix(32)
            if !start.isEmpty { context.write(dataFrame(context.channel.allocator.buffer(data: start), last: false), promise: nil) }
            resetStream(.protocolError, context: context)
        }
        return .streamEnded
    }

    /// A response's HEADERS frame: `:status`, then the plan's fields with lower-case names
    /// (RFC 9113 §8.2.1) except the connection-specific ones HTTP/2 forbids (§8.2.2) and
    /// the plan's own `content-length`, which `contentLength` replaces.
    static func headersFrame(status: Int, headers: HeaderFields, contentLength: Int?, endStream: Bool) -> HTTP2Frame.FramePayload {
        .headers(.init(headers: fieldBlock(status: status, headers: headers, contentLength: contentLength), endStream: endStream))
    }

    /// The fields of that HEADERS frame.
    static func fieldBlock(status: Int, headers: HeaderFields, contentLength: Int?) -> HPACKHeaders {
        var block = HPACKHeaders()
        block.reserveCapacity(headers.fields.count + 2)
        block.add(name: ":status", value: (100...999).contains(status) ? statusCodes[status - 100] : "500")
        for field in headers {
            let name = lowercased(field.name)
            guard !isConnectionSpecific(name) else { continue }
            block.add(name: name, value: field.value)
        }
        if let contentLength { block.add(name: "content-length", value: String(contentLength)) }
        return block
    }

    /// "100" to "999", built once.
    private static let statusCodes: [String] = (100...999).map { String($0) }

    /// The name itself when it has no upper-case letter (the common case: no copy).
    private static func lowercased(_ name: String) -> String {
        name.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } ? name.lowercased() : name
    }

    /// Fields HTTP/2 does not carry, and `content-length`, which the frame writer sets.
    private static func isConnectionSpecific(_ name: String) -> Bool {
        switch name {
        case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "content-length": return true
        default: return false
        }
    }

    private func resetStream(_ code: HTTP2ErrorCode, context: ChannelHandlerContext) {
        context.writeAndFlush(NIOAny(HTTP2Frame.FramePayload.rstStream(code)), promise: nil)
    }

    /// GOAWAY on the connection naming this stream as the last one processed (so the
    /// client does not retry it elsewhere), then a reset or a close of the connection.
    private func goAway(_ code: HTTP2ErrorCode, context: ChannelHandlerContext, reset: Bool) {
        let streamID = (try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)) ?? .maxID
        let parent = parent
        let frame = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: streamID, errorCode: code, opaqueData: nil))
        parent.eventLoop.execute {
            parent.writeAndFlush(frame).whenComplete { _ in
                if reset { parent.resetConnection() } else { parent.close(promise: nil) }
            }
        }
    }
}

import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import Scenarios

/// Answering on an HTTP/2 stream (#24): the handler writes HEADERS and DATA frames itself,
/// with no HTTP/1 bytes or response parts in between. The response's head is one HEADERS
/// frame (ending the stream when there is no body) and a whole body one DATA frame that
/// ends it; NIO's connection handler splits DATA to the peer's frame size and flow-control
/// window.
///
/// Faults on a stream are frames too (#15). The table is in the Faults article.
///
/// | Fault | HTTP/2 |
/// |---|---|
/// | `connectionReset` | GOAWAY (INTERNAL_ERROR) and a TCP reset: every stream on the connection fails |
/// | `emptyResponse` | RST_STREAM (INTERNAL_ERROR) before any HEADERS; the connection lives on |
/// | `truncatedBody` | HEADERS with the whole `content-length`, half the DATA, RST_STREAM (INTERNAL_ERROR) |
/// | `malformedChunk` | HEADERS, a DATA frame, RST_STREAM (PROTOCOL_ERROR) (HTTP/2 has no chunks) |
/// | `randomDataThenClose` | GOAWAY (PROTOCOL_ERROR), then the connection closes |
/// | `hang` | no frame; the stream stays open until the client gives up |
extension HTTPRequestHandler {
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

    /// A body's bytes: raw on HTTP/1.1 (the caller framed them), a DATA frame on HTTP/2,
    /// where the last one ends the stream.
    func bodyPart(_ bytes: ByteBuffer, last: Bool) -> NIOAny {
        guard isHTTP2 else { return wrapOutboundOut(bytes) }
        return NIOAny(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(bytes), endStream: last)))
    }

    /// A stream's handler is added by the stream's initializer and removed once the
    /// stream closes, whichever way (NIO removes a closed channel's handlers, once): the
    /// connection's count of open streams (`HTTP2OpenStreams`).
    func handlerAdded(context: ChannelHandlerContext) {
        shared.http2?.streams.opened(try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID))
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        shared.http2?.streams.closed()
    }

    /// The whole response on a stream: HEADERS, then the body in one DATA frame or paced.
    func respondOnHTTP2(status: Int, headers: HeaderFields, body: Data, contentLength: Int?, pacing: BodyPacing?,
                        context: ChannelHandlerContext, keepAlive: Bool) {
        guard !(100..<200).contains(status) else {
            // An informational status is no final answer on HTTP/2 (RFC 9113 §8.1): say so.
            let error = ResponsePlan.error(500, "The response's status \(status) is informational: HTTP/2 needs a final status (200-599)")
            respondOnHTTP2(status: 500, headers: error.headers, body: error.body, contentLength: error.body.count, pacing: nil,
                           context: context, keepAlive: keepAlive)
            return
        }
        // A whole body sent at once: the frames this loop made for the same parts, or made
        // now and kept (`ResponseCache`).
        if pacing == nil, contentLength == body.count, ResponseCache.admits(body) {
            let frames = shared.delays.responses.frames(status: status, headers: headers, body: body) ?? {
                let frames = ResponseCache.Frames(fields: Self.fieldBlock(status: status, headers: headers, contentLength: contentLength),
                                                  body: context.channel.allocator.buffer(data: body))
                shared.delays.responses.keep(frames, status: status, headers: headers, body: body)
                return frames
            }()
            writeOnHTTP2(frames, context: context, keepAlive: keepAlive)
            return
        }
        let head = Self.headersFrame(status: status, headers: headers, contentLength: contentLength, endStream: body.isEmpty)
        guard !body.isEmpty else {
            send(NIOAny(head), context: context, keepAlive: keepAlive)
            return
        }
        let bytes = context.channel.allocator.buffer(data: body)
        if let pacing {
            context.writeAndFlush(NIOAny(head), promise: nil)
            writePaced(bytes, pacing: pacing, context: context, keepAlive: keepAlive)
            return
        }
        context.write(NIOAny(head), promise: nil)
        send(bodyPart(bytes, last: true), context: context, keepAlive: keepAlive)
    }

    /// A whole answer's frames: its HEADERS, then one DATA frame that ends the stream.
    func writeOnHTTP2(_ frames: ResponseCache.Frames, context: ChannelHandlerContext, keepAlive: Bool) {
        context.write(NIOAny(HTTP2Frame.FramePayload.headers(.init(headers: frames.fields, endStream: false))), promise: nil)
        send(bodyPart(frames.body, last: true), context: context, keepAlive: keepAlive)
    }

    func performOnHTTP2(_ fault: Fault, plan: ResponsePlan, facts: HTTP2ConnectionFacts, context: ChannelHandlerContext) {
        guard fault != .hang else {
            startHanging()   // no frame; the stream stays open until the client gives up
            return
        }
        finishClosing()
        switch fault {
        case .hang:
            break
        case .connectionReset:
            goAway(.internalError, facts: facts, context: context, reset: true)
        case .randomDataThenClose:
            goAway(.protocolError, facts: facts, context: context, reset: false)
        case .emptyResponse:
            resetStream(.internalError, context: context)
        case .truncatedBody:
            // The head promises the whole body; half of it arrives, then the stream is reset.
            let head = Self.headersFrame(status: plan.status, headers: plan.headers, contentLength: max(plan.body.count, 64), endStream: false)
            context.write(NIOAny(head), promise: nil)
            let half = plan.body.prefix(plan.body.count / 2)
            if !half.isEmpty { context.write(bodyPart(context.channel.allocator.buffer(data: half), last: false), promise: nil) }
            resetStream(.internalError, context: context)
        case .malformedChunk:
            let type: HeaderFields = plan.headers["Content-Type"].map { ["Content-Type": $0] } ?? [:]
            context.write(NIOAny(Self.headersFrame(status: plan.status, headers: type, contentLength: nil, endStream: false)), promise: nil)
            let start = plan.body.prefix(32)
            if !start.isEmpty { context.write(bodyPart(context.channel.allocator.buffer(data: start), last: false), promise: nil) }
            resetStream(.protocolError, context: context)
        }
    }

    private func resetStream(_ code: HTTP2ErrorCode, context: ChannelHandlerContext) {
        context.writeAndFlush(NIOAny(HTTP2Frame.FramePayload.rstStream(code)), promise: nil)
    }

    /// GOAWAY on the connection naming this stream as the last one processed (so the
    /// client does not retry it elsewhere), then a reset or a close of the connection.
    private func goAway(_ code: HTTP2ErrorCode, facts: HTTP2ConnectionFacts, context: ChannelHandlerContext, reset: Bool) {
        let streamID = (try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)) ?? .maxID
        let parent = facts.parent
        let frame = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: streamID, errorCode: code, opaqueData: nil))
        parent.eventLoop.execute {
            parent.writeAndFlush(frame).whenComplete { _ in
                if reset { parent.resetConnection() } else { parent.close(promise: nil) }
            }
        }
    }
}

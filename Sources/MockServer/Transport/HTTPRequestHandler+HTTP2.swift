import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import Scenarios

/// Faults on an HTTP/2 stream (#15): what a client sees there instead of HTTP/1.1's
/// broken bytes. The table is in the Faults article.
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
            var buffer = context.channel.allocator.buffer(capacity: 256 + plan.body.count)
            ResponseHead.write(status: plan.status, headers: plan.headers, framing: .length(max(plan.body.count, 64)),
                               keepAlive: false, into: &buffer)
            buffer.writeData(plan.body.prefix(plan.body.count / 2))
            context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
            resetStream(.internalError, context: context)
        case .malformedChunk:
            var buffer = context.channel.allocator.buffer(capacity: 256)
            let type: HeaderFields = plan.headers["Content-Type"].map { ["Content-Type": $0] } ?? [:]
            ResponseHead.write(status: plan.status, headers: type, framing: .chunked, keepAlive: false, into: &buffer)
            ResponseHead.chunk(plan.body.prefix(32), into: &buffer)
            context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
            resetStream(.protocolError, context: context)
        }
    }

    private func resetStream(_ code: HTTP2ErrorCode, context: ChannelHandlerContext) {
        context.triggerUserOutboundEvent(ResetStream(code: code), promise: nil)
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

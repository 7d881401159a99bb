import Foundation
import NIOCore
import Scenarios

/// Answering on an HTTP/2 stream: the handler writes the head and body as the
/// connection's `StreamFraming` frames them, with no HTTP/1 bytes or response parts in
/// between. The response's head is one message (ending the stream when there is no body)
/// and a whole body one more that ends it; the framing splits it to the peer's frame size
/// and flow-control window.
///
/// Faults on a stream are frames too (`StreamFraming.writeFault`); the table is in the
/// Faults article.
extension HTTPRequestHandler {
    /// A body's bytes: raw on HTTP/1.1 (the caller framed them), the stream's body message
    /// on HTTP/2, where the last one ends the stream.
    func bodyPart(_ bytes: ByteBuffer, last: Bool) -> NIOAny {
        guard let framing = shared.http2 else { return wrapOutboundOut(bytes) }
        return framing.body(bytes, last: last)
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

    /// The whole response on a stream: its head, then the body in one message or paced.
    func respondOnHTTP2(status: Int, headers: HeaderFields, body: Data, contentLength: Int?, pacing: BodyPacing?,
                        context: ChannelHandlerContext, keepAlive: Bool) {
        guard let framing = shared.http2 else { return }
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
                let frames = framing.encode(status: status, headers: headers, contentLength: contentLength,
                                            body: context.channel.allocator.buffer(data: body))
                shared.delays.responses.keep(frames, status: status, headers: headers, body: body)
                return frames
            }()
            writeOnHTTP2(frames, context: context, keepAlive: keepAlive)
            return
        }
        let head = framing.head(status: status, headers: headers, contentLength: contentLength, endStream: body.isEmpty)
        guard !body.isEmpty else {
            send(head, context: context, keepAlive: keepAlive)
            return
        }
        let bytes = context.channel.allocator.buffer(data: body)
        if let pacing {
            context.writeAndFlush(head, promise: nil)
            writePaced(bytes, pacing: pacing, context: context, keepAlive: keepAlive)
            return
        }
        context.write(head, promise: nil)
        send(bodyPart(bytes, last: true), context: context, keepAlive: keepAlive)
    }

    /// A whole answer encoded before: its head, then one body message that ends the stream.
    func writeOnHTTP2(_ frames: ResponseCache.Frames, context: ChannelHandlerContext, keepAlive: Bool) {
        context.write(frames.head, promise: nil)
        send(bodyPart(frames.body, last: true), context: context, keepAlive: keepAlive)
    }

    /// A fault on a stream: `hang` writes nothing and leaves the stream open until the
    /// client gives up; any other ends this request's answering, in the framing's frames.
    func performOnHTTP2(_ fault: Fault, plan: ResponsePlan, framing: any StreamFraming, context: ChannelHandlerContext) {
        guard fault != .hang else {
            startHanging()
            return
        }
        finishClosing()
        framing.writeFault(fault, plan: plan, context: context)
    }
}

import MockCore
import NIOCore

/// Answers a connection past `maxConnections`: a 503 with a JSON body that says why, then
/// closes. What the client sends meanwhile is read and dropped (closing with unread bytes
/// would reset the connection before the client could read the answer), for at most a
/// second. Costs one small buffer; the request is never parsed.
final class RefusedConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let limit: Int

    init(limit: Int) { self.limit = limit }

    static func response(limit: Int) -> ResponsePlan {
        var plan = ResponsePlan.error(503, "The server has \(limit) connections open, its limit (--max-connections); close idle connections or raise the limit",
                                      details: ["limit": .number(Double(limit))])
        plan.headers.add("Retry-After", "1")
        return plan
    }

    func channelActive(context: ChannelHandlerContext) {
        let plan = Self.response(limit: limit)
        var buffer = context.channel.allocator.buffer(capacity: 256 + plan.body.count)
        ResponseHead.write(status: 503, headers: plan.headers, framing: .length(plan.body.count), keepAlive: false, into: &buffer)
        buffer.writeData(plan.body)
        let channel = context.channel
        context.writeAndFlush(NIOAny(buffer)).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
        }
        context.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
        }
    }
}

import NIOCore
import Scenarios

/// Knows every open connection so a stopping server can close them all.
final class ConnectionTracker: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    private let open = Locked([ObjectIdentifier: any Channel]())

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        open.withLock { $0[ObjectIdentifier(channel)] = channel }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        let channel = context.channel
        open.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(channel)) }
        context.fireChannelInactive()
    }

    var count: Int { open.withLock { $0.count } }

    func closeAll() async {
        let channels = open.withLock { Array($0.values) }
        for channel in channels {
            try? await channel.close()
        }
    }
}

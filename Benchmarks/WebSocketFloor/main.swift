// The floor under the mock's WebSocket echo, for Benchmarks/instructions.sh --ws: SwiftNIO's
// WebSocket server example (swift-nio's Sources/NIOWebSocketServer) with its pipeline as it
// is, `configureUpgradableHTTPServerPipeline` with a `NIOTypedWebSocketServerUpgrader` that
// accepts every upgrade and adds NIO's frame decoder and encoder, made to echo: the example
// sends the time every second and ignores what comes in. Here a channel handler on the
// event loop (the example's `NIOAsyncChannel` and its tasks add hops the mock does not
// make) answers each text or binary frame with an unmasked frame of the same opcode and
// payload, a ping with a pong, and a close with a close echoing its code, then closes. No
// script, no journal, no matching: what the mock's WebSocket adds costs the distance
// between the two.
//
//   ws-floor            prints "Listening on http://127.0.0.1:PORT"; any path upgrades,
//                       and a request that asks for no upgrade gets a 200 with an empty body.
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// Echoes each data frame; answers pings and closes as RFC 6455 asks.
final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private var closing = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = Self.unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary, .continuation:
            guard !closing else { return }
            context.writeAndFlush(Self.wrapOutboundOut(WebSocketFrame(fin: frame.fin, opcode: frame.opcode, data: frame.unmaskedData)),
                                  promise: nil)
        case .ping:
            context.writeAndFlush(Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            closing = true
            var data = frame.unmaskedData
            let code = data.readSlice(length: 2) ?? ByteBuffer()
            context.writeAndFlush(Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: code)))
                .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        default:
            break
        }
    }
}

/// Answers a request that asks for no upgrade: 200, empty, keep-alive (how instructions.sh
/// sees that the server is up).
final class PlainHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = Self.unwrapInboundIn(data) else { return }
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "0"])
        context.write(Self.wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
    }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let bootstrap = ServerBootstrap(group: group)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            let upgrader = NIOTypedWebSocketServerUpgrader<Bool>(
                shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(EchoHandler())
                        return true
                    }
                })
            let configuration = NIOTypedHTTPServerUpgradeConfiguration<Bool>(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(PlainHandler())
                        return false
                    }
                })
            _ = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
                configuration: .init(upgradeConfiguration: configuration))
        }
    }
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
let server = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
// Unbuffered, as nio-floor: `print` to a pipe waits in a buffer, and the line is how a script finds the port.
FileHandle.standardOutput.write(Data("Listening on http://127.0.0.1:\(server.localAddress?.port ?? 0)\n".utf8))
try server.closeFuture.wait()

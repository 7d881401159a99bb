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
//
// With WS_FLOOR_LEAN=1 in its environment it is the lean floor instead: it does what the
// mock's own handler does beyond the example (each frame written as one buffer, its header
// and payload, past NIO's frame encoder, from the encoder's place; NIO's instance `unwrapInboundIn`
// rather than the static one), so that the distance to it is what the mock's features cost
// and nothing else (Benchmarks/README.md, "Streams").
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

/// The lean floor's echo: the same answers, each written as one buffer (FIN, the opcode, the
/// payload's length in 7, 16 or 64 bits, no mask; RFC 6455 §5.2) from the frame encoder's
/// place in the pipeline, so that the encoder, which the upgrade added, never sees it.
final class LeanEchoHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = ByteBuffer

    private var closing = false
    private var below: ChannelHandlerContext!

    func handlerAdded(context: ChannelHandlerContext) {
        below = try! context.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary, .continuation:
            guard !closing else { return }
            below.writeAndFlush(wrapOutboundOut(Self.frame(context, fin: frame.fin, frame.opcode, frame.unmaskedData)), promise: nil)
        case .ping:
            below.writeAndFlush(wrapOutboundOut(Self.frame(context, fin: true, .pong, frame.unmaskedData)), promise: nil)
        case .connectionClose:
            closing = true
            var data = frame.unmaskedData
            let code = data.readSlice(length: 2) ?? ByteBuffer()
            below.writeAndFlush(wrapOutboundOut(Self.frame(context, fin: true, .connectionClose, code)))
                .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        default:
            break
        }
    }

    static func frame(_ context: ChannelHandlerContext, fin: Bool, _ opcode: WebSocketOpcode, _ payload: ByteBuffer) -> ByteBuffer {
        let size = payload.readableBytes
        var buffer = context.channel.allocator.buffer(capacity: 10 + size)
        buffer.writeInteger((fin ? 0x80 : 0) | UInt8(webSocketOpcode: opcode))
        if size <= 125 {
            buffer.writeInteger(UInt8(size))
        } else if size <= Int(UInt16.max) {
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(size))
        } else {
            buffer.writeInteger(UInt8(127))
            buffer.writeInteger(UInt64(size))
        }
        var payload = payload
        buffer.writeBuffer(&payload)
        return buffer
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

let lean = ProcessInfo.processInfo.environment["WS_FLOOR_LEAN"] == "1"
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let bootstrap = ServerBootstrap(group: group)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            let upgrader = NIOTypedWebSocketServerUpgrader<Bool>(
                shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        if lean {
                            try channel.pipeline.syncOperations.addHandler(LeanEchoHandler())
                        } else {
                            try channel.pipeline.syncOperations.addHandler(EchoHandler())
                        }
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

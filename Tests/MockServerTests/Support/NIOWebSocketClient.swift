import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// A WebSocket client built from SwiftNIO's own parts (`NIOTypedWebSocketClientUpgrader`,
/// which checks the server's `Sec-WebSocket-Accept`), over plain TCP, TLS, or TLS through a
/// forward proxy's `CONNECT` tunnel. It masks what it sends and yields the frames it
/// receives, in order; the stream ends when the connection closes.
struct NIOWebSocketClient {
    let channel: any Channel
    let frames: AsyncThrowingStream<WebSocketFrame, any Error>
    private let iterator: Iterator

    /// Where the client connects, and what it speaks first.
    enum Route {
        case direct
        /// `CONNECT authority` through the proxy at the address connected to, then TLS (and
        /// the upgrade) inside the tunnel.
        case proxy(authority: String)
    }

    /// Opens `path` on `host:port`; TLS when `tls` is given, with `serverName` for SNI and the
    /// certificate's name. Throws when the server does not upgrade.
    static func connect(host: String = "127.0.0.1", port: Int, path: String, hostHeader: String = "localhost",
                        tls: NIOSSLContext? = nil, serverName: String? = nil, route: Route = .direct,
                        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> NIOWebSocketClient {
        let (stream, continuation) = AsyncThrowingStream<WebSocketFrame, any Error>.makeStream()
        let (channel, upgraded): (any Channel, EventLoopFuture<Bool>) = try await ClientBootstrap(group: group)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let promise = channel.eventLoop.makePromise(of: Bool.self)
                    let install: @Sendable (any Channel) throws -> Void = { channel in
                        if let tls {
                            try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: serverName))
                        }
                        var headers = HTTPHeaders()
                        headers.add(name: "Host", value: hostHeader)
                        let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(maxFrameSize: 1 << 20, enableAutomaticErrorHandling: false) { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(Collector(continuation))
                                return true
                            }
                        }
                        let configuration = NIOTypedHTTPClientUpgradeConfiguration<Bool>(
                            upgradeRequestHead: HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers),
                            upgraders: [upgrader], notUpgradingCompletionHandler: { $0.eventLoop.makeSucceededFuture(false) })
                        var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                        // Frames the server sends right behind its 101 may arrive in the same read.
                        pipeline.leftOverBytesStrategy = .forwardBytes
                        let result = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                        result.cascade(to: promise)
                    }
                    switch route {
                    case .direct:
                        try install(channel)
                    case .proxy(let authority):
                        try channel.pipeline.syncOperations.addHandler(Tunnel(authority: authority, promise: promise, then: install))
                    }
                    return (channel, promise.futureResult)
                }
            }
        guard try await upgraded.get() else {
            try? await channel.close()
            throw Failure("the server did not upgrade \(path)")
        }
        return NIOWebSocketClient(channel: channel, frames: stream, iterator: Iterator(stream.makeAsyncIterator()))
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The next frame the server sent, or nil once the connection closed; throws when none
    /// comes within `timeout` seconds (a margin no loaded machine needs: a hang fails, not waits).
    func next(timeout: TimeInterval = 20) async throws -> WebSocketFrame? {
        let iterator = iterator
        return try await withThrowingTaskGroup(of: WebSocketFrame?.self) { group in
            group.addTask { try await iterator.next() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
                throw Failure("no frame came within \(timeout) s")
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// The next text message, skipping nothing: a frame of another kind fails.
    func nextText() async throws -> String {
        guard let frame = try await next() else { throw Failure("the connection closed before a text frame") }
        guard frame.opcode == .text else { throw Failure("expected a text frame, got \(frame.opcode)") }
        return String(buffer: frame.unmaskedData)
    }

    func send(_ opcode: WebSocketOpcode, _ bytes: [UInt8]) async throws {
        let frame = WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: ByteBuffer(bytes: bytes))
        try await channel.writeAndFlush(frame)
    }

    func send(text: String) async throws { try await send(.text, Array(text.utf8)) }

    func close(code: UInt16 = 1000) async throws {
        try await send(.connectionClose, [UInt8(code >> 8), UInt8(code & 0xFF)])
    }

    /// Hands received frames to the stream.
    final class Collector: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        let continuation: AsyncThrowingStream<WebSocketFrame, any Error>.Continuation
        init(_ continuation: AsyncThrowingStream<WebSocketFrame, any Error>.Continuation) { self.continuation = continuation }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { continuation.yield(unwrapInboundIn(data)) }
        func channelInactive(context: ChannelHandlerContext) {
            continuation.finish()
            context.fireChannelInactive()
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            continuation.finish(throwing: error)
            context.close(promise: nil)
        }
    }

    /// `CONNECT authority`, then, on a 200, what `then` installs takes the connection.
    final class Tunnel: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        let authority: String
        let promise: EventLoopPromise<Bool>
        let then: @Sendable (any Channel) throws -> Void
        var head = ByteBuffer()
        var done = false

        init(authority: String, promise: EventLoopPromise<Bool>, then: @escaping @Sendable (any Channel) throws -> Void) {
            self.authority = authority
            self.promise = promise
            self.then = then
        }

        func channelActive(context: ChannelHandlerContext) {
            context.writeAndFlush(NIOAny(ByteBuffer(string: "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n\r\n")), promise: nil)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = unwrapInboundIn(data)
            head.writeBuffer(&bytes)
            guard !done, let text = head.getString(at: head.readerIndex, length: head.readableBytes), text.contains("\r\n\r\n") else { return }
            done = true
            guard text.hasPrefix("HTTP/1.1 200") else {
                promise.fail(Failure("the proxy refused the tunnel: \(text.prefix(200))"))
                context.close(promise: nil)
                return
            }
            do {
                try then(context.channel)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            } catch {
                promise.fail(error)   // `then` cascades to it last, so it is not completed yet
                context.close(promise: nil)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            if !done { promise.fail(Failure("the proxy closed the connection")) }
            context.fireChannelInactive()
        }
    }

    /// The stream's iterator behind a reference, so the client value can be shared.
    final class Iterator: @unchecked Sendable {
        private var base: AsyncThrowingStream<WebSocketFrame, any Error>.AsyncIterator
        init(_ base: AsyncThrowingStream<WebSocketFrame, any Error>.AsyncIterator) { self.base = base }
        func next() async throws -> WebSocketFrame? { try await base.next() }
    }
}

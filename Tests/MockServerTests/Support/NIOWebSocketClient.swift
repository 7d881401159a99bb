import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import MockCore

/// A WebSocket client built from SwiftNIO's own parts (`NIOTypedWebSocketClientUpgrader`,
/// which checks the server's `Sec-WebSocket-Accept`), over plain TCP, TLS, or TLS through a
/// forward proxy's `CONNECT` tunnel. It masks what it sends and hands over the frames it
/// receives, in order, through ``next(timeout:)``; after the connection closes that returns nil.
///
/// Whether a frame came in time is decided on the channel's event loop, where frames arrive
/// and the timer fires, so a test process whose task pool is busy for a while does not turn
/// a frame that came in time into a timeout.
struct NIOWebSocketClient {
    let channel: any Channel
    private let mailbox: Mailbox

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
        let mailbox = Mailbox()
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
                                try channel.pipeline.syncOperations.addHandler(Collector(mailbox))
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
        return NIOWebSocketClient(channel: channel, mailbox: mailbox)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The next frame the server sent, or nil once the connection closed; throws when none
    /// reaches the client within `timeout` seconds (a margin no loaded machine needs: a hang
    /// fails, not waits).
    func next(timeout: TimeInterval = 20) async throws -> WebSocketFrame? {
        try await mailbox.next(timeout: timeout, on: channel.eventLoop)
    }

    /// Returns once the connection is closed (the channel's close future, which a peer's
    /// FIN completes); throws when it is still open after `timeout` seconds, decided on the
    /// channel's loop.
    func closed(timeout: TimeInterval = 20) async throws {
        let loop = channel.eventLoop
        let promise = loop.makePromise(of: Void.self)
        let done = Locked(false)
        let first: @Sendable () -> Bool = { done.withLock { done in defer { done = true }; return !done } }
        channel.closeFuture.whenComplete { _ in if first() { promise.succeed() } }
        let timer = loop.scheduleTask(in: .nanoseconds(Int64(timeout * 1e9))) {
            if first() { promise.fail(Failure("the connection was still open \(timeout) s later")) }
        }
        defer { timer.cancel() }
        try await promise.futureResult.get()
    }

    /// Frames received and not yet taken by ``next(timeout:)``.
    var framesWaiting: Int { mailbox.framesWaiting }

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

    /// Hands received frames to the mailbox.
    final class Collector: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        let mailbox: Mailbox
        init(_ mailbox: Mailbox) { self.mailbox = mailbox }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { mailbox.deliver(.frame(unwrapInboundIn(data))) }
        func channelInactive(context: ChannelHandlerContext) {
            mailbox.deliver(.closed)
            context.fireChannelInactive()
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            mailbox.deliver(.failed(error))
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

    /// Frames received and not yet taken, and the one reader waiting for the next. The
    /// channel's handler delivers; ``next(timeout:on:)`` takes, or waits with a timer on the
    /// same event loop.
    final class Mailbox: @unchecked Sendable {
        enum Arrival {
            case frame(WebSocketFrame)
            case closed
            case failed(any Error)
        }

        private struct State {
            var arrivals: [Arrival] = []
            var ended = false
            var waiter: (continuation: CheckedContinuation<WebSocketFrame?, any Error>, id: Int)?
            var asked = 0
        }

        private let state = Locked(State())

        func deliver(_ arrival: Arrival) {
            let resume: CheckedContinuation<WebSocketFrame?, any Error>? = state.withLock { state in
                guard !state.ended else { return nil }
                if case .frame = arrival {} else { state.ended = true }
                guard let waiting = state.waiter else {
                    state.arrivals.append(arrival)
                    return nil
                }
                state.waiter = nil
                return waiting.continuation
            }
            if let resume { Self.resume(resume, with: arrival) }
        }

        var framesWaiting: Int {
            state.withLock { state in state.arrivals.filter { if case .frame = $0 { return true } else { return false } }.count }
        }

        func next(timeout: TimeInterval, on loop: any EventLoop) async throws -> WebSocketFrame? {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<WebSocketFrame?, any Error>) in
                let ready: Arrival? = state.withLock { state in
                    state.asked += 1
                    if let first = state.arrivals.first {
                        // The ending stays for every later call.
                        if case .frame = first { state.arrivals.removeFirst() }
                        return first
                    }
                    let id = state.asked
                    state.waiter = (continuation, id)
                    let asked = NIODeadline.now()
                    loop.scheduleTask(in: .nanoseconds(Int64(timeout * 1e9))) { [self] in
                        // How late the loop ran the timer: a loop held by other work shows here.
                        let waited = Double((NIODeadline.now() - asked).nanoseconds) / 1e9
                        let expired = self.state.withLock { state -> CheckedContinuation<WebSocketFrame?, any Error>? in
                            guard let waiting = state.waiter, waiting.id == id else { return nil }
                            state.waiter = nil
                            return waiting.continuation
                        }
                        expired?.resume(throwing: Failure("frame \(id) did not reach the client within \(timeout) s (its timer ran after \(String(format: "%.1f", waited)) s)"))
                    }
                    return nil
                }
                if let ready { Self.resume(continuation, with: ready) }
            }
        }

        private static func resume(_ continuation: CheckedContinuation<WebSocketFrame?, any Error>, with arrival: Arrival) {
            switch arrival {
            case .frame(let frame): continuation.resume(returning: frame)
            case .closed: continuation.resume(returning: nil)
            case .failed(let error): continuation.resume(throwing: error)
            }
        }
    }
}

import Foundation
import MockCore
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// The upgrade to a WebSocket (RFC 6455 §4.2.2) on an HTTP/1.1 connection, when the
/// engine's plan accepts one (101 with `ResponsePlan.webSocket`): the 101 with its
/// `Sec-WebSocket-Accept`, then the connection's HTTP handlers leave and a
/// `WebSocketHandler` takes the connection over, as the forward proxy's tunnel does. The
/// engine has checked the handshake already (a malformed one got its 400 or 426 there);
/// HTTP/2 has no upgrade, and its requests never get this plan.
extension HTTPConnectionHandler {
    /// Computes the accept key; the upgrade itself is done here, not by NIO's upgrade handler,
    /// so the engine decides (and journals) before anything is written.
    private static let upgrader = NIOWebSocketServerUpgrader(
        automaticErrorHandling: false,
        shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
        upgradePipelineHandler: { channel, _ in channel.eventLoop.makeSucceededVoidFuture() })

    /// Carries out `plan` when it accepts a WebSocket, and says so; false for any other plan.
    func acceptWebSocket(_ plan: ResponsePlan, for head: HTTPRequestHead, context: ChannelHandlerContext) -> Bool {
        guard plan.status == 101, plan.webSocket != nil, shared.http2 == nil, let exchange = inFlight else { return false }
        Self.upgrader.buildUpgradeResponse(channel: context.channel, upgradeRequest: head, initialResponseHeaders: HTTPHeaders())
            .assumeIsolated().whenComplete { [self] result in
                switch result {
                case .success(let fields):
                    takeOver(plan, accept: fields.first(name: "Sec-WebSocket-Accept") ?? "", for: head, exchange: exchange, context: context)
                case .failure(let error):
                    shared.logger.debug("a WebSocket upgrade failed", metadata: ["error": "\(error)"])
                    finishExchange()
                    context.close(promise: nil)
                }
            }
        return true
    }

    /// Writes the 101, then swaps the HTTP handlers for the WebSocket's: NIO's frame
    /// decoder (bounded by the request body limit) and the `WebSocketHandler`, which writes
    /// its frames as bytes itself (`ServerFrame`).
    /// Bytes the HTTP decoder read past the request's head go to the frame decoder.
    private func takeOver(_ plan: ResponsePlan, accept: String, for head: HTTPRequestHead, exchange: Exchange, context: ChannelHandlerContext) {
        guard context.channel.isActive else {
            exchange.endStream(.clientClosed)
            inFlight = nil
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: ResponseHead.capacity(for: plan.headers) + 96)
        ResponseHead.writeStatusLine(status: 101, http10: false, into: &buffer)
        ResponseHead.writeFields(HeaderFields(fields: plan.headers.filter { !Self.ownFields.contains($0.name.lowercased()) }), into: &buffer)
        buffer.writeString("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n")
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
        // The WebSocket's handler owns the exchange from here: it ends when the socket closes.
        inFlight = nil
        machine.startStreaming()
        clock?.stop()
        let request = makeRequest(head, body: Data(), receivedAt: exchange.receivedAt)
        let conversation = WebSocketConversation(plan: plan, request: request)
            ?? WebSocketConversation(script: WebSocketScript(), request: request)
        let socket = WebSocketHandler(
            conversation: conversation, exchange: exchange, sockets: shared.engine.sockets,
            socket: LiveSockets.Socket(id: exchange.id, uri: head.uri, subprotocol: plan.headers["Sec-WebSocket-Protocol"],
                                       openedAt: shared.engine.timeSource.now()),
            maxMessageSize: shared.maxRequestBodySize, writeBufferHigh: shared.limits.writeBufferHigh, logger: shared.logger)
        let maxFrameSize = min(shared.maxRequestBodySize, Int(UInt32.max))
        let bound = NIOLoopBound((self, context, socket), eventLoop: context.eventLoop)
        // After the current read, whose call stack holds the HTTP handlers.
        context.eventLoop.execute {
            let (handler, context, socket) = bound.value
            let channel = context.channel
            let pipeline = context.pipeline.syncOperations
            do {
                try pipeline.addHandlers([ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: maxFrameSize)), socket],
                                         position: .last)
                let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                handler.clock.map { pipeline.removeHandler($0, promise: nil) }
                if let proxy = try? pipeline.handler(type: ForwardProxyHandler.self) { pipeline.removeHandler(proxy, promise: nil) }
                pipeline.removeHandler(context: context, promise: nil)
                socket.open()
                // Last: the decoder hands the bytes it holds past the request to the frame decoder.
                pipeline.removeHandler(decoder, promise: nil)
                channel.read()
            } catch {
                handler.shared.logger.debug("a WebSocket upgrade failed", metadata: ["error": "\(error)"])
                exchange.endStream(.closedWithoutEnd)
                channel.close(promise: nil)
            }
        }
    }

    /// Fields the 101 writes itself.
    private static let ownFields: Set<String> = ["upgrade", "connection", "sec-websocket-accept", "content-length", "transfer-encoding"]
}

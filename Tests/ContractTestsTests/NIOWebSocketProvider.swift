import ContractTests
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One defect per WebSocket check, and the check it must fail (exactly).
enum WebSocketDefect: String, CaseIterable, Sendable {
    case neverAnswersClose, answersCloseWithAnotherCode, answersCloseWithoutCode
    case ignoresPing, dropsOnPing, sendsAfterClose, readsBinaryAsText

    /// The failing checks, and a phrase the failure's message must contain.
    var expectation: (failing: Set<String>, phrase: String) {
        switch self {
        case .neverAnswersClose: return (["ws.close"], "never answered the server's close")
        case .answersCloseWithAnotherCode: return (["ws.close"], "with code 1000: echo the code it got")
        case .answersCloseWithoutCode: return (["ws.close"], "with a close frame without a code")
        case .ignoresPing: return (["ws.ping"], "no pong answered the server's ping")
        case .dropsOnPing: return (["ws.ping"], "after the server's ping")
        case .sendsAfterClose: return (["ws.after-close"], "after its own close frame")
        case .readsBinaryAsText: return (["ws.messages"], "message 2 of 4")
        }
    }
}

/// A WebSocket client built from SwiftNIO's parts, as the WebSocket checks' provider on
/// Linux (whose URLSession has no WebSockets): RFC 6455's client side — masked frames,
/// pongs for pings, a close echoing the server's code, nothing sent after a close — or,
/// with a `defect`, one rule broken. `wss://` with `tls`: a context that trusts the test CA.
struct NIOWebSocketProvider: WebSocketProvider {
    var defect: WebSocketDefect?
    var tls: NIOSSLContext?

    /// A TLS context that trusts the test CA and speaks HTTP/1.1 (the WebSocket upgrade's).
    static func trustingTestCA() async throws -> NIOSSLContext {
        let ca = try await TestCA.trusted()
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(ca.certificatePEM.utf8), format: .pem)])
        configuration.applicationProtocols = ["http/1.1"]
        return try NIOSSLContext(configuration: configuration)
    }

    func connect(_ request: URLRequest) async throws -> any WebSocketConnection {
        guard let url = request.url, url.scheme == "ws" || (url.scheme == "wss" && tls != nil), let host = url.host, let port = url.port else {
            throw NIOWebSocketConnection.Failure("this test client opens ws:// URLs (wss:// with a TLS context) with a port, not \(request.url?.absoluteString ?? "none")")
        }
        let tls = url.scheme == "wss" ? tls : nil
        let connection = NIOWebSocketConnection(defect: defect)
        let upgraded: EventLoopFuture<Bool> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: host)) }
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: "\(host):\(port)")
                    let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(maxFrameSize: 1 << 20, enableAutomaticErrorHandling: false) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(NIOWebSocketConnection.Reader(connection))
                            return true
                        }
                    }
                    let path = url.path.isEmpty ? "/" : url.path + (url.query.map { "?" + $0 } ?? "")
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Bool>(
                        upgradeRequestHead: HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers),
                        upgraders: [upgrader], notUpgradingCompletionHandler: { $0.eventLoop.makeSucceededFuture(false) })
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                }
            }
        guard try await upgraded.get() else { throw NIOWebSocketConnection.Failure("the server did not upgrade \(url.path)") }
        return connection
    }
}

/// One connection of ``NIOWebSocketProvider``: messages queue until received; the state is
/// kept under a lock, as the channel's loop and the check's tasks both reach it.
final class NIOWebSocketConnection: WebSocketConnection, Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private struct State {
        var channel: (any Channel)?
        var messages: [WebSocketContract.Message] = []
        var ended: Failure?
        var waiter: CheckedContinuation<WebSocketContract.Message, any Error>?
        var closeSent = false
        var closeReceived = false
        var closeCode: UInt16?
        var fragments: (text: Bool, bytes: [UInt8])?
    }

    let defect: WebSocketDefect?
    private let state = NIOLockedValueBox(State())

    init(defect: WebSocketDefect?) {
        self.defect = defect
    }

    func send(_ message: WebSocketContract.Message) async throws {
        let channel = try state.withLockedValue { state -> any Channel in
            guard let channel = state.channel else { throw Failure("the connection is not open") }
            if (state.closeSent || state.closeReceived) && defect != .sendsAfterClose { throw Failure("the connection is closed") }
            return channel
        }
        switch message {
        case .text(let text): try await write(channel, .text, Array(text.utf8))
        case .binary(let bytes): try await write(channel, .binary, Array(bytes))
        }
    }

    func receive() async throws -> WebSocketContract.Message {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<WebSocketContract.Message, Failure>? = state.withLockedValue { state in
                if !state.messages.isEmpty { return .success(state.messages.removeFirst()) }
                if let ended = state.ended { return .failure(ended) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    func close(code: UInt16, reason: String) async {
        let channel = state.withLockedValue { state -> (any Channel)? in
            guard !state.closeSent, !state.closeReceived else { return nil }
            state.closeSent = true
            state.closeCode = code
            return state.channel
        }
        guard let channel else { return }
        try? await write(channel, .connectionClose, Self.closePayload(code, reason))
        // The server answers and closes the connection; one that never does is left after 5 s.
        channel.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
        end(Failure("the client closed the connection"))
    }

    var closeCode: UInt16? {
        get async { state.withLockedValue { $0.closeCode } }
    }

    private func write(_ channel: any Channel, _ opcode: WebSocketOpcode, _ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: ByteBuffer(bytes: bytes)))
    }

    static func closePayload(_ code: UInt16?, _ reason: String = "") -> [UInt8] {
        guard let code else { return [] }
        return [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8)
    }

    private func deliver(_ message: WebSocketContract.Message) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<WebSocketContract.Message, any Error>? in
            guard state.ended == nil else { return nil }
            guard let waiter = state.waiter else {
                state.messages.append(message)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: message)
    }

    /// No message comes after this: a waiting receive (and every later one, once the
    /// queue is empty) throws `failure`.
    private func end(_ failure: Failure) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<WebSocketContract.Message, any Error>? in
            if state.ended == nil { state.ended = failure }
            defer { state.waiter = nil }
            return state.messages.isEmpty ? state.waiter : nil
        }
        waiter?.resume(throwing: failure)
    }

    /// The frames the server sends, on the channel's loop.
    final class Reader: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame
        let connection: NIOWebSocketConnection

        init(_ connection: NIOWebSocketConnection) { self.connection = connection }

        func handlerAdded(context: ChannelHandlerContext) {
            connection.state.withLockedValue { $0.channel = context.channel }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            let bytes = Array(frame.unmaskedData.readableBytesView)
            switch frame.opcode {
            case .text, .binary, .continuation:
                let whole = connection.state.withLockedValue { state -> (text: Bool, bytes: [UInt8])? in
                    var message = state.fragments ?? (frame.opcode == .text, [])
                    message.bytes += bytes
                    state.fragments = frame.fin ? nil : message
                    return frame.fin ? message : nil
                }
                guard let whole else { return }
                if whole.text || connection.defect == .readsBinaryAsText {
                    connection.deliver(.text(String(decoding: whole.bytes, as: UTF8.self)))
                } else {
                    connection.deliver(.binary(Data(whole.bytes)))
                }
            case .ping:
                switch connection.defect {
                case .ignoresPing?: return
                case .dropsOnPing?:
                    context.close(promise: nil)
                default:
                    reply(context, .pong, bytes)
                }
            case .connectionClose:
                let code = bytes.count >= 2 ? UInt16(bytes[0]) << 8 | UInt16(bytes[1]) : nil
                let answer = connection.state.withLockedValue { state -> Bool in
                    defer { state.closeReceived = true }
                    if !state.closeSent { state.closeCode = code }
                    return !state.closeSent
                }
                connection.end(Failure("the server closed the connection (\(code.map(String.init) ?? "no code"))"))
                guard answer else { return }
                switch connection.defect {
                case .neverAnswersClose?: return
                case .answersCloseWithAnotherCode?: reply(context, .connectionClose, NIOWebSocketConnection.closePayload(1000))
                case .answersCloseWithoutCode?: reply(context, .connectionClose, [])
                default: reply(context, .connectionClose, NIOWebSocketConnection.closePayload(code))
                }
            default:
                return
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            connection.end(Failure("the connection closed"))
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            connection.end(Failure("the connection failed: \(error)"))
            context.close(promise: nil)
        }

        private func reply(_ context: ChannelHandlerContext, _ opcode: WebSocketOpcode, _ bytes: [UInt8]) {
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: ByteBuffer(bytes: bytes))), promise: nil)
        }
    }
}

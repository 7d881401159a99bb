// The floor under the mock, for Benchmarks/bench.py: the least a SwiftNIO server does to
// answer the same bytes. NIO's request decoder parses; each answer is one pre-encoded
// buffer (status line, headers, body) written per request, keep-alive, one event loop.
// No routing beyond an exact match, no journal, no scenarios: what the mock's extra work
// costs is the distance between the two.
//
// With `--tls CERT KEY`, it speaks TLS with the certificate the mock and nginx present
// (swift-nio-ssl, as the mock), and HTTP/2 by ALPN through swift-nio-http2's stream
// multiplexer, as the mock: a stream's answer is a HEADERS frame and a DATA frame, both
// made once. That is the least SwiftNIO does to answer over TLS and HTTP/2.
//
// With `--delay NAME=VALUE MS`, a request whose header NAME has the value VALUE is answered
// MS milliseconds after it came (the benchmark's 10,000 delayed connections). The delay is
// the same for every such request, so one first-in-first-out queue per event loop is in
// deadline order and one timer serves all of them, as the mock's `DelayQueue` does: the
// least a SwiftNIO server does to hold many answers. The queue keeps a connection's
// answers in order only if its client waits for each answer before the next request, as
// wrk does.
//
//   nio-floor [--tls CERT KEY] [--delay NAME=VALUE MS] FOLDER 'PATH|FILE|CONTENT-TYPE' ...
//   prints "Listening on http://127.0.0.1:PORT" (https with --tls)
//   `GET /__count` answers the number of requests answered before it, so the benchmark
//   checks a run's count from the server's side, as it does with nginx and the mock.
//   (a request target, as sent, with its query: `/api/products?page_no=1&items_per_page=20`)
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var tls: NIOSSLContext?
if arguments.first == "--tls" {
    guard arguments.count >= 3 else { fail("usage: nio-floor [--tls CERT KEY] FOLDER 'PATH|FILE|CONTENT-TYPE' ...") }
    do {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(arguments[1]).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: arguments[2], format: .pem)))
        configuration.minimumTLSVersion = .tlsv12   // as the mock (ServerTLS)
        configuration.applicationProtocols = ["h2", "http/1.1"]
        tls = try NIOSSLContext(configuration: configuration)
    } catch {
        fail("cannot use the certificate: \(error)")
    }
    arguments.removeFirst(3)
}
/// `--delay NAME=VALUE MS`: the header field that asks for a delay, and the delay.
var delayed: (name: String, value: String, delay: TimeAmount)?
if arguments.first == "--delay" {
    guard arguments.count >= 3, let equals = arguments[1].firstIndex(of: "="), let milliseconds = Int64(arguments[2]),
          milliseconds >= 0 else { fail("usage: nio-floor [--tls CERT KEY] [--delay NAME=VALUE MS] FOLDER 'PATH|FILE|CONTENT-TYPE' ...") }
    delayed = (String(arguments[1][..<equals]), String(arguments[1][arguments[1].index(after: equals)...]), .milliseconds(milliseconds))
    arguments.removeFirst(3)
}
guard let folder = arguments.first else { fail("usage: nio-floor [--tls CERT KEY] [--delay NAME=VALUE MS] FOLDER 'PATH|FILE|CONTENT-TYPE' ...") }

/// The full answer to each path, encoded once: HTTP/1.1 bytes, and HTTP/2's fields and body.
var answers: [String: ByteBuffer] = [:]
var frames: [String: (HPACKHeaders, ByteBuffer)] = [:]
for mapping in arguments.dropFirst() {
    let parts = mapping.split(separator: "|", maxSplits: 2).map(String.init)
    guard parts.count == 3 else { fail("not PATH|FILE|CONTENT-TYPE: \(mapping)") }
    guard let body = FileManager.default.contents(atPath: folder + "/" + parts[1]) else { fail("cannot read \(parts[1])") }
    let type = parts[2]
    var buffer = ByteBufferAllocator().buffer(capacity: body.count + 128)
    buffer.writeString("HTTP/1.1 200 OK\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n\r\n")
    buffer.writeBytes(body)
    answers[parts[0]] = buffer
    frames[parts[0]] = (HPACKHeaders([(":status", "200"), ("content-type", type), ("content-length", String(body.count))]),
                        ByteBufferAllocator().buffer(bytes: body))
}
let notFound: ByteBuffer = {
    var buffer = ByteBufferAllocator().buffer(capacity: 64)
    buffer.writeString("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
    return buffer
}()

/// Requests answered (the server has one event loop: the lock is never contended).
let answered = NIOLockedValueBox(0)

func countAnswer() -> ByteBuffer {
    let count = answered.withLockedValue { $0 }
    var buffer = ByteBufferAllocator().buffer(capacity: 96)
    buffer.writeString("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(String(count).utf8.count)\r\n\r\n\(count)")
    return buffer
}

/// The delayed answers of one event loop, oldest first, behind one timer.
final class HeldAnswers {
    let delay: TimeAmount
    private var queue = CircularBuffer<(due: NIODeadline, context: ChannelHandlerContext, answer: ByteBuffer)>()
    private var armed = false

    init(delay: TimeAmount) { self.delay = delay }

    func hold(_ answer: ByteBuffer, context: ChannelHandlerContext) {
        queue.append((.now() + delay, context, answer))
        if !armed { arm(context.eventLoop) }
    }

    private func arm(_ loop: any EventLoop) {
        guard let first = queue.first else {
            armed = false
            return
        }
        armed = true
        loop.assumeIsolated().scheduleTask(deadline: first.due) { self.fire(loop) }
    }

    private func fire(_ loop: any EventLoop) {
        let now = NIODeadline.now()
        while let first = queue.first, first.due <= now {
            queue.removeFirst()
            first.context.writeAndFlush(NIOAny(first.answer), promise: nil)
        }
        arm(loop)
    }
}

final class FloorHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer
    let answers: [String: ByteBuffer]
    let held: (name: String, value: String, answers: HeldAnswers)?
    init(answers: [String: ByteBuffer], held: (name: String, value: String, answers: HeldAnswers)?) {
        self.answers = answers
        self.held = held
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        if head.uri == "/__count" {
            context.write(wrapOutboundOut(countAnswer()), promise: nil)
            return
        }
        answered.withLockedValue { $0 += 1 }
        if let held, head.headers.first(name: held.name) == held.value {
            held.answers.hold(answers[head.uri] ?? notFound, context: context)
            return
        }
        guard head.isKeepAlive else {
            // `Connection: close` (the benchmark's ticket count reads until the close).
            context.writeAndFlush(wrapOutboundOut(answers[head.uri] ?? notFound)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            return
        }
        context.write(wrapOutboundOut(answers[head.uri] ?? notFound), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) { context.flush() }
}

/// One HTTP/2 stream: on the request's HEADERS, the answer's HEADERS and DATA frames.
final class FloorStreamHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload
    let frames: [String: (HPACKHeaders, ByteBuffer)]
    init(frames: [String: (HPACKHeaders, ByteBuffer)]) { self.frames = frames }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .headers(let request) = unwrapInboundIn(data) else { return }
        answered.withLockedValue { $0 += 1 }
        guard let path = request.headers.first(name: ":path"), let (fields, body) = frames[path] else {
            context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: [":status": "404"], endStream: true))), promise: nil)
            return
        }
        context.write(wrapOutboundOut(.headers(.init(headers: fields))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: true))), promise: nil)
    }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let frozen = answers
let frozenFrames = frames
let secure = tls
// The one event loop's held answers, made and reached only on that loop.
let loop = group.next()
var held: (name: String, value: String, answers: NIOLoopBound<HeldAnswers>)?
if let delayed {
    let delay = delayed.delay
    held = (delayed.name, delayed.value, try await loop.submit { NIOLoopBound(HeldAnswers(delay: delay), eventLoop: loop) }.get())
}
let frozenHeld = held
let channel = try await ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 1024)
    // As the mock accepts (MockHTTPServer): up to 256 connections per wake-up, so that
    // 10,000 opened at once are taken off the accept queue as fast as by the mock.
    .serverChannelOption(.maxMessagesPerRead, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        @Sendable func addHTTP1(_ channel: any Channel) throws {
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
            try channel.pipeline.syncOperations.addHandler(FloorHandler(
                answers: frozen, held: frozenHeld.map { (name: $0.name, value: $0.value, answers: $0.answers.value) }))
        }
        guard let secure else { return channel.eventLoop.makeCompletedFuture { try addHTTP1(channel) } }
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: secure))
        }.flatMap {
            channel.configureHTTP2SecureUpgrade(
                h2ChannelConfigurator: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                            mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()
                        ) { stream in
                            stream.eventLoop.makeCompletedFuture {
                                try stream.pipeline.syncOperations.addHandler(FloorStreamHandler(frames: frozenFrames))
                            }
                        }
                    }
                },
                http1ChannelConfigurator: { channel in channel.eventLoop.makeCompletedFuture { try addHTTP1(channel) } })
        }
    }
    .bind(host: "127.0.0.1", port: 0).get()
let scheme = tls == nil ? "http" : "https"
FileHandle.standardOutput.write(Data("Listening on \(scheme)://127.0.0.1:\(channel.localAddress?.port ?? 0)\n".utf8))
try await channel.closeFuture.get()

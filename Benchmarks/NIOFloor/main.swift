// The floor under the mock, for Benchmarks/bench.py: the least a SwiftNIO server does to
// answer the same bytes. NIO's request decoder parses; each answer is one pre-encoded
// buffer (status line, headers, body) written per request, keep-alive, one event loop.
// No routing beyond an exact match, no journal, no scenarios: what the mock's extra work
// costs is the distance between the two.
//
//   nio-floor FOLDER 'PATH|FILE|CONTENT-TYPE' ...   prints "Listening on http://127.0.0.1:PORT"
//   (a request target, as sent, with its query: `/api/products?page_no=1&items_per_page=20`)
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

let arguments = Array(CommandLine.arguments.dropFirst())
guard let folder = arguments.first else {
    FileHandle.standardError.write(Data("usage: nio-floor FOLDER 'PATH|FILE|CONTENT-TYPE' ...\n".utf8))
    exit(2)
}

/// The full answer to each path, encoded once.
var answers: [String: ByteBuffer] = [:]
for mapping in arguments.dropFirst() {
    let parts = mapping.split(separator: "|", maxSplits: 2).map(String.init)
    guard parts.count == 3 else {
        FileHandle.standardError.write(Data("not PATH|FILE|CONTENT-TYPE: \(mapping)\n".utf8))
        exit(2)
    }
    guard let body = FileManager.default.contents(atPath: folder + "/" + parts[1]) else {
        FileHandle.standardError.write(Data("cannot read \(parts[1])\n".utf8))
        exit(2)
    }
    let type = parts[2]
    var buffer = ByteBufferAllocator().buffer(capacity: body.count + 128)
    buffer.writeString("HTTP/1.1 200 OK\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n\r\n")
    buffer.writeBytes(body)
    answers[parts[0]] = buffer
}
let notFound: ByteBuffer = {
    var buffer = ByteBufferAllocator().buffer(capacity: 64)
    buffer.writeString("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
    return buffer
}()

final class FloorHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer
    let answers: [String: ByteBuffer]
    init(answers: [String: ByteBuffer]) { self.answers = answers }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        context.write(wrapOutboundOut(answers[head.uri] ?? notFound), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) { context.flush() }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let frozen = answers
let channel = try await ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 1024)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
            try channel.pipeline.syncOperations.addHandler(FloorHandler(answers: frozen))
        }
    }
    .bind(host: "127.0.0.1", port: 0).get()
FileHandle.standardOutput.write(Data("Listening on http://127.0.0.1:\(channel.localAddress?.port ?? 0)\n".utf8))
try await channel.closeFuture.get()

import Foundation
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Many plain TCP clients on NIO (no thread each): sends one request per connection and
/// collects everything until the server closes.
enum ManyConnections {
    final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        private var received = Data()
        private let promise: EventLoopPromise<Data>

        init(promise: EventLoopPromise<Data>) { self.promise = promise }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            if let bytes = buffer.readBytes(length: buffer.readableBytes) { received.append(contentsOf: bytes) }
        }

        func channelInactive(context: ChannelHandlerContext) { promise.succeed(received) }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }

    /// Sends `request` on `count` connections at once; each result is the bytes received
    /// and the seconds from sending to the close.
    static func send(_ request: String, count: Int, port: Int) async throws -> [(Data, TimeInterval)] {
        raiseFileLimit(to: count * 2 + 256)
        return try await withThrowingTaskGroup(of: (Data, TimeInterval).self) { group in
            for _ in 0..<count {
                group.addTask {
                    let loop = MultiThreadedEventLoopGroup.singleton.next()
                    let promise = loop.makePromise(of: Data.self)
                    let channel = try await ClientBootstrap(group: loop)
                        .channelInitializer { channel in
                            channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(promise: promise)) }
                        }
                        .connect(host: "127.0.0.1", port: port).get()
                    let start = Date()
                    try await channel.writeAndFlush(channel.allocator.buffer(string: request))
                    let data = try await promise.futureResult.get()
                    return (data, Date().timeIntervalSince(start))
                }
            }
            var results: [(Data, TimeInterval)] = []
            for try await result in group { results.append(result) }
            return results
        }
    }

    static func raiseFileLimit(to wanted: Int) {
        #if canImport(Glibc)
        let resource = Int32(RLIMIT_NOFILE.rawValue)   // an enum in Glibc
        let cap = rlim_t(wanted)
        #else
        let resource = RLIMIT_NOFILE                   // a plain Int32 in Darwin, where setrlimit
        let cap = rlim_t(min(wanted, Int(OPEN_MAX)))   // refuses more than OPEN_MAX descriptors
        #endif
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < cap else { return }
        limit.rlim_cur = min(limit.rlim_max, cap)
        _ = setrlimit(resource, &limit)
    }
}

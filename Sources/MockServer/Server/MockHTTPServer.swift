import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Scenarios

/// A real HTTP/1.1 server on SwiftNIO that answers with an engine's plans.
///
///     let server = MockHTTPServer(engine: try MockEngine(configuration: ...))
///     let address = try await server.start()      // port 0 by default
///     ... URLSession against address.baseURL ...
///     await server.stop()
public actor MockHTTPServer {
    public enum State: Sendable {
        case initial
        case running(BoundAddress)
        case shuttingDown
        case shutdown
    }

    public nonisolated let engine: MockEngine
    public nonisolated let configuration: ServerConfiguration
    /// When set, answers every request outside `/__admin` (recording through a proxy).
    public nonisolated let proxy: (any AsyncResponder)?
    private let group: any EventLoopGroup
    private let logger: Logger
    private let connections = ConnectionTracker()
    private var channel: (any Channel)?
    public private(set) var state: State = .initial

    public init(
        engine: MockEngine,
        configuration: ServerConfiguration = ServerConfiguration(),
        proxy: (any AsyncResponder)? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "mock-server")
    ) {
        self.engine = engine
        self.configuration = configuration
        self.proxy = proxy
        self.group = group
        self.logger = logger
    }

    /// Binds and starts accepting connections; returns the address actually bound.
    @discardableResult
    public func start() async throws -> BoundAddress {
        guard case .initial = state else { throw ServerError.alreadyStarted }
        let engine = engine
        let limits = configuration.limits
        let maxBody = configuration.maxRequestBodySize
        let connections = connections
        let loopCount = Array(group.makeIterator()).count
        let responder = AdminAPI(engine: engine, adminToken: configuration.adminToken, transport: TransportFacts {
            ["eventLoops": .number(Double(loopCount)),
             "connections": ["open": .number(Double(connections.count)), "limit": .number(Double(limits.maxConnections)),
                             "refused": .number(Double(connections.refused))],
             "limits": ["idleTimeoutSeconds": .number(Double(limits.idleTimeout.nanoseconds) / 1e9),
                        "headTimeoutSeconds": .number(Double(limits.headTimeout.nanoseconds) / 1e9),
                        "maxHeadBytes": .number(Double(limits.maxHeadSize)),
                        "maxBodyBytes": .number(Double(maxBody)),
                        "writeBufferHighBytes": .number(Double(limits.writeBufferHigh))]]
        })
        let proxy = proxy
        let logger = logger
        var decoderLimits = NIOHTTPDecoderLimitConfiguration()
        decoderLimits.maxHeaderListSize = limits.maxHeadSize
        decoderLimits.maxHeaderFieldSize = limits.maxHeadSize
        let parserLimits = decoderLimits
        let fallbackHost = Self.urlHost(Self.reachableHost(configuration.host))
        let portBox = Locked(0)
        let delays = DelayQueues()

        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: limits.writeBufferLow, high: limits.writeBufferHigh))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    guard connections.track(channel, limit: limits.maxConnections) else {
                        try sync.addHandler(RefusedConnection(limit: limits.maxConnections))
                        return
                    }
                    // The clock watches bytes (deadlines, head size); NIO's decoder parses
                    // requests; HTTPRequestHandler writes responses as bytes and keeps
                    // pipelined requests in order itself.
                    let clock = ConnectionClock(limits: limits)
                    try sync.addHandler(clock)
                    try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(
                        leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .drop, limitConfiguration: parserLimits)))
                    try sync.addHandler(HTTPRequestHandler(
                        engine: engine, responder: responder, proxy: proxy, maxRequestBodySize: maxBody,
                        fallbackBaseURL: "http://\(fallbackHost):\(portBox.current)", logger: logger,
                        delays: delays.queue(for: channel.eventLoop), clock: clock, limits: limits))
                }
            }

        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw ServerError.addressInUse(host: configuration.host, port: configuration.port)
        } catch {
            throw ServerError.cannotBind(host: configuration.host, port: configuration.port, reason: "\(error)")
        }
        let port = channel.localAddress?.port ?? configuration.port
        portBox.withLock { $0 = port }
        self.channel = channel
        let address = BoundAddress(host: configuration.host, port: port)
        state = .running(address)
        logger.info("listening", metadata: ["address": "\(address.baseURL)", "apis": "\(engine.apis.joined(separator: ","))"])
        return address
    }

    /// Connections open now (refused ones are not counted).
    public nonisolated var openConnections: Int { connections.count }

    /// The bound address; throws unless running.
    public var address: BoundAddress {
        get throws {
            guard case .running(let address) = state else { throw ServerError.notRunning }
            return address
        }
    }

    /// Stops listening; responses under way (delayed ones included) may finish within
    /// `configuration.limits.shutdownGrace`, each with `Connection: close`; then every
    /// connection still open is closed.
    public func stop() async {
        guard case .running = state, let channel else {
            state = .shutdown
            return
        }
        state = .shuttingDown
        try? await channel.close()
        await connections.stopAll(grace: configuration.limits.shutdownGrace)
        self.channel = nil
        state = .shutdown
        logger.info("stopped")
    }

    /// A host as it goes in a URL: IPv6 literals get brackets.
    static func urlHost(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// A host a client can connect to: the wildcard addresses become loopback. Used for
    /// absolute URLs when a request carries no usable `Host` header.
    static func reachableHost(_ host: String) -> String {
        switch host {
        case "0.0.0.0": return "127.0.0.1"
        case "::": return "::1"
        default: return host
        }
    }
}

/// Where a started server listens.
public struct BoundAddress: Sendable, Equatable {
    public let host: String
    public let port: Int

    /// `http://HOST:PORT`, with IPv6 hosts bracketed.
    public var baseURL: String { "http://\(MockHTTPServer.urlHost(host)):\(port)" }
    public var url: URL { URL(string: baseURL)! }
}

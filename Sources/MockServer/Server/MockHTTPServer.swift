import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Scenarios

/// A real HTTP/1.1 server on SwiftNIO that answers with an engine's plans. HTTPS (and
/// HTTP/2 over it) comes from a `SecureTransport` in its configuration: `MockServerTLS`'s
/// `TLSSettings`.
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
    /// The HTTPS listener when it has a port of its own (`SecureTransport.port`).
    private var secureChannel: (any Channel)?
    /// This start's HTTPS (its CA and certificate) when the server speaks HTTPS.
    package private(set) var secureListener: SecureListener?
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
        let listener = try configuration.secureTransport.map { transport throws(ServerError) in try transport.makeListener() }
        secureListener = listener
        let responder = AdminAPI(engine: engine, adminToken: configuration.adminToken, certificateAuthority: listener?.certificateAuthority,
                                 transport: TransportFacts {
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
        let fallbackHost = Self.urlHost(Self.reachableHost(configuration.host))
        let portBox = Locked(0)
        let tlsPortBox = Locked(0)
        let delays = DelayQueues()

        /// The HTTP/1.1 handlers, after the TLS handler on an HTTPS connection.
        @Sendable func addHTTP1(_ channel: any Channel, secure: Bool) throws {
            let port = secure ? tlsPortBox.current : portBox.current
            let scheme = secure ? "https" : "http"
            try HTTP1Pipeline.add(to: channel, engine: engine, responder: responder, proxy: proxy, limits: limits,
                                  maxRequestBodySize: maxBody, fallbackBaseURL: "\(scheme)://\(fallbackHost):\(port)", logger: logger,
                                  delays: delays.queue(for: channel.eventLoop), scheme: scheme)
        }

        /// Multiplexed streams after the secure layer (HTTP/2 by ALPN): each stream gets the
        /// same request handler, which reads and answers through the connection's framing.
        @Sendable func streamResponders(_ channel: any Channel, _ framing: any StreamFraming) -> StreamResponders {
            // What every stream of the connection shares, worked out once per connection
            // rather than per stream: a stream is one request.
            let fallbackBaseURL = "https://\(fallbackHost):\(tlsPortBox.current)"
            return StreamResponders(shared: NIOLoopBound(ConnectionShared(
                engine: engine, responder: responder, proxy: proxy, maxRequestBodySize: maxBody, fallbackBaseURL: fallbackBaseURL,
                logger: logger, delays: delays.queue(for: channel.eventLoop), limits: limits, scheme: "https",
                http2: framing), eventLoop: channel.eventLoop))
        }
        let addSecureHTTP1: @Sendable (any Channel) throws -> Void = { try addHTTP1($0, secure: true) }

        func bootstrap(secure: Bool) -> ServerBootstrap {
            ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 1024)
                // Accept a burst of connections per wake-up (NIO's default is 4): with 10,000
                // clients connecting at once the kernel's queue overflowed and dropped
                // handshakes that nginx, accepting until the queue is empty, kept.
                .serverChannelOption(.maxMessagesPerRead, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelOption(.maxMessagesPerRead, value: 16)
                .childChannelOption(.writeBufferWaterMark, value: .init(low: limits.writeBufferLow, high: limits.writeBufferHigh))
                .childChannelInitializer { channel in
                    guard secure, let listener else {
                        return channel.eventLoop.makeCompletedFuture {
                            guard connections.track(channel, limit: limits.maxConnections) else {
                                try channel.pipeline.syncOperations.addHandler(RefusedConnection(limit: limits.maxConnections))
                                return
                            }
                            try addHTTP1(channel, secure: false)
                        }
                    }
                    guard connections.track(channel, limit: limits.maxConnections) else {
                        // An HTTPS client past the limit cannot read a plain 503: it is closed.
                        return channel.close()
                    }
                    return listener.initialize(SecureConnection(channel: channel, engine: engine, limits: limits,
                                                                addHTTP1: addSecureHTTP1, streamResponders: streamResponders))
                }
        }

        func bind(port: Int, secure: Bool) async throws -> any Channel {
            do {
                return try await bootstrap(secure: secure).bind(host: configuration.host, port: port).get()
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                throw ServerError.addressInUse(host: configuration.host, port: port)
            } catch {
                throw ServerError.cannotBind(host: configuration.host, port: port, reason: "\(error)")
            }
        }

        // The server's port speaks HTTPS when TLS is on without a port of its own.
        let mainIsSecure = listener != nil && configuration.secureTransport?.port == nil
        let channel = try await bind(port: configuration.port, secure: mainIsSecure)
        let port = channel.localAddress?.port ?? configuration.port
        portBox.withLock { $0 = port }
        var securePort: Int? = mainIsSecure ? port : nil
        if mainIsSecure { tlsPortBox.withLock { $0 = port } }
        self.channel = channel
        if let extraPort = configuration.secureTransport?.port, listener != nil {
            let secure: any Channel
            do {
                secure = try await bind(port: extraPort, secure: true)
            } catch {
                try? await channel.close()
                self.channel = nil
                throw error
            }
            let bound = secure.localAddress?.port ?? extraPort
            tlsPortBox.withLock { $0 = bound }
            securePort = bound
            secureChannel = secure
        }
        let address = BoundAddress(host: configuration.host, port: port, isSecure: mainIsSecure, securePort: securePort)
        state = .running(address)
        logger.info("listening", metadata: ["address": "\(address.baseURL)", "apis": "\(engine.apis.joined(separator: ","))"])
        if let secureURL = address.secureBaseURL, !mainIsSecure {
            logger.info("listening", metadata: ["address": "\(secureURL)"])
        }
        return address
    }

    /// The CA that signed the HTTPS certificate of this start, as clients take it (nil
    /// without HTTPS): the one to trust.
    public var caCertificate: CACertificate? { secureListener?.certificateAuthority }

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
        try? await secureChannel?.close()
        secureChannel = nil
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
    /// Whether `port` speaks HTTPS.
    public let isSecure: Bool
    /// The port that speaks HTTPS, if any: `port` itself, or a port of its own.
    public let securePort: Int?

    public init(host: String, port: Int, isSecure: Bool = false, securePort: Int? = nil) {
        self.host = host
        self.port = port
        self.isSecure = isSecure
        self.securePort = isSecure ? port : securePort
    }

    /// `http://HOST:PORT` (or `https://`), with IPv6 hosts bracketed.
    public var baseURL: String { "\(isSecure ? "https" : "http")://\(MockHTTPServer.urlHost(host)):\(port)" }
    public var url: URL { URL(string: baseURL)! }
    /// `https://HOST:PORT` of the HTTPS listener, if the server has one.
    public var secureBaseURL: String? { securePort.map { "https://\(MockHTTPServer.urlHost(host)):\($0)" } }
}

import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
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
    /// The HTTPS listener when it has a port of its own (`TLSSettings.port`).
    private var secureChannel: (any Channel)?
    /// The CA and certificate when the server speaks HTTPS.
    private var tls: ServerTLS?
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
        let tls: ServerTLS?
        do {
            tls = try configuration.tls.map { settings throws(LocalCAError) in try ServerTLS(settings: settings) }
        } catch {
            throw ServerError.tls(error)
        }
        self.tls = tls
        let responder = AdminAPI(engine: engine, adminToken: configuration.adminToken, certificateAuthority: tls?.ca, transport: TransportFacts {
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

        /// HTTP/2 after ALPN: each stream gets the same request handler, which answers in frames.
        @Sendable func addHTTP2(_ channel: any Channel) throws {
            // What every stream of the connection shares, worked out once per connection
            // rather than per stream: a stream is one request.
            let fallbackBaseURL = "https://\(fallbackHost):\(tlsPortBox.current)"
            let streams = HTTP2OpenStreams()
            let shared = NIOLoopBound(ConnectionShared(
                engine: engine, responder: responder, proxy: proxy, maxRequestBodySize: maxBody, fallbackBaseURL: fallbackBaseURL,
                logger: logger, delays: delays.queue(for: channel.eventLoop), limits: limits, scheme: "https",
                http2: HTTP2ConnectionFacts(parent: channel, streams: streams)), eventLoop: channel.eventLoop)
            var settings = nioDefaultSettings.filter { $0.parameter != .maxHeaderListSize }
            settings.append(HTTP2Setting(parameter: .maxHeaderListSize, value: limits.maxHeadSize))
            var connection = NIOHTTP2Handler.ConnectionConfiguration()
            connection.initialSettings = settings
            _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                mode: .server, connectionConfiguration: connection, streamConfiguration: .init()
            ) { stream in
                stream.eventLoop.makeCompletedFuture {
                    try stream.pipeline.syncOperations.addHandler(HTTPRequestHandler(shared: shared.value))
                }
            }
            try channel.pipeline.syncOperations.addHandler(HTTP2GracefulClose(streams: streams))
        }

        func bootstrap(secure: Bool) -> ServerBootstrap {
            ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 1024)
                // Accept a burst of connections per wake-up (NIO's default is 4): with 10,000
                // clients connecting at once the kernel's queue overflowed and dropped
                // handshakes that nginx, accepting until the queue is empty, kept (#24).
                .serverChannelOption(.maxMessagesPerRead, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelOption(.maxMessagesPerRead, value: 16)
                .childChannelOption(.writeBufferWaterMark, value: .init(low: limits.writeBufferLow, high: limits.writeBufferHigh))
                .childChannelInitializer { channel in
                    guard secure, let tls else {
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
                    // The handshake: a scenario's TLS fault picks the certificate or the gate's mode.
                    let fault = engine.scenarios.handshake()
                    let mode: HandshakeGate.Mode = switch fault?.fault {
                    case .handshakeReset: .reset
                    case .slowHandshake: .hold(.nanoseconds(Int64(fault!.handshakeDelay * engine.configuration.timeScale * 1e9)))
                    default: .normal
                    }
                    return channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        let gate = HandshakeGate(mode: mode, timeout: limits.headTimeout)
                        try sync.addHandler(gate)
                        try sync.addHandler(NIOSSLServerHandler(context: tls.context(for: fault?.fault)))
                        try sync.addHandler(HandshakeWatch(gate: gate))
                    }.flatMap {
                        guard tls.http2 else {
                            return channel.eventLoop.makeCompletedFuture { try addHTTP1(channel, secure: true) }
                        }
                        return channel.configureHTTP2SecureUpgrade(
                            h2ChannelConfigurator: { channel in channel.eventLoop.makeCompletedFuture { try addHTTP2(channel) } },
                            http1ChannelConfigurator: { channel in channel.eventLoop.makeCompletedFuture { try addHTTP1(channel, secure: true) } })
                    }
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
        let mainIsSecure = tls != nil && configuration.tls?.port == nil
        let channel = try await bind(port: configuration.port, secure: mainIsSecure)
        let port = channel.localAddress?.port ?? configuration.port
        portBox.withLock { $0 = port }
        var securePort: Int? = mainIsSecure ? port : nil
        if mainIsSecure { tlsPortBox.withLock { $0 = port } }
        self.channel = channel
        if let extraPort = configuration.tls?.port, tls != nil {
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

    /// The local CA that signed the HTTPS certificate (nil without TLS): the one to trust.
    public var certificateAuthority: LocalCA? { tls?.ca }

    /// The names the HTTPS certificate of this start covers (empty without TLS).
    public var certificateNames: [SubjectName] { tls?.identity.names ?? [] }

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

import Foundation
import Logging
import MockAdmin
import MockCore
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on SwiftNIO that answers with an engine's plans. HTTPS (and
/// HTTP/2 over it) comes from a `SecureTransport` in its configuration: `MockServerTLS`'s
/// `TLSSettings`.
///
///     let server = MockHTTPServer(engine: try MockEngine(configuration: ...))
///     let address = try await server.start()      // port 0 by default
///     ... URLSession against address.baseURL ...
///     await server.stop()
public actor MockHTTPServer {
    /// Where the server is in its life: never started, listening, stopping, or stopped (it
    /// cannot be started again).
    public enum State: Sendable {
        /// Not started yet.
        case initial
        /// Listening at this address.
        case running(BoundAddress)
        /// Stopping: responses under way may finish.
        case shuttingDown
        /// Stopped.
        case shutdown
    }

    /// The engine every port answers from.
    public nonisolated let engine: MockEngine
    /// How the server listens.
    public nonisolated let configuration: ServerConfiguration
    /// When set, answers every request outside `/__admin` (recording through a proxy).
    public nonisolated let proxy: (any AsyncResponder)?
    private let group: any EventLoopGroup
    private let logger: Logger
    /// The open connections; a stop asks them to finish, then closes them.
    nonisolated let connections = ConnectionTracker()
    private var channel: (any Channel)?
    /// The HTTPS listener when it has a port of its own (`SecureTransport.port`).
    private var secureChannel: (any Channel)?
    /// The forward proxy's listener (`ServerConfiguration.forwardProxy`).
    private var proxyChannel: (any Channel)?
    /// What the admin API tells of the proxy (its PAC file): the port, once bound.
    private let proxyFacts = ProxyFacts()
    /// This start's HTTPS (its CA and certificate) when the server speaks HTTPS.
    package private(set) var secureListener: SecureListener?
    /// The pipeline every port of this start answers through (its admin API, with the
    /// token, the CA and the proxy, ahead of the engine); nil until started. An in-process
    /// transport for the same engine answers through it too, so the two answer alike.
    public private(set) var pipeline: Pipeline?
    /// Where the server is in its life.
    public private(set) var state: State = .initial

    /// Makes a server of `engine`; `start()` binds it.
    ///
    /// - Parameters:
    ///   - engine: What it serves: the APIs, scenarios and journal every connection shares.
    ///   - configuration: Where and how it listens (by default `127.0.0.1`, a free port, plain HTTP).
    ///   - proxy: When set, answers every request outside `/__admin` in place of the APIs.
    ///   - group: The event loops it serves on.
    ///   - logger: Where it logs; it never prints.
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
    /// - Throws: `ServerError`: the port is taken, the TLS material cannot be used, or a
    ///   forward proxy would be reachable from other machines without a token.
    @discardableResult
    public func start() async throws -> BoundAddress {
        guard case .initial = state else { throw ServerError.alreadyStarted }
        if configuration.forwardProxy.map({ !$0.openToNetwork }) == true, configuration.adminToken == nil,
           !ServerConfiguration.isLoopback(configuration.host) {
            throw ServerError.exposedProxy(host: configuration.host)
        }
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
        }, proxy: proxyFacts)
        let pipeline = Pipeline(engine: engine, control: responder)
        self.pipeline = pipeline
        let services = ListenerServices(pipeline: pipeline, recordingProxy: proxy, limits: limits,
                                        maxRequestBodySize: maxBody, logger: logger, delays: DelayQueues())
        let fallbackHost = Self.urlHost(Self.reachableHost(configuration.host))
        let portBox = Locked(0)
        let tlsPortBox = Locked(0)
        let secureConnection: @Sendable (any Channel) -> SecureConnection = { channel in
            services.secureConnection(channel) { "https://\(fallbackHost):\(tlsPortBox.current)" }
        }
        // The proxy's tunnels to mapped hosts get their certificates from the server's own
        // TLS, or from the proxy's when the server speaks plain HTTP only.
        let proxyContext: ProxyContext?
        if let forwardProxy = configuration.forwardProxy {
            let tunnelTLS = try listener ?? forwardProxy.secureTransport.map { transport throws(ServerError) in try transport.makeListener() }
            proxyContext = ProxyContext(settings: forwardProxy, mappedHosts: ForwardProxy.mappedHosts(of: engine),
                                        token: configuration.adminToken, services: services, secure: tunnelTLS,
                                        exposed: !ServerConfiguration.isLoopback(configuration.host))
        } else {
            proxyContext = nil
        }

        enum Role { case plain, secure, proxy }

        func bootstrap(_ role: Role) -> ServerBootstrap {
            ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 1024)
                // Accept a burst of connections per wake-up (NIO's default is 4): when
                // thousands of clients connect at once, a few accepts per wake-up let the
                // kernel's accept queue overflow, and it drops their handshakes.
                .serverChannelOption(.maxMessagesPerRead, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelOption(.maxMessagesPerRead, value: 16)
                .childChannelOption(.writeBufferWaterMark, value: .init(low: limits.writeBufferLow, high: limits.writeBufferHigh))
                .childChannelInitializer { channel in
                    switch role {
                    case .secure:
                        guard let listener, connections.track(channel, limit: limits.maxConnections) else {
                            // An HTTPS client past the limit cannot read a plain 503: it is closed.
                            return channel.close()
                        }
                        return listener.initialize(secureConnection(channel))
                    case .plain, .proxy:
                        return channel.eventLoop.makeCompletedFuture {
                            guard connections.track(channel, limit: limits.maxConnections) else {
                                try channel.pipeline.syncOperations.addHandler(RefusedConnection(limit: limits.maxConnections))
                                return
                            }
                            let port = role == .proxy ? (channel.localAddress?.port ?? 0) : portBox.current
                            try services.addHTTP1(channel, scheme: "http", fallbackBaseURL: "http://\(fallbackHost):\(port)",
                                                  forwardProxy: role == .proxy ? proxyContext : nil)
                        }
                    }
                }
        }

        func bind(port: Int, _ role: Role) async throws -> any Channel {
            do {
                return try await bootstrap(role).bind(host: configuration.host, port: port).get()
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                throw ServerError.addressInUse(host: configuration.host, port: port)
            } catch {
                throw ServerError.cannotBind(host: configuration.host, port: port, reason: "\(error)")
            }
        }

        // The server's port speaks HTTPS when TLS is on without a port of its own.
        let mainIsSecure = listener != nil && configuration.secureTransport?.port == nil
        let channel = try await bind(port: configuration.port, mainIsSecure ? .secure : .plain)
        let port = channel.localAddress?.port ?? configuration.port
        portBox.withLock { $0 = port }
        var securePort: Int? = mainIsSecure ? port : nil
        if mainIsSecure { tlsPortBox.withLock { $0 = port } }
        self.channel = channel
        do {
            if let extraPort = configuration.secureTransport?.port, listener != nil {
                let secure = try await bind(port: extraPort, .secure)
                let bound = secure.localAddress?.port ?? extraPort
                tlsPortBox.withLock { $0 = bound }
                securePort = bound
                secureChannel = secure
            }
            if let forwardProxy = configuration.forwardProxy {
                let proxyChannel = try await bind(port: forwardProxy.port, .proxy)
                self.proxyChannel = proxyChannel
                proxyFacts.port.withLock { $0 = proxyChannel.localAddress?.port ?? forwardProxy.port }
            }
        } catch {
            try? await channel.close()
            try? await secureChannel?.close()
            self.channel = nil
            secureChannel = nil
            throw error
        }
        let proxyPort = proxyChannel.map { _ in proxyFacts.port.current }
        let address = BoundAddress(host: configuration.host, port: port, isSecure: mainIsSecure, securePort: securePort, proxyPort: proxyPort)
        state = .running(address)
        logger.info("listening", metadata: ["address": "\(address.baseURL)", "apis": "\(engine.apis.joined(separator: ","))"])
        if let secureURL = address.secureBaseURL, !mainIsSecure {
            logger.info("listening", metadata: ["address": "\(secureURL)"])
        }
        if let proxyURL = address.proxyURL, let proxyContext {
            logger.info("proxying", metadata: ["address": "\(proxyURL)", "hosts": "\(proxyContext.mappedHosts.sorted().joined(separator: ","))",
                                               "passThrough": "\(proxyContext.settings.passThrough)"])
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
        try? await proxyChannel?.close()
        proxyChannel = nil
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
    /// The host it listens on, as configured (`127.0.0.1`).
    public let host: String
    /// The bound port: the system's choice when the configuration asked for 0.
    public let port: Int
    /// Whether `port` speaks HTTPS.
    public let isSecure: Bool
    /// The port that speaks HTTPS, if any: `port` itself, or a port of its own.
    public let securePort: Int?
    /// The forward proxy's port, if the server has one (`ServerConfiguration.forwardProxy`).
    public let proxyPort: Int?

    /// Makes an address; without the HTTPS or proxy port the server has none.
    public init(host: String, port: Int, isSecure: Bool = false, securePort: Int? = nil, proxyPort: Int? = nil) {
        self.host = host
        self.port = port
        self.isSecure = isSecure
        self.securePort = isSecure ? port : securePort
        self.proxyPort = proxyPort
    }

    /// `http://HOST:PORT` of the forward proxy (what `https_proxy` or a system proxy names).
    public var proxyURL: String? { proxyPort.map { "http://\(MockHTTPServer.urlHost(MockHTTPServer.reachableHost(host))):\($0)" } }

    /// `http://HOST:PORT` (or `https://`), with IPv6 hosts bracketed.
    public var baseURL: String { "\(isSecure ? "https" : "http")://\(MockHTTPServer.urlHost(host)):\(port)" }
    /// `baseURL` as a URL.
    public var url: URL { URL(string: baseURL)! }
    /// `https://HOST:PORT` of the HTTPS listener, if the server has one.
    public var secureBaseURL: String? { securePort.map { "https://\(MockHTTPServer.urlHost(host)):\($0)" } }
}

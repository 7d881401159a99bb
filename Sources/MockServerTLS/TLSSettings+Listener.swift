import Foundation
import MockCore
import MockServer
import NIOCore
import NIOHTTP2
import NIOSSL
import NIOTLS

/// The HTTPS layer `MockHTTPServer` puts before HTTP on each connection of an HTTPS port:
/// the handshake gate (a scenario's TLS fault), the TLS handler with this start's
/// certificate, then HTTP/2 or HTTP/1.1 by ALPN.
extension TLSSettings {
    /// Loads or creates the local CA and this start's certificate (or the given files), ready
    /// for the server's HTTPS port; a CA, certificate or key that cannot be used is thrown as `ServerError.tls`.
    public func makeListener() throws(ServerError) -> SecureListener {
        let tls: ServerTLS
        do {
            tls = try ServerTLS(settings: self)
        } catch {
            throw ServerError.tls(error)
        }
        return SecureListener(certificateAuthority: tls.ca.caCertificate, state: tls,
                              initialize: { connection in tls.initialize(connection) },
                              intercept: { connection, host, isMapped in tls.intercept(connection, host: host, isMapped: isMapped) })
    }
}

extension ServerTLS {
    /// A new connection's pipeline: the handshake (a scenario's TLS fault picks the
    /// certificate or the gate's mode), then HTTP/2 or HTTP/1.1.
    func initialize(_ connection: SecureConnection) -> EventLoopFuture<Void> {
        let fault = connection.engine.scenarios.handshake()
        let channel = connection.channel
        let gate = HandshakeGate(mode: Self.gateMode(fault, connection.engine), timeout: connection.limits.headTimeout)
        return channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            try sync.addHandler(gate)
            try sync.addHandler(NIOSSLServerHandler(context: context(for: fault?.fault)))
            try sync.addHandler(HandshakeWatch(gate: gate))
        }.flatMap { [self] in
            addHTTP(connection)
        }
    }

    /// A proxy tunnel to a mapped host that starts TLS: as `initialize`, with a certificate
    /// for the name in the client's ClientHello (SNI) when the mock answers that name too
    /// (`isMapped`), else for `host`, the tunnel's: a client cannot have certificates made
    /// for names of its choosing. The gate and the SNI reader are in place when this
    /// returns; the TLS handler follows the ClientHello.
    func intercept(_ connection: SecureConnection, host: String, isMapped: @escaping @Sendable (String) -> Bool) -> EventLoopFuture<Void> {
        let fault = connection.engine.scenarios.handshake()
        let channel = connection.channel
        let gate = HandshakeGate(mode: Self.gateMode(fault, connection.engine), timeout: connection.limits.headTimeout)
        return channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            try sync.addHandler(gate)
            try sync.addHandler(ByteToMessageHandler(SNIHandler { [self] result in
                let name: String = switch result {
                case .hostname(let name) where isMapped(name.lowercased()): name.lowercased()
                default: host
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: hostContext(for: name, fault: fault?.fault)))
                    let pipeline = connection.pipeline
                    try channel.pipeline.syncOperations.addHandler(HandshakeWatch(gate: gate) { error in
                        Self.journalFailedHandshake(pipeline, name: name, error: error)
                    })
                }.flatMap { [self] in
                    addHTTP(connection)
                }
            }))
        }
    }

    /// A proxied TLS handshake that failed, journaled as a request nothing answered: the
    /// client's words (an alert such as unknown CA) and what usually fixes it.
    private static func journalFailedHandshake(_ pipeline: Pipeline, name: String, error: any Error) {
        let now = pipeline.engine.timeSource.now()
        let request = MockRequest(method: "CONNECT", uri: name, baseURL: "https://\(name)", receivedAt: now)
        let reason = "The TLS handshake for \(name) failed; a client must trust the local CA (mock-server ca --simulator booted, "
            + "or /__admin/ca.mobileconfig on a device). The TLS layer said: \(error)"
        pipeline.ended(request, .error(495, reason))
    }

    private static func gateMode(_ fault: TLSHandshake?, _ engine: MockEngine) -> HandshakeGate.Mode {
        switch fault?.fault {
        case .handshakeReset: .reset
        case .slowHandshake: .hold(.nanoseconds(Int64(fault!.handshakeDelay * engine.configuration.timeScale * 1e9)))
        default: .normal
        }
    }

    /// After the TLS handler: HTTP/2 or HTTP/1.1 by ALPN, or HTTP/1.1 alone.
    private func addHTTP(_ connection: SecureConnection) -> EventLoopFuture<Void> {
        let channel = connection.channel
        guard http2 else {
            return channel.eventLoop.makeCompletedFuture { try connection.addHTTP1(channel) }
        }
        return channel.configureHTTP2SecureUpgrade(
            h2ChannelConfigurator: { channel in channel.eventLoop.makeCompletedFuture { try Self.addHTTP2(channel, connection) } },
            http1ChannelConfigurator: { channel in channel.eventLoop.makeCompletedFuture { try connection.addHTTP1(channel) } })
    }

    /// HTTP/2 after ALPN: each stream gets the server's request handler, which answers in
    /// frames (`HTTP2ConnectionFacts`).
    private static func addHTTP2(_ channel: any Channel, _ connection: SecureConnection) throws {
        let streams = HTTP2OpenStreams()
        let responders = connection.streamResponders(channel, HTTP2ConnectionFacts(parent: channel, streams: streams))
        var settings = nioDefaultSettings.filter { $0.parameter != .maxHeaderListSize }
        settings.append(HTTP2Setting(parameter: .maxHeaderListSize, value: connection.limits.maxHeadSize))
        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
        configuration.initialSettings = settings
        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
            mode: .server, connectionConfiguration: configuration, streamConfiguration: .init()
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                try responders.addHandler(to: stream)
            }
        }
        try channel.pipeline.syncOperations.addHandler(HTTP2GracefulClose(streams: streams))
    }
}

extension ServerConfiguration {
    /// How the server listens, HTTPS included: `tls` nil serves plain HTTP only.
    public init(host: String = "127.0.0.1", port: Int = 0, maxRequestBodySize: Int = 8 * 1024 * 1024,
                limits: ConnectionLimits = .default, adminToken: String? = nil, tls: TLSSettings?) {
        self.init(host: host, port: port, maxRequestBodySize: maxRequestBodySize, limits: limits, adminToken: adminToken,
                  secureTransport: tls)
    }

    /// HTTPS with the local CA (and HTTP/2 by ALPN); nil serves plain HTTP only. The same
    /// setting as `secureTransport`, when that is a `TLSSettings`.
    public var tls: TLSSettings? {
        get { secureTransport as? TLSSettings }
        set { secureTransport = newValue }
    }
}

extension MockHTTPServer {
    /// The local CA that signed the HTTPS certificate (nil without TLS): the one to trust.
    public var certificateAuthority: LocalCA? { (secureListener?.state as? ServerTLS)?.ca }

    /// The names the HTTPS certificate of this start covers (empty without TLS).
    public var certificateNames: [SubjectName] { (secureListener?.state as? ServerTLS)?.identity.names ?? [] }
}

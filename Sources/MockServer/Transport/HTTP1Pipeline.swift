import Logging
import MockAdmin
import MockCore
import NIOCore
import NIOHTTP1

/// The handlers of one HTTP/1.1 connection (after the TLS handler on an HTTPS one): the
/// clock watches bytes (deadlines, head size); NIO's decoder parses requests; on the proxy
/// port `ForwardProxyHandler` takes the proxy's requests; `HTTPConnectionHandler` answers
/// the rest, in order.
///
/// `MockHTTPServer` installs it on every connection. The request and proxy fuzzers (the
/// `Fuzz` package) install the same on an `EmbeddedChannel` through this SPI, so they need
/// no `@testable import` (which Release and Archive builds refuse).
@_spi(Fuzzing) public enum HTTP1Pipeline {
    /// NIO's parser limits for a connection with these limits.
    static func decoderLimits(_ limits: ConnectionLimits) -> NIOHTTPDecoderLimitConfiguration {
        var decoderLimits = NIOHTTPDecoderLimitConfiguration()
        decoderLimits.maxHeaderListSize = limits.maxHeadSize
        decoderLimits.maxHeaderFieldSize = limits.maxHeadSize
        return decoderLimits
    }

    static func add(to channel: any Channel, pipeline: Pipeline, proxy: (any AsyncResponder)?,
                    limits: ConnectionLimits, maxRequestBodySize: Int, fallbackBaseURL: String, logger: Logger,
                    delays: DelayQueue, scheme: String, forwardProxy: ProxyContext? = nil) throws {
        let sync = channel.pipeline.syncOperations
        let clock = ConnectionClock(limits: limits)
        try sync.addHandler(clock)
        // The bytes after a CONNECT request's head belong to the tunnel, and those after
        // a WebSocket's upgrade request to the WebSocket: the decoder hands them on when it
        // leaves the pipeline (it leaves only for one of these).
        try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(
            leftOverBytesStrategy: .forwardBytes, informationalResponseStrategy: .drop,
            limitConfiguration: decoderLimits(limits))))
        let shared = ConnectionShared(pipeline: pipeline, proxy: proxy, maxRequestBodySize: maxRequestBodySize,
                                      fallbackBaseURL: fallbackBaseURL, logger: logger, delays: delays, limits: limits, scheme: scheme,
                                      forwardProxy: forwardProxy)
        if let forwardProxy { try sync.addHandler(ForwardProxyHandler(proxy: forwardProxy, shared: shared, clock: clock)) }
        try sync.addHandler(HTTPConnectionHandler(shared: shared, clock: clock))
    }

    /// Installs a plain-HTTP connection's handlers on `channel`, answering from `engine`
    /// behind its admin API. Time is the channel's event loop's (an `EmbeddedEventLoop`'s own).
    @_spi(Fuzzing) public static func install(on channel: any Channel, engine: MockEngine, limits: ConnectionLimits,
                                              maxRequestBodySize: Int, fallbackBaseURL: String, logger: Logger) throws {
        try add(to: channel, pipeline: Pipeline(engine: engine, control: AdminAPI(engine: engine)), proxy: nil, limits: limits,
                maxRequestBodySize: maxRequestBodySize, fallbackBaseURL: fallbackBaseURL, logger: logger,
                delays: DelayQueue(eventLoop: channel.eventLoop), scheme: "http")
    }

    /// Installs a forward proxy port's handlers on `channel`, as `install` does a plain
    /// port's: proxy requests to the hosts `engine` answers to are answered, tunnels
    /// included. Pass-through is off (nothing connects out) and the proxy has no TLS (a
    /// tunnel that starts a handshake is closed). `proxyToken`, when set, is required as
    /// `Proxy-Authorization`. Call on the channel's event loop.
    @_spi(Fuzzing) public static func installForwardProxy(on channel: any Channel, engine: MockEngine, limits: ConnectionLimits,
                                                          maxRequestBodySize: Int, fallbackBaseURL: String, logger: Logger,
                                                          proxyToken: String?) throws {
        let delays = DelayQueues(DelayQueue(eventLoop: channel.eventLoop), on: channel.eventLoop)
        let services = ListenerServices(pipeline: Pipeline(engine: engine, control: AdminAPI(engine: engine)), recordingProxy: nil, limits: limits,
                                        maxRequestBodySize: maxRequestBodySize, logger: logger, delays: delays)
        let proxy = ProxyContext(settings: ForwardProxy(passThrough: false), mappedHosts: ForwardProxy.mappedHosts(of: engine),
                                 token: proxyToken, services: services, secure: nil, exposed: false)
        try services.addHTTP1(channel, scheme: "http", fallbackBaseURL: fallbackBaseURL, forwardProxy: proxy)
    }
}

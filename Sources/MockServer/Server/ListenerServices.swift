import Logging
import MockCore
import NIOCore

/// What the connections of every port of one server share, and how a connection's HTTP
/// handlers are put together: the server's port, its HTTPS port and its proxy port all
/// build theirs here, as does a proxy tunnel once it knows what it carries.
struct ListenerServices: Sendable {
    /// The server's one pipeline (its admin API ahead of its engine).
    let pipeline: Pipeline
    var engine: MockEngine { pipeline.engine }
    /// Answers everything outside the admin API (recording through a proxy), when set.
    let recordingProxy: (any AsyncResponder)?
    let limits: ConnectionLimits
    let maxRequestBodySize: Int
    let logger: Logger
    let delays: DelayQueues

    /// Adds the HTTP/1.1 handlers to `channel` (after a TLS handler, on an HTTPS connection).
    /// `forwardProxy`: the connection is the proxy port's, which also takes proxy requests.
    func addHTTP1(_ channel: any Channel, scheme: String, fallbackBaseURL: String, forwardProxy: ProxyContext? = nil) throws {
        try HTTP1Pipeline.add(to: channel, pipeline: pipeline, proxy: recordingProxy, limits: limits,
                              maxRequestBodySize: maxRequestBodySize, fallbackBaseURL: fallbackBaseURL, logger: logger,
                              delays: delays.queue(for: channel.eventLoop), scheme: scheme, forwardProxy: forwardProxy)
    }

    /// The request handlers of a multiplexed (HTTP/2) connection's streams, which read and
    /// answer through `framing`. What every stream shares is made once per connection:
    /// a stream is one request.
    func streamResponders(_ channel: any Channel, _ framing: any StreamFraming, fallbackBaseURL: String) -> StreamResponders {
        StreamResponders(shared: NIOLoopBound(ConnectionShared(
            pipeline: pipeline, proxy: recordingProxy, maxRequestBodySize: maxRequestBodySize,
            fallbackBaseURL: fallbackBaseURL, logger: logger, delays: delays.queue(for: channel.eventLoop), limits: limits,
            scheme: "https", http2: framing), eventLoop: channel.eventLoop))
    }

    /// A connection on an HTTPS port (or a tunnel that turned out to carry TLS), for the
    /// `SecureListener`: after TLS it speaks HTTP/1.1 or HTTP/2, with absolute URLs built on
    /// `fallbackBaseURL()` when a request names no plain host.
    func secureConnection(_ channel: any Channel, fallbackBaseURL: @escaping @Sendable () -> String) -> SecureConnection {
        SecureConnection(
            channel: channel, pipeline: pipeline, limits: limits,
            addHTTP1: { channel in try addHTTP1(channel, scheme: "https", fallbackBaseURL: fallbackBaseURL()) },
            streamResponders: { channel, framing in streamResponders(channel, framing, fallbackBaseURL: fallbackBaseURL()) })
    }
}

import Foundation
import Logging
import MockCore

/// What the request handlers of one connection share and never change: the connection's
/// one handler on HTTP/1.1, and on HTTP/2 every stream's, where a handler is made and freed
/// for each request. Held by one reference, a stream's handler is made without copying a
/// dozen fields in (a retain each, and a box for the responder's existential) and out
/// again.
final class ConnectionShared {
    let engine: MockEngine
    /// The server's pipeline: every request is answered and journaled through it.
    let pipeline: Pipeline
    /// The source in place of the APIs, answering later (a proxy to a real server).
    let proxy: (any AsyncResponder)?
    /// `proxy != nil`, read on every request: testing the optional existential itself
    /// copies it.
    let proxies: Bool
    let maxRequestBodySize: Int
    /// How absolute URLs in answers start when the request names no plain host.
    let fallbackBaseURL: String
    let logger: Logger
    /// The connection's event loop's queue of delayed responses.
    let delays: DelayQueue
    let limits: ConnectionLimits
    /// `http` or `https`: how absolute URLs in answers start.
    let scheme: String
    /// Set on an HTTP/2 connection: requests are read from its frames.
    let http2: (any StreamFraming)?
    /// How answers go on the wire: the HTTP/2 framing, or HTTP/1.1 bytes.
    let writer: any ResponseWriter
    /// Requests begun on this connection (the first one pays the link's setup).
    let requests = ConnectionRequests()
    /// Set on the proxy port's connections: `CONNECT` and absolute-form requests are
    /// proxy requests (`ForwardProxyHandler`).
    let forwardProxy: ProxyContext?

    init(pipeline: Pipeline, proxy: (any AsyncResponder)?, maxRequestBodySize: Int,
         fallbackBaseURL: String, logger: Logger, delays: DelayQueue, limits: ConnectionLimits, scheme: String,
         http2: (any StreamFraming)? = nil, forwardProxy: ProxyContext? = nil) {
        self.forwardProxy = forwardProxy
        self.engine = pipeline.engine
        self.pipeline = pipeline
        self.proxy = proxy
        proxies = proxy != nil
        self.maxRequestBodySize = maxRequestBodySize
        self.fallbackBaseURL = fallbackBaseURL
        self.logger = logger
        self.delays = delays
        self.limits = limits
        self.scheme = scheme
        self.http2 = http2
        writer = http2 ?? HTTP1ResponseWriter(requests: requests)
    }

    /// The pipeline's answer to `request`. Called here rather than as
    /// `shared.pipeline.answer(_:)`, which copies the pipeline (and the control plane's
    /// existential in it) out of this object before every call.
    func answer(_ request: MockRequest) -> (plan: ResponsePlan, exchange: Exchange) {
        pipeline.answer(request)
    }

    /// A request the transport answers itself, journaled by the pipeline.
    func rejected(_ request: MockRequest, _ plan: ResponsePlan) -> (plan: ResponsePlan, exchange: Exchange) {
        pipeline.rejected(request, plan)
    }
}

/// Reached from one event loop only (its connection's, which its streams share).
@available(*, unavailable)
extension ConnectionShared: Sendable {}

/// What the requests of one connection share (one handler per HTTP/2 stream).
final class ConnectionRequests {
    /// This connection's number among the process's (`ConnectionRef.id`).
    let id = ConnectionRequests.next.withLock { next -> UInt64 in
        defer { next += 1 }
        return next
    }
    @exclusivity(unchecked) var begun = 0
    /// The last `Host` header and the base URL made from it: a connection's client names
    /// the same host on every request, and every stream of an HTTP/2 connection.
    @exclusivity(unchecked) var lastBaseURL: (host: String, baseURL: String)?
    /// The header lines last written on this connection (HTTP/1.1).
    @exclusivity(unchecked) var headerLines = HeaderLinesCache()
    init() {}

    private static let next = Locked<UInt64>(1)
}

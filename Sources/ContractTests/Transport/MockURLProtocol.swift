import Foundation
import MockServer
import Scenarios
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The in-process transport: a `URLProtocol` that answers from a `MockEngine` with no
/// sockets. Delays and pacing are timers; each fault becomes the `URLError` a real
/// network gives. Engines are registered under a unique host, so parallel tests never
/// share one.
public final class MockURLProtocol: URLProtocol {
    private static let engines = Locked([String: (engine: MockEngine, requestTimeout: TimeInterval)]())
    private let cancelled = Locked(false)

    /// `URLRequest`'s own default; a request that kept it takes the session's timeout.
    public static let defaultRequestTimeout: TimeInterval = 60

    /// Registers an engine; its requests go to `registration.baseURL`. `requestTimeout` is
    /// the `timeoutIntervalForRequest` of the session configuration the requests come
    /// through (the harness's): a request that leaves `timeoutInterval` at its default
    /// gets it, as URLSession does, and a request that sets its own keeps that.
    public static func register(_ engine: MockEngine, requestTimeout: TimeInterval = defaultRequestTimeout) -> InProcessRegistration {
        let host = "engine-\(UUID().uuidString.lowercased()).mockserver.invalid"
        engines.withLock { $0[host] = (engine, requestTimeout) }
        return InProcessRegistration(host: host)
    }

    static func unregister(_ host: String) { engines.withLock { _ = $0.removeValue(forKey: host) } }

    static func engine(for request: URLRequest) -> MockEngine? {
        guard let host = request.url?.host else { return nil }
        return engines.withLock { $0[host]?.engine }
    }

    /// How long this request may wait for a byte: its own timeout if it set one, else the
    /// session configuration's (URLSession's rule on both platforms).
    static func timeout(for request: URLRequest) -> TimeInterval {
        if request.timeoutInterval != defaultRequestTimeout && request.timeoutInterval > 0 { return request.timeoutInterval }
        guard let host = request.url?.host else { return request.timeoutInterval }
        return engines.withLock { $0[host]?.requestTimeout } ?? request.timeoutInterval
    }

    public override class func canInit(with request: URLRequest) -> Bool { engine(for: request) != nil }
    public override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    public override func startLoading() { load(request, hop: 0) }

    /// URLSession's limit on redirects in a row (`URLError.httpTooManyRedirects` past it).
    static let maximumRedirects = 16

    /// Answers `request` from its engine; a redirect's next request is answered the same
    /// way (`hop` counts them).
    private func load(_ request: URLRequest, hop: Int) {
        guard let engine = Self.engine(for: request), let url = request.url else {
            client?.urlProtocol(self, didFailWithError: URLError(.cannotConnectToHost))
            return
        }
        var headers = HeaderFields((request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        let body = Self.body(of: request)
        if !body.isEmpty && !headers.contains("Content-Length") { headers.add("Content-Length", String(body.count)) }
        var uri = url.path.isEmpty ? "/" : url.path
        if let query = url.query { uri += "?" + query }
        let mockRequest = MockRequest(method: request.httpMethod ?? "GET", uri: uri, headers: headers, body: body,
                                      baseURL: "\(url.scheme ?? "http")://\(url.host ?? "")", receivedAt: engine.timeSource.now())
        var answer = AdminAPI(engine: engine).respond(to: mockRequest)
        // No socket carries the body here: its time on the profile's uplink is waited out.
        if let profile = answer.network {
            answer.delay += profile.uploadDuration(bytes: body.count) * engine.configuration.timeScale
        }
        let plan = answer
        let this = Unchecked(self)
        let timeout = Self.timeout(for: request)
        // No byte for longer than the timeout (a hang, or a delay past it): URLSession's
        // timeout fires first, as over a socket.
        if plan.fault == .hang || plan.delay > timeout {
            after(timeout) { this.value.fail(URLError(.timedOut)) }
            return
        }
        after(plan.delay) { this.value.deliver(plan, request: request, hop: hop) }
    }

    private func fail(_ error: URLError) {
        guard !isCancelled, let client else { return }
        client.urlProtocol(self, didFailWithError: error)
    }

    public override func stopLoading() { cancelled.withLock { $0 = true } }

    private var isCancelled: Bool { cancelled.current }

    private func after(_ seconds: TimeInterval, _ work: @escaping @Sendable () -> Void) {
        if seconds <= 0 { work() } else { DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: work) }
    }

    private func deliver(_ plan: ResponsePlan, request: URLRequest, hop: Int) {
        guard !isCancelled, let client, let url = request.url else { return }
        let method = request.httpMethod ?? "GET"
        switch plan.fault {
        case .hang?:
            client.urlProtocol(self, didFailWithError: URLError(.timedOut))
            return
        case .connectionReset?, .emptyResponse?:
            client.urlProtocol(self, didFailWithError: URLError(.networkConnectionLost))
            return
        case .malformedChunk?, .randomDataThenClose?:
            client.urlProtocol(self, didFailWithError: URLError(.cannotParseResponse))
            return
        case .truncatedBody?, nil:
            break
        }
        var fields: [String: String] = [:]
        for field in plan.headers { fields[field.name] = field.value }
        fields["Content-Length"] = String(plan.body.count)
        guard let response = HTTPURLResponse(url: url, statusCode: plan.status, httpVersion: "HTTP/1.1", headerFields: fields) else {
            client.urlProtocol(self, didFailWithError: URLError(.badServerResponse))
            return
        }
        // A redirect with a Location is followed, as URLSession follows one from a socket.
        if let next = Self.redirect(request, status: plan.status, location: plan.headers["Location"], from: url) {
            #if canImport(FoundationNetworking)
            // swift-corelibs-foundation stops the process when a protocol reports a
            // redirect ("doesn't currently handle redirects directly"), so the protocol
            // follows it itself (without asking a delegate's willPerformHTTPRedirection).
            guard hop < Self.maximumRedirects else {
                client.urlProtocol(self, didFailWithError: URLError(.httpTooManyRedirects))
                return
            }
            // It also resends a 307 or 308 without its body over sockets; do the same here,
            // so a provider meets one behaviour over both transports on this platform.
            var next = next
            next.httpBody = nil
            next.httpBodyStream = nil
            load(next, hop: hop + 1)
            #else
            // Apple's loading system asks the session's delegate, then loads the new
            // request through a new protocol instance (answered by the same engine).
            client.urlProtocol(self, wasRedirectedTo: next, redirectResponse: response)
            #endif
            return
        }
        client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        let body = method == "HEAD" ? Data() : plan.body
        if plan.fault == .truncatedBody {
            client.urlProtocol(self, didLoad: body.prefix(body.count / 2))
            client.urlProtocol(self, didFailWithError: URLError(.networkConnectionLost))
            return
        }
        guard let pacing = plan.pacing, body.count > pacing.chunkSize else {
            if !body.isEmpty { client.urlProtocol(self, didLoad: body) }
            client.urlProtocolDidFinishLoading(self)
            return
        }
        sendPaced(body[...], pacing: pacing)
    }

    private func sendPaced(_ rest: Data.SubSequence, pacing: BodyPacing) {
        guard !isCancelled, let client else { return }
        client.urlProtocol(self, didLoad: Data(rest.prefix(pacing.chunkSize)))
        let remaining = rest.dropFirst(pacing.chunkSize)
        guard !remaining.isEmpty else {
            client.urlProtocolDidFinishLoading(self)
            return
        }
        let this = Unchecked(self)
        // A pause between chunks longer than the timeout times the request out.
        let timeout = Self.timeout(for: request)
        if pacing.interval > timeout {
            after(timeout) { this.value.fail(URLError(.timedOut)) }
            return
        }
        after(pacing.interval) { this.value.sendPaced(remaining, pacing: pacing) }
    }

    /// The request a redirect leads to, as URLSession makes it: 301, 302 and 303 turn a
    /// POST into a GET without a body (303 any method but HEAD); 307 and 308 keep the
    /// method and body. Nil when `status` is no redirect or there is no usable Location.
    static func redirect(_ request: URLRequest, status: Int, location: String?, from url: URL) -> URLRequest? {
        guard [301, 302, 303, 307, 308].contains(status), let location,
              let target = URL(string: location, relativeTo: url)?.absoluteURL else { return nil }
        var next = request
        next.url = target
        let method = request.httpMethod ?? "GET"
        if (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.httpBodyStream = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
            next.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        return next
    }

    static func body(of request: URLRequest) -> Data {
        if let body = request.httpBody { return body }
        guard let stream = request.httpBodyStream else { return Data() }
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16384)
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }
}

/// An engine's place in the in-process transport; unregister when done.
public struct InProcessRegistration: Sendable {
    public let host: String
    public var baseURL: URL { URL(string: "http://\(host)")! }
    public func unregister() { MockURLProtocol.unregister(host) }
}

/// URLProtocol instances are used from URLSession's threads and from our timers; the
/// client callbacks are thread-safe, and `cancelled` is locked.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

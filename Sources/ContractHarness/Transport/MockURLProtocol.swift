import Foundation
import Logging
import MockCore
import MockServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The in-process transport: a `URLProtocol` that answers from a `MockEngine` with no
/// sockets. Delays and pacing are timers; each fault becomes the `URLError` a real
/// network gives. An event stream's events are handed over one at a time, each when it
/// is due (`MockURLProtocol+Streams.swift`). Each engine has a registration of its own
/// (`register(_:requestTimeout:)`), so parallel tests never share one.
///
/// What reaches the engine is what a socket would carry: the request's own headers plus
/// the session configuration's `httpAdditionalHeaders` (the request's win, as URLSession
/// merges them), and the body of data and upload tasks. Every callback to the loading
/// system runs on the thread that called `startLoading` (`LoadingThread`).
public class MockURLProtocol: URLProtocol {
    private let cancelled = Locked(false)
    /// Set in `startLoading`; every client call goes through it.
    private let thread = Locked<LoadingThread?>(nil)
    /// The event stream being played, until it ends (`MockURLProtocol+Streams.swift`).
    let playback = Locked<StreamPlayback?>(nil)

    /// `URLRequest`'s own default; a request that kept it takes the session's timeout.
    public static let defaultRequestTimeout: TimeInterval = 60

    /// The session configuration this class was issued for (`InProcessRegistration`); 0
    /// for the plain class, which knows no configuration.
    class var configurationSlot: Int { 0 }

    /// Registers an engine and opens its loopback listener; requests to
    /// `registration.baseURL` from a session made with `registration.sessionConfiguration()`
    /// are answered in process. `requestTimeout` is the timeout of requests that come
    /// through a configuration the registration did not issue and keep their default.
    public static func register(_ engine: MockEngine, requestTimeout: TimeInterval = defaultRequestTimeout) async throws -> InProcessRegistration {
        var logger = Logger(label: "mock-server.in-process")
        logger.logLevel = .warning
        let server = MockHTTPServer(engine: engine, logger: logger)
        let address = try await server.start()
        let authority = "127.0.0.1:\(address.port)"
        // The listener's own pipeline: a request answers alike over its socket and in process.
        let pipeline = await server.pipeline ?? InProcessExchange.pipeline(for: engine)
        InProcessRegistry.shared.add(pipeline, requestTimeout: requestTimeout, authority: authority)
        return InProcessRegistration(baseURL: address.url, authority: authority, server: server)
    }

    public override class func canInit(with request: URLRequest) -> Bool {
        answerer(for: request.url) != nil
    }

    /// The engine that answers `url` through this class: the registration whose listener
    /// `url` names (`host:port`). Subclasses answer for other URLs (`InterceptingURLProtocol`).
    class func answerer(for url: URL?) -> InProcessRegistry.Entry? {
        InProcessRegistry.authority(of: url).flatMap(InProcessRegistry.shared.entry(for:))
    }

    /// Whether a request reaches the engine with the `Host` header a socket carries: an
    /// intercepted request names its real host there, where the journal shows it; a
    /// request to a registration's listener goes without one.
    class var sendsHostHeader: Bool { false }

    #if canImport(Darwin)
    /// Apple's loading system never shows an upload task's body to a custom protocol
    /// (neither `httpBody` nor `httpBodyStream`): such tasks are declined, and the
    /// platform's own HTTP protocol sends them, body and headers, to the registration's
    /// listener. (swift-corelibs-foundation does not ask this question; there the body
    /// is read from the task, `UploadTaskBody`.)
    public override class func canInit(with task: URLSessionTask) -> Bool {
        if task is URLSessionUploadTask { return false }
        guard let request = task.currentRequest ?? task.originalRequest else { return false }
        return canInit(with: request)
    }
    #endif

    public override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    public override func startLoading() {
        thread.withLock { $0 = LoadingThread.current() }
        load(request, hop: 0)
    }

    public override func stopLoading() {
        cancelled.withLock { $0 = true }
        // A client that goes while its event stream plays: the stream's end, journaled.
        endPlayback(.clientClosed)
    }

    var isCancelled: Bool { cancelled.current }

    /// URLSession's limit on redirects in a row (`URLError.httpTooManyRedirects` past it).
    static let maximumRedirects = InProcessExchange.maximumRedirects

    /// The configuration this request's session was made from, if this class knows it.
    private var configuration: URLSessionConfiguration? {
        guard let authority = InProcessRegistry.authority(of: request.url) else { return nil }
        return InProcessRegistry.shared.configuration(slot: type(of: self).configurationSlot, authority: authority)
    }

    /// How long this request may wait for a byte: its own timeout if it set one, else the
    /// session configuration's (URLSession's rule on both platforms).
    func timeout(for request: URLRequest) -> TimeInterval {
        if request.timeoutInterval != Self.defaultRequestTimeout && request.timeoutInterval > 0 { return request.timeoutInterval }
        if let configuration { return configuration.timeoutIntervalForRequest }
        return type(of: self).answerer(for: request.url)?.requestTimeout ?? request.timeoutInterval
    }

    /// The request as a socket would carry it: the session's headers under the request's
    /// own, and the body wherever the loading system keeps it.
    func mockRequest(_ request: URLRequest, engine: MockEngine, url: URL) throws(URLError) -> MockRequest {
        var headers = Self.headers(request.allHTTPHeaderFields ?? [:], sessionHeaders: configuration?.httpAdditionalHeaders)
        let body = try Self.body(of: request, task: task)
        if !body.isEmpty && !headers.contains("Content-Length") { headers.add("Content-Length", String(body.count)) }
        if type(of: self).sendsHostHeader, !headers.contains("Host"), let host = url.host {
            headers.add("Host", (host.contains(":") ? "[\(host)]" : host) + (url.port.map { ":\($0)" } ?? ""))
        }
        var uri = url.path.isEmpty ? "/" : url.path
        if let query = url.query { uri += "?" + query }
        return MockRequest(method: request.httpMethod ?? "GET", uri: uri, headers: headers, body: body,
                           baseURL: "\(url.scheme ?? "http")://\(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")",
                           receivedAt: engine.timeSource.now())
    }

    /// URLSession's merge: every session header the request does not set itself (names
    /// compared case-insensitively), then the request's own; sorted by name.
    static func headers(_ own: [String: String], sessionHeaders: [AnyHashable: Any]?) -> HeaderFields {
        var merged = own
        let ownNames = Set(own.keys.map { $0.lowercased() })
        for (key, value) in sessionHeaders ?? [:] {
            guard let name = key as? String, !ownNames.contains(name.lowercased()) else { continue }
            merged[name] = value as? String ?? "\(value)"
        }
        return HeaderFields(merged.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Answers `request` from its engine; a redirect's next request is answered the same
    /// way (`hop` counts them).
    private func load(_ request: URLRequest, hop: Int) {
        guard let url = request.url, let pipeline = type(of: self).answerer(for: url)?.pipeline else {
            fail(URLError(.cannotConnectToHost))
            return
        }
        let mockRequest: MockRequest
        do {
            mockRequest = try self.mockRequest(request, engine: pipeline.engine, url: url)
        } catch {
            fail(error)
            return
        }
        let (plan, exchange) = InProcessExchange.answer(mockRequest, pipeline: pipeline)
        let this = Unchecked(self)
        let timeout = timeout(for: request)
        // No byte for longer than the timeout (a hang, or a delay past it): URLSession's
        // timeout fires first, as over a socket.
        if InProcessExchange.firstByteWait(plan) > timeout {
            after(timeout) { this.value.fail(URLError(.timedOut)) }
            return
        }
        if let stream = plan.eventStream {
            after(plan.delay) { this.value.deliverStream(stream, plan: plan, request: request, mockRequest: mockRequest, exchange: exchange) }
            return
        }
        let body = mockRequest.body
        // Once the answer's last byte (or its fault) is handed over, its end goes into the
        // journal, as a socket server's does when the response is written; not for a load
        // stopped before then, nor for one that times out (a hang, a pause too long).
        let ended: @Sendable () -> Void = {
            guard !this.value.isCancelled else { return }
            exchange.finished()
        }
        after(plan.delay) { this.value.deliver(plan, request: request, body: body, hop: hop, ended: ended) }
    }

    /// Runs `work` on the loading thread, unless the load was stopped.
    func onLoadingThread(_ work: @escaping (any URLProtocolClient) -> Void) {
        let this = Unchecked(self)
        let run = {
            guard !this.value.isCancelled, let client = this.value.client else { return }
            work(client)
        }
        if let thread = thread.current { thread.perform(run) } else { run() }
    }

    func fail(_ error: URLError) {
        onLoadingThread { $0.urlProtocol(self, didFailWithError: error) }
    }

    /// `work` after `seconds` (at once when not positive), on the loading thread.
    private func after(_ seconds: TimeInterval, _ work: @escaping @Sendable () -> Void) {
        if seconds <= 0 { work() } else { Self.timers.asyncAfter(deadline: .now() + seconds, execute: work) }
    }

    /// Where delays and timeouts wait. Not `DispatchQueue.global()`: on Linux its threads
    /// are as many as cores, so two blocking calls elsewhere in the process (a test's
    /// socket read, a child process) hold every one of them and a 1 s timeout fired after
    /// 12 s in CI. A queue of its own gets a thread when its timer is due.
    static let timers = DispatchQueue(label: "mock-server.url-protocol.timers")

    /// `body`: the request's body as read (a stream cannot be read twice).
    private func deliver(_ plan: ResponsePlan, request: URLRequest, body requestBody: Data, hop: Int, ended: @escaping @Sendable () -> Void) {
        guard let url = request.url else { return }
        let method = request.httpMethod ?? "GET"
        if plan.webSocket != nil, plan.fault == nil {
            // A WebSocket's upgrade (101): a data task cannot switch protocols, and
            // URLSession's WebSocket task never reaches a URLProtocol. Sockets carry them.
            ended()
            fail(URLError(.badServerResponse))
            return
        }
        if let failure = InProcessExchange.error(for: plan.fault) {
            // A hang's end never comes (its request timed out before).
            if plan.fault != .hang { ended() }
            fail(URLError(failure))
            return
        }
        var fields: [String: String] = [:]
        for field in InProcessExchange.responseHeaders(plan) { fields[field.name] = field.value }
        guard let response = HTTPURLResponse(url: url, statusCode: plan.status, httpVersion: "HTTP/1.1", headerFields: fields) else {
            ended()
            fail(URLError(.badServerResponse))
            return
        }
        // A redirect with a Location is followed, as URLSession follows one from a socket.
        if let next = Self.redirect(request, body: requestBody, status: plan.status, location: plan.headers["Location"], from: url) {
            // The redirect's answer ends here; the request it leads to is journaled on its own.
            ended()
            #if canImport(FoundationNetworking)
            // swift-corelibs-foundation stops the process when a protocol reports a
            // redirect ("doesn't currently handle redirects directly"), so the protocol
            // follows it itself (without asking a delegate's willPerformHTTPRedirection).
            guard hop < Self.maximumRedirects else {
                fail(URLError(.httpTooManyRedirects))
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
            // request through a new protocol instance (answered by the same engine). This
            // load ends here, as Apple's CustomHTTPProtocol sample ends it: with a
            // user-cancelled error the system ignores after a redirect. (Without it, a
            // delegate that refuses the redirect leaves the task hanging until its timeout.)
            onLoadingThread { client in
                client.urlProtocol(self, wasRedirectedTo: next, redirectResponse: response)
                client.urlProtocol(self, didFailWithError: NSError(domain: NSCocoaErrorDomain, code: NSUserCancelledError))
            }
            #endif
            return
        }
        let body = method == "HEAD" ? Data() : plan.body
        // Each end is journaled before the last of the answer is handed over, so a client
        // that has the answer finds it journaled as ended.
        if plan.fault == .truncatedBody { ended() }
        onLoadingThread { client in
            client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            if plan.fault == .truncatedBody {
                client.urlProtocol(self, didLoad: body.prefix(body.count / 2))
                client.urlProtocol(self, didFailWithError: URLError(InProcessExchange.truncationError))
            }
        }
        if plan.fault == .truncatedBody { return }
        guard let pacing = plan.pacing, body.count > pacing.chunkSize else {
            ended()
            onLoadingThread { client in
                if !body.isEmpty { client.urlProtocol(self, didLoad: body) }
                client.urlProtocolDidFinishLoading(self)
            }
            return
        }
        sendPaced(body[...], pacing: pacing, ended: ended)
    }

    private func sendPaced(_ rest: Data.SubSequence, pacing: BodyPacing, ended: @escaping @Sendable () -> Void) {
        let chunk = Data(rest.prefix(pacing.chunkSize))
        let remaining = rest.dropFirst(pacing.chunkSize)
        if remaining.isEmpty { ended() }
        onLoadingThread { client in
            client.urlProtocol(self, didLoad: chunk)
            if remaining.isEmpty { client.urlProtocolDidFinishLoading(self) }
        }
        guard !remaining.isEmpty, !isCancelled else { return }
        let this = Unchecked(self)
        // A pause between chunks longer than the timeout times the request out.
        let timeout = timeout(for: request)
        if pacing.interval > timeout {
            after(timeout) { this.value.fail(URLError(.timedOut)) }
            return
        }
        after(pacing.interval) { this.value.sendPaced(remaining, pacing: pacing, ended: ended) }
    }

    /// The request a redirect leads to, as URLSession makes it (`InProcessExchange.redirect`),
    /// with `body` as data when it keeps one (a body stream was read already). Nil when
    /// `status` is no redirect or there is no usable Location.
    static func redirect(_ request: URLRequest, body: Data = Data(), status: Int, location: String?, from url: URL) -> URLRequest? {
        guard let redirect = InProcessExchange.redirect(status: status, location: location, method: request.httpMethod ?? "GET", from: url) else {
            return nil
        }
        var next = request
        next.url = redirect.url
        if request.httpBodyStream != nil {
            next.httpBodyStream = nil
            next.httpBody = body.isEmpty ? nil : body
        }
        if redirect.dropsBody {
            next.httpMethod = redirect.method
            next.httpBody = nil
            next.httpBodyStream = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
            next.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        return next
    }

    /// The body a socket would carry: the request's `httpBody` or `httpBodyStream`, else
    /// an upload task's (`UploadTaskBody`).
    static func body(of request: URLRequest, task: URLSessionTask?) throws(URLError) -> Data {
        if let body = request.httpBody { return body }
        if let stream = request.httpBodyStream { return read(stream) }
        guard let task, task is URLSessionUploadTask else { return Data() }
        return try UploadTaskBody.read(task)
    }

    static func read(_ stream: InputStream) -> Data {
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

/// URLProtocol instances are used from URLSession's threads and from our timers; client
/// calls go through the loading thread, and `cancelled` is locked.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

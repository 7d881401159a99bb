import Foundation
import Logging
import MockCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Forwards every request to a real server and answers with its response, as is but
/// for the upstream's own address in text bodies and `Location`, which becomes this
/// server's (so image URLs in a menu lead back through the proxy). With a `Recorder`,
/// each exchange is written as fixtures before the client gets its answer.
///
/// Redirects are passed to the client, not followed; compressed bodies arrive decoded
/// (URLSession decodes them), so `Content-Encoding` is dropped.
public struct UpstreamProxy: AsyncResponder {
    /// `scheme://host[:port][/prefix]`, without a trailing slash.
    public let upstream: String
    /// Where each exchange is written as fixtures, if recording.
    public let recorder: Recorder?
    private let session: URLSession
    private let logger: Logger

    /// Makes a proxy to `upstream` (a trailing `/` is dropped); each request to it may take
    /// `timeout` seconds, and with `recorder` every exchange is recorded.
    public init(upstream: URL, timeout: TimeInterval = 30, recorder: Recorder? = nil, logger: Logger = Logger(label: "mock-server.record")) {
        var base = upstream.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.upstream = base
        self.recorder = recorder
        self.logger = logger
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = 64
        session = URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
    }

    /// Request headers that belong to the client's connection to us, not to the upstream.
    static let hopByHop: Set<String> = [
        "host", "connection", "keep-alive", "proxy-connection", "proxy-authorization", "te", "trailer", "transfer-encoding",
        "upgrade", "content-length", "accept-encoding", "expect",
    ]

    /// Forwards `request` to the upstream at `target`'s path and query, and answers with its
    /// response; an upstream that cannot be reached gets a 502 JSON error.
    public func respond(to request: MockRequest, target: String) async -> ResponsePlan {
        let path = Self.originForm(target)
        guard let url = URL(string: upstream + path) else {
            return .error(400, "The request target \(target) cannot be forwarded to \(upstream)").answered(by: "proxy")
        }
        var forward = URLRequest(url: url)
        forward.httpMethod = request.method
        for field in request.headers where !Self.hopByHop.contains(field.name.lowercased()) {
            forward.addValue(field.value, forHTTPHeaderField: field.name)
        }
        if !request.body.isEmpty { forward.httpBody = request.body }

        let data: Data
        let response: HTTPURLResponse
        do {
            let (received, answer) = try await session.data(for: forward)
            guard let http = answer as? HTTPURLResponse else {
                return .error(502, "The upstream \(upstream) did not answer with HTTP").answered(by: "proxy")
            }
            data = received
            response = http
        } catch {
            logger.warning("upstream failed", metadata: ["url": "\(url.absoluteString)", "error": "\(error.localizedDescription)"])
            return .error(502, "The upstream \(upstream) did not answer \(request.method) \(path): \(error.localizedDescription)",
                          details: ["upstream": .string(upstream)]).answered(by: "proxy")
        }

        var headers = HeaderFields()
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String, let value = value as? String else { continue }
            let lowered = name.lowercased()
            if ["connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"].contains(lowered) { continue }
            headers.add(name, lowered == "location" ? value.replacingOccurrences(of: upstream, with: request.baseURL) : value)
        }
        headers = HeaderFields(headers.sorted { $0.name.lowercased() < $1.name.lowercased() }.map { ($0.name, $0.value) })
        let isText = RecordedExchange.isText(contentType: headers["Content-Type"])
        let clientBody = isText ? rebase(data, to: request.baseURL) : data

        if let recorder {
            var recordedHeaders = headers
            var templated = false
            if let location = response.value(forHTTPHeaderField: "Location"), location.contains(upstream) {
                recordedHeaders.set("Location", location.replacingOccurrences(of: upstream, with: BodyTemplate.fileMarker))
                templated = true
            }
            let recordedBody = isText ? rebase(data, to: BodyTemplate.fileMarker) : data
            let exchange = RecordedExchange(
                method: request.method, path: request.path, query: request.query, requestHeaders: request.headers,
                requestBody: request.body, status: response.statusCode, headers: recordedHeaders, body: recordedBody,
                templated: templated || recordedBody != data)
            do {
                try await recorder.add(exchange)
            } catch {
                logger.error("cannot write the recording", metadata: ["file": "\(recorder.scenarioFile.path)", "error": "\(error.localizedDescription)"])
            }
        }
        return ResponsePlan(status: response.statusCode, headers: headers, body: clientBody, answeredBy: "proxy")
    }

    /// The upstream's address replaced in a text body, also where JSON escaped its slashes.
    private func rebase(_ body: Data, to base: String) -> Data {
        guard var text = String(data: body, encoding: .utf8) else { return body }
        let escaped = upstream.replacingOccurrences(of: "/", with: "\\/")
        guard text.contains(upstream) || text.contains(escaped) else { return body }
        text = text.replacingOccurrences(of: upstream, with: base).replacingOccurrences(of: escaped, with: base)
        return Data(text.utf8)
    }

    /// The path and query of a request target; an absolute-form target loses its origin.
    static func originForm(_ target: String) -> String {
        guard let scheme = target.range(of: "://"), target.hasPrefix("http") else {
            return target.hasPrefix("/") ? target : "/" + target
        }
        let rest = target[scheme.upperBound...]
        return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
    }
}

/// Hands redirects to the client instead of following them.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    // @unchecked: no stored state; URLSession calls it from its own queue.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

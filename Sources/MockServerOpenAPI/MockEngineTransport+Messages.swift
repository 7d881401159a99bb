import Foundation
import HTTPTypes
import MockCore
import MockServer

/// Between swift-http-types' messages and the engine's: the request as a socket would
/// carry it, the response head as URLSession reports it, and redirects as URLSession
/// follows them.
extension MockEngineTransport {
    /// `request` sent to `baseURL` (its path prefixes the request's), with a
    /// `Content-Length` for a body, as a client writes one.
    static func mockRequest(_ request: HTTPRequest, body: Data, baseURL: URL, receivedAt: Date) throws(URLError) -> MockRequest {
        guard let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true), let scheme = components.scheme,
              let host = components.host else { throw URLError(.badURL) }
        var headers = HeaderFields(request.headerFields.map { ($0.name.rawName, $0.value) })
        if !body.isEmpty && !headers.contains("Content-Length") { headers.add("Content-Length", String(body.count)) }
        let prefix = components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        let path = request.path ?? "/"
        return MockRequest(method: request.method.rawValue, uri: prefix + (path.hasPrefix("/") ? path : "/" + path), headers: headers, body: body,
                           baseURL: "\(scheme)://\(host)\(components.port.map { ":\($0)" } ?? "")", receivedAt: receivedAt)
    }

    /// The plan's status and headers (`InProcessExchange.responseHeaders`: `Content-Length`
    /// is the body's whole length).
    static func responseHead(_ plan: ResponsePlan) -> HTTPResponse {
        var fields = HTTPFields()
        for field in InProcessExchange.responseHeaders(plan) {
            guard let name = HTTPField.Name(field.name) else { continue }
            fields.append(HTTPField(name: name, value: field.value))
        }
        return HTTPResponse(status: .init(code: plan.status), headerFields: fields)
    }

    /// The request a redirect leads to, as URLSession makes it (`InProcessExchange.redirect`).
    /// Nil when `plan` is no redirect or has no usable `Location`.
    static func redirect(_ request: MockRequest, plan: ResponsePlan, hop: Int, now: Date) throws(URLError) -> MockRequest? {
        guard let here = URL(string: request.baseURL + request.uri),
              let redirect = InProcessExchange.redirect(status: plan.status, location: plan.headers["Location"], method: request.method, from: here),
              let components = URLComponents(url: redirect.url, resolvingAgainstBaseURL: true) else { return nil }
        guard hop < maximumRedirects else { throw URLError(.httpTooManyRedirects) }
        let origin = "\(components.scheme ?? "")://\(components.host ?? "")\(components.port.map { ":\($0)" } ?? "")"
        // In process there is only this engine to answer.
        guard origin == request.baseURL else { throw URLError(.cannotConnectToHost) }
        let method = redirect.method
        var body = request.body
        var headers = request.headers
        if redirect.dropsBody {
            body = Data()
            headers.remove("Content-Type")
            headers.remove("Content-Length")
        }
        let query = components.percentEncodedQuery.map { "?" + $0 } ?? ""
        return MockRequest(method: method, uri: (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath) + query,
                           headers: headers, body: body, baseURL: request.baseURL, receivedAt: now)
    }
}

import Foundation
import HTTPTypes
import MockServer
import Scenarios

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

    /// The plan's status and headers; `Content-Length` is the body's whole length (a
    /// truncated body promises more than it sends, as on the wire).
    static func responseHead(_ plan: ResponsePlan) -> HTTPResponse {
        var fields = HTTPFields()
        for field in plan.headers where field.name.lowercased() != "content-length" {
            guard let name = HTTPField.Name(field.name) else { continue }
            fields.append(HTTPField(name: name, value: field.value))
        }
        fields[.contentLength] = String(plan.body.count)
        return HTTPResponse(status: .init(code: plan.status), headerFields: fields)
    }

    /// The request a redirect leads to, as URLSession makes it: 301 and 302 turn a POST
    /// into a GET without a body, 303 any method but HEAD; 307 and 308 keep the method and
    /// body. Nil when `plan` is no redirect or has no usable `Location`.
    static func redirect(_ request: MockRequest, plan: ResponsePlan, hop: Int, now: Date) throws(URLError) -> MockRequest? {
        guard [301, 302, 303, 307, 308].contains(plan.status), let location = plan.headers["Location"],
              let here = URL(string: request.baseURL + request.uri),
              let target = URL(string: location, relativeTo: here)?.absoluteURL,
              let components = URLComponents(url: target, resolvingAgainstBaseURL: true) else { return nil }
        guard hop < maximumRedirects else { throw URLError(.httpTooManyRedirects) }
        let origin = "\(components.scheme ?? "")://\(components.host ?? "")\(components.port.map { ":\($0)" } ?? "")"
        // In process there is only this engine to answer.
        guard origin == request.baseURL else { throw URLError(.cannotConnectToHost) }
        var method = request.method
        var body = request.body
        var headers = request.headers
        if (plan.status == 303 && method != "HEAD") || ((plan.status == 301 || plan.status == 302) && method == "POST") {
            method = "GET"
            body = Data()
            headers.remove("Content-Type")
            headers.remove("Content-Length")
        }
        let query = components.percentEncodedQuery.map { "?" + $0 } ?? ""
        return MockRequest(method: method, uri: (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath) + query,
                           headers: headers, body: body, baseURL: request.baseURL, receivedAt: now)
    }
}

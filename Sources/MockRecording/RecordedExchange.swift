import Foundation
import MockCore

/// One request the recorder forwarded and what the upstream answered, ready to be
/// written as fixtures: the body has `{{baseURL}}` where the upstream's own address was.
public struct RecordedExchange: Sendable {
    /// The request method, upper-case.
    public var method: String
    /// The request path without the query.
    public var path: String
    /// The request's query items, in order.
    public var query: [(name: String, value: String)]
    /// The request's header fields as sent.
    public var requestHeaders: HeaderFields
    /// The request body as sent.
    public var requestBody: Data
    /// The status the upstream answered.
    public var status: Int
    /// The upstream's headers with the varying ones (dates, request ids, transfer
    /// framing) removed: see `RecordedExchange.normalised(_:)`.
    public var headers: HeaderFields
    /// The response body, with `{{baseURL}}` where the upstream's own address was when `templated`.
    public var body: Data
    /// The body names the server's own address as `{{baseURL}}`.
    public var templated: Bool
    /// A fixed latency the replay answers after, in milliseconds (a HAR import's
    /// `--keep-timing`); nil for none.
    public var latencyMilliseconds: Double?
    /// Query items whose values were redacted: the replay accepts any value there (the
    /// item must be present), since the client sends the real one.
    public var redactedQueryNames: Set<String>
    /// Members of the JSON request body whose values were redacted, at any depth: the replay
    /// matches the rest of the body (`json`, extra members allowed) instead of all of it.
    public var redactedBodyKeys: Set<String>

    /// Makes an exchange; by default no headers, empty bodies, no latency and nothing redacted.
    public init(method: String, path: String, query: [(name: String, value: String)] = [], requestHeaders: HeaderFields = [:],
                requestBody: Data = Data(), status: Int, headers: HeaderFields = [:], body: Data = Data(), templated: Bool = false,
                latencyMilliseconds: Double? = nil, redactedQueryNames: Set<String> = [], redactedBodyKeys: Set<String> = []) {
        self.method = method
        self.path = path
        self.query = query
        self.requestHeaders = requestHeaders
        self.requestBody = requestBody
        self.status = status
        self.headers = RecordedExchange.normalised(headers)
        self.body = body
        self.templated = templated
        self.latencyMilliseconds = latencyMilliseconds
        self.redactedQueryNames = redactedQueryNames
        self.redactedBodyKeys = redactedBodyKeys
    }

    /// Headers that differ on every response or describe one connection's framing: a
    /// replay would serve them stale or wrong, so recordings leave them out. The transport
    /// writes `Content-Length` itself.
    public static let varyingHeaders: Set<String> = [
        "date", "expires", "age", "connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding",
        "x-request-id", "request-id", "x-correlation-id", "x-trace-id", "traceparent", "tracestate", "x-amzn-requestid",
        "x-amzn-trace-id", "x-amz-request-id", "x-amz-id-2", "x-amz-cf-id", "x-amz-cf-pop", "cf-ray", "x-runtime",
        "x-served-by", "x-timer", "x-cache", "x-cache-hits", "via", "x-vcap-request-id", "x-envoy-upstream-service-time",
        "nel", "report-to", "server-timing",
    ]

    /// `headers` without the ones that vary between identical answers (dates, request ids, transfer framing).
    public static func normalised(_ headers: HeaderFields) -> HeaderFields {
        HeaderFields(headers.filter { !varyingHeaders.contains($0.name.lowercased()) }.map { ($0.name, $0.value) })
    }

    /// A request that asked "only if changed" (its 304 is derived on replay).
    var isConditional: Bool {
        requestHeaders["If-None-Match"] != nil || requestHeaders["If-Modified-Since"] != nil
    }

    /// A 200 a replay can answer conditional requests from.
    var hasValidators: Bool {
        status == 200 && (headers["ETag"] != nil || headers["Last-Modified"] != nil)
    }

    var requestJSON: JSONValue? {
        guard !requestBody.isEmpty, let value = JSONValue(parsing: requestBody) else { return nil }
        switch value {
        case .object, .array: return value
        default: return nil
        }
    }

    /// The file extension a body of this response type gets.
    var fileExtension: String {
        let type = (headers["Content-Type"] ?? "").lowercased()
        let known: [(String, String)] = [("json", "json"), ("image/png", "png"), ("image/jpeg", "jpg"), ("image/gif", "gif"),
                                         ("image/webp", "webp"), ("text/html", "html"), ("text/", "txt")]
        return known.first { type.contains($0.0) }?.1 ?? "bin"
    }

    /// Whether a response body of this type is text in which the upstream's address may
    /// appear (JSON, HTML, XML, plain text).
    public static func isText(contentType: String?) -> Bool {
        guard let type = contentType?.lowercased() else { return false }
        return type.hasPrefix("text/") || type.contains("json") || type.contains("xml") || type.contains("javascript")
    }
}

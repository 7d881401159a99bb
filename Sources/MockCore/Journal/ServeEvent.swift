import Foundation

/// One request the server received and how it was answered: a journal entry.
public struct ServeEvent: Sendable, Identifiable {
    /// 1-based sequence number, unique in a server's life (also after eviction).
    public let id: UInt64
    /// When the request arrived, on the engine's clock.
    public let receivedAt: Date
    /// The request as kept: large bodies as size and digest.
    public let request: RecordedRequest
    /// The status answered (the plan's; a fault may have kept it off the wire).
    public let status: Int
    /// The header fields answered.
    public let responseHeaders: HeaderFields
    /// The size in bytes of the body the plan answered with.
    public let responseBodySize: Int
    /// The route or rule that answered; nil when nothing matched (a 404 from the router)
    /// or the transport rejected the request before the engine saw it.
    public let answeredBy: String?
    /// The scenario rule and step that chose the answer, if any.
    public let scenarioStep: String?
    /// The transport fault carried out, if any.
    public let fault: Fault?
    /// The delay before the first byte, in seconds.
    public let delay: TimeInterval
    /// The session (`X-Mock-Session` header), if the request named one.
    public let session: String?
    /// The network profile the exchange went through ("3G"), if any.
    public let network: String?
    /// The connection the request came on (nil in process).
    public let connection: ConnectionRef?
    /// How the request breaks its API's OpenAPI document (`RequestConformance`); empty when
    /// it conforms or is no API route. The answer did not depend on them.
    public var violations: [RequestViolation] {
        switch conformance {
        case .found(let violations): return violations
        case .checkedWhenAsked(let conformance): return conformance.violations(of: request.asRequest) ?? []
        }
    }
    let conformance: Conformance
    /// Seconds from receiving the request to the end of the response, once it ended
    /// (nil while in flight, for hangs and event streams).
    public internal(set) var duration: TimeInterval?
    /// The body the plan answered with, when the journal keeps response bodies
    /// (`EngineConfiguration.journalResponseBodyLimit`); a fault may have cut it on the wire.
    public let responseBody: Data?
    /// What went over the stream this request opened (an event stream, a WebSocket), as
    /// the transport playing it told the journal (``Journal/append(_:to:)``) up to when
    /// this entry was read; nil for an answer that is no stream.
    public var transcript: StreamTranscript? { sharedTranscript?.value }
    /// Set when the entry is read: the journal keeps transcripts beside its entries, where
    /// they grow in place.
    var sharedTranscript: SharedTranscript?

    /// Whether a route or rule answered (false for a router 404 and a transport's refusal).
    public var wasMatched: Bool { answeredBy != nil }

    /// The server's own words on a failed request: the `reason` (or `message`, `error`)
    /// string of a JSON error body, else its text, at most 200 characters. Nil for a
    /// success or when the body was not kept.
    public var responseReason: String? {
        guard !(200..<400).contains(status), let body = responseBody, !body.isEmpty else { return nil }
        let json = JSONValue(parsing: body)
        let text = ["reason", "message", "error"].lazy.compactMap { json?[$0]?.stringValue }.first
            ?? String(decoding: body.prefix(400), as: UTF8.self)
        let line = text.replacingOccurrences(of: "\n", with: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        return line.count > 200 ? String(line.prefix(200)) + "…" : line
    }
}

extension ServeEvent {
    /// An entry's violations: found when it was recorded, or, for a request the entry keeps
    /// whole, found from the kept request when they are asked for. Most requests are never
    /// looked at, so a request kept whole is not checked as it arrives: every request would
    /// pay for a check that few are read for.
    enum Conformance: Sendable {
        case found([RequestViolation])
        case checkedWhenAsked(LazyConformance)
    }
}

/// A request as kept in the journal. Large or binary bodies are kept as size and digest.
public struct RecordedRequest: Sendable {
    /// The method, upper-case.
    public let method: String
    /// The path without the query.
    public let path: String
    /// The query items in order, percent-decoded.
    public let query: [(name: String, value: String)]
    /// The header fields in arrival order.
    public let headers: HeaderFields
    /// The body, whole or as size and digest (see `RecordedBody`).
    public let body: RecordedBody
    /// `scheme://host[:port]` as the client addressed the server: its `Host` or
    /// `:authority` (as the client wrote it, so any name), or for a proxy's absolute-form
    /// request to a mapped host, that URL's.
    public let baseURL: String
    /// The host and port of `baseURL`: which host the client thought it was talking to.
    public var host: String {
        guard let start = baseURL.range(of: "://") else { return baseURL }
        return String(baseURL[start.upperBound...])
    }
    /// The full request, for matching patterns against journal entries.
    public var asRequest: MockRequest {
        var request = MockRequest(method: method, uri: "/", headers: headers, body: body.data ?? Data(), baseURL: baseURL)
        // Set as kept, not parsed again from a URI: the checks made from an entry see the
        // request the engine saw.
        request.method = method
        request.path = path
        request.query = query
        return request
    }

    /// Keeps `request`, its body whole when it is at most `bodyLimit` bytes.
    public init(_ request: MockRequest, bodyLimit: Int) {
        method = request.method
        path = request.path
        query = request.query
        headers = request.headers
        body = RecordedBody(request.body, limit: bodyLimit)
        baseURL = request.baseURL
    }
}

/// A request body as the journal keeps it.
public enum RecordedBody: Sendable, Equatable {
    /// No body.
    case empty
    /// The body kept whole.
    case bytes(Data)
    /// Only the size and an FNV-1a 64 digest are kept (over the limit).
    case summary(size: Int, digest: String)

    /// Whether a body is kept whole (as `.empty` or `.bytes`) under `limit`.
    static func keepsWhole(_ data: Data, limit: Int) -> Bool { data.isEmpty || data.count <= limit }

    init(_ data: Data, limit: Int) {
        if data.isEmpty {
            self = .empty
        } else if Self.keepsWhole(data, limit: limit) {
            self = .bytes(data)
        } else {
            self = .summary(size: data.count, digest: StableHash.hex(StableHash.fnv1a64(bytes: data)))
        }
    }

    /// The bytes when they were kept, nil for a summary.
    public var data: Data? {
        switch self {
        case .empty: return Data()
        case .bytes(let data): return data
        case .summary: return nil
        }
    }

    /// The body's size in bytes, kept or not.
    public var size: Int {
        switch self {
        case .empty: return 0
        case .bytes(let data): return data.count
        case .summary(let size, _): return size
        }
    }
}

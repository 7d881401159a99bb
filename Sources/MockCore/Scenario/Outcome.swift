import Foundation

/// One way to answer a request under a scenario: the simulator's answer, a stub, an event
/// stream or a WebSocket, optionally changed, delayed, throttled, or replaced by a
/// transport fault, and a stream broken by a stream fault.
public struct Outcome: Sendable, Hashable {
    /// Where the answer's status, headers and body come from.
    public enum Source: Sendable, Hashable {
        /// The API simulator answers (fixtures and state), as with no scenario.
        case simulator
        /// A fixed response.
        case stub(status: Int, headers: [String: String], body: StubBody)
        /// Server-sent events (`text/event-stream`), each written when it is due.
        case eventStream(status: Int, headers: [String: String], EventStream)
        /// A WebSocket: an upgrade request is accepted (101, with these header fields too)
        /// and the script plays; any other request is answered `426 Upgrade Required`.
        case webSocket(headers: [String: String], WebSocketScript)
    }

    /// Where the answer comes from; `.simulator` leaves it to the API.
    public var source: Source
    /// A change to the body that keeps the status and headers (nil: none).
    public var transform: BodyTransform?
    /// The wait before the first byte; nil takes the scenario's default.
    public var latency: Latency?
    /// How the body is paced; nil takes the scenario's default.
    public var throttle: Throttle?
    /// A transport fault in place of (or in the middle of) the answer (nil: none).
    public var fault: Fault?
    /// A stub that answers a GET or HEAD `304 Not Modified` when the request's
    /// `If-None-Match`/`If-Modified-Since` match the stub's `ETag`/`Last-Modified`
    /// (as a real server does for an image; recordings set it).
    public var conditional = false
    /// What breaks an event stream or a WebSocket once it started.
    public var streamFault: StreamFault?

    /// Makes an outcome; with no argument, the simulator's answer unchanged.
    public init(_ source: Source = .simulator, transform: BodyTransform? = nil, latency: Latency? = nil,
                throttle: Throttle? = nil, fault: Fault? = nil, conditional: Bool = false, streamFault: StreamFault? = nil) {
        self.source = source
        self.conditional = conditional
        self.transform = transform
        self.latency = latency
        self.throttle = throttle
        self.fault = fault
        self.streamFault = streamFault
    }

    /// The simulator's answer.
    public static let simulator = Outcome()

    /// A stub with a status and an optional JSON body and headers.
    public static func status(_ status: Int, json: JSONValue? = nil, headers: [String: String] = [:]) -> Outcome {
        Outcome(.stub(status: status, headers: headers, body: json.map(StubBody.json) ?? .empty))
    }

    /// The simulator's answer replaced by `fault`.
    public static func fault(_ fault: Fault) -> Outcome { Outcome(fault: fault) }

    /// An event stream, `200` with `Content-Type: text/event-stream` unless `headers` say otherwise.
    public static func eventStream(_ stream: EventStream, status: Int = 200, headers: [String: String] = [:]) -> Outcome {
        Outcome(.eventStream(status: status, headers: headers, stream))
    }

    /// A WebSocket playing `script`.
    public static func webSocket(_ script: WebSocketScript, headers: [String: String] = [:]) -> Outcome {
        Outcome(.webSocket(headers: headers, script))
    }

    /// The outcome with its stream broken by `fault`.
    public func streamFaulted(_ fault: StreamFault) -> Outcome {
        var copy = self
        copy.streamFault = fault
        return copy
    }

    /// The same outcome, answered after `latency`.
    public func delayed(_ latency: Latency) -> Outcome {
        var copy = self
        copy.latency = latency
        return copy
    }

    /// The same outcome, its body paced by `throttle`.
    public func throttled(_ throttle: Throttle) -> Outcome {
        var copy = self
        copy.throttle = throttle
        return copy
    }

    /// The same outcome, its body changed by `transform`.
    public func transformed(_ transform: BodyTransform) -> Outcome {
        var copy = self
        copy.transform = transform
        return copy
    }
}

/// The body of a stub response.
public enum StubBody: Sendable, Hashable {
    /// No body.
    case empty
    /// A JSON body, encoded with sorted keys.
    case json(JSONValue)
    /// A UTF-8 text body.
    case text(String)
    /// These bytes as they are.
    case bytes(Data)
    /// Text with `{{…}}` holes filled from each request (`ResponseTemplate`); `json` says
    /// the text is JSON, so filled-in values are escaped for it. The stub's headers are
    /// templates too.
    case template(ResponseTemplate, json: Bool)

    /// The body of a stub that is not a template.
    var data: Data {
        switch self {
        case .empty: return Data()
        case .json(let value): return JSONCoding.encode(value)
        case .text(let text): return Data(text.utf8)
        case .bytes(let data): return data
        case .template(let template, _): return Data(template.source.utf8)
        }
    }

    var defaultContentType: String? {
        switch self {
        case .empty: return nil
        case .json: return "application/json; charset=utf-8"
        case .text: return "text/plain; charset=utf-8"
        case .template(_, let json): return json ? "application/json; charset=utf-8" : "application/octet-stream"
        case .bytes: return "application/octet-stream"
        }
    }
}

/// Changes to a body that keep the status and headers.
public enum BodyTransform: Sendable, Hashable {
    /// The JSON cut in the middle and followed by text that is not JSON.
    case malformedJSON
    /// Valid JSON of the wrong shape: the original wrapped as `{"data": ...}`.
    case wrongShape
    /// No body at all (Content-Length 0).
    case emptyBody
    /// Every list (`items`, `pages`, `categories`) repeated this many times, ids offset by
    /// 100000 per copy: large catalogs from the same fixtures.
    case repeatItems(Int)
    /// Every list (`items`, `pages`, `categories`) emptied, and a page's counts made to
    /// agree: where the body has a total count (`total_count`, `totalCount`, `total`), its
    /// counts (`offset`, `last_page`/`lastPage`, …) are 0 and its links (`has_next`/`hasNext`,
    /// …) false, keeping what the client asked for (`page_no`, `items_per_page`).
    case emptyLists

    static let totalCountKeys = ["total_count", "totalCount", "total"]
    static let pageCountKeys = totalCountKeys + ["offset", "last_page", "lastPage", "total_pages", "totalPages"]
    static let pageLinkKeys = ["has_next", "hasNext", "has_prev", "hasPrev", "has_more", "hasMore", "has_previous", "hasPrevious"]

    /// `body` changed as the case says; a body that is not JSON passes unchanged where the change needs JSON.
    public func apply(_ body: Data) -> Data {
        switch self {
        case .emptyLists:
            guard case .object(var object)? = JSONValue(parsing: body) else { return body }
            for key in ["items", "pages", "categories"] where object[key]?.arrayValue != nil { object[key] = .array([]) }
            // A page's counts and links, in the words paged APIs use, snake or camel case.
            if Self.totalCountKeys.contains(where: { object[$0] != nil }) {
                for key in Self.pageCountKeys where object[key]?.doubleValue != nil { object[key] = 0 }
                for key in Self.pageLinkKeys where object[key]?.boolValue != nil { object[key] = false }
            }
            return JSONCoding.encode(JSONValue.object(object))
        case .emptyBody:
            return Data()
        case .malformedJSON:
            return Data(body.prefix(body.count / 2)) + Data("<!-- truncated: not JSON".utf8)
        case .wrongShape:
            var out = Data(#"{"data":"#.utf8)
            out.append(body.isEmpty ? Data("null".utf8) : body)
            out.append(Data("}".utf8))
            return out
        case .repeatItems(let times):
            guard times > 1, case .object(var object)? = JSONValue(parsing: body) else { return body }
            for key in ["items", "pages", "categories"] {
                guard case .array(let elements)? = object[key] else { continue }
                object[key] = .array((0..<times).flatMap { copy in elements.map { Self.offsetID($0, by: copy * 100_000) } })
            }
            return JSONCoding.encode(JSONValue.object(object))
        }
    }

    static func offsetID(_ element: JSONValue, by offset: Int) -> JSONValue {
        guard offset > 0, case .object(var members) = element else {
            if offset > 0, case .string(let name) = element { return .string("\(name)-\(offset / 100_000)") }
            return element
        }
        if let id = members["id"]?.intValue { members["id"] = .number(Double(id + offset)) }
        return .object(members)
    }
}

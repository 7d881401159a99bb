import Foundation

/// What to answer: the engine's decision, carried out by a transport.
/// Plans are values; building one never touches a socket.
public struct ResponsePlan: Sendable {
    /// The HTTP status code (100–599).
    public var status: Int
    /// The header fields to send; the transport adds the framing (`Content-Length` or chunked).
    public var headers: HeaderFields
    /// The body. It must own its bytes (not `Data(bytesNoCopy:…, deallocator: .none)` over
    /// a buffer rewritten later): the server writes an answer it kept again while a plan
    /// brings the same header list and the same body storage.
    public var body: Data
    /// Which route or rule produced the plan ("restaurant.menu"); nil when no route matched.
    public var answeredBy: String?
    /// The scenario rule and step that chose this answer (`SCENARIO/RULE#STEP`, such as the third step of `flaky`'s `menu-503s` rule), if any.
    public var scenarioStep: String?
    /// Seconds to wait before the first byte (already time-scaled).
    public var delay: TimeInterval = 0
    /// How to pace the body, if throttled (already time-scaled).
    public var pacing: BodyPacing?
    /// A transport fault to carry out instead of (or in the middle of) the response.
    public var fault: Fault?
    /// The network profile this answer goes through, if any (its effect is already in
    /// `delay`, `pacing` and `fault`; the transport adds the connection's setup).
    public var network: NetworkProfile? {
        get { sharedNetwork?.profile }
        set { sharedNetwork = newValue.map(SharedProfile.init) }
    }
    /// `network` behind one reference: a profile held inline would make every plan a few
    /// hundred bytes, copied as such between the engine's steps on every request.
    var sharedNetwork: SharedProfile?
    /// The journal entry of this answer, once recorded (the transport completes it).
    public var journalID: UInt64?
    /// An endless body: events from this hub are written as they come, until the client
    /// goes away (server-sent events).
    public var stream: EventHub?
    /// A scripted stream (``eventStream``, ``webSocket``, ``streamFault``) behind one
    /// reference: a plan without one carries a nil pointer, as today's plans do.
    var streaming: SharedStreaming?

    /// Makes a plan with no delay, pacing, fault or stream; `answeredBy` names the route or rule (nil: none).
    @inline(__always)
    public init(status: Int, headers: HeaderFields = [:], body: Data = Data(), answeredBy: String?) {
        self.status = status
        self.headers = headers
        self.body = body
        self.answeredBy = answeredBy
    }

    /// A plan no route has named yet. Apart from the initializer above: with `answeredBy`
    /// as a defaulted argument, the optimizer builds each plan twice and copies one into
    /// the other, on every request.
    @inline(__always)
    public init(status: Int, headers: HeaderFields = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body from already-encoded bytes.
    @inline(__always)
    public static func json(_ status: Int = 200, _ body: Data) -> ResponsePlan {
        // Most answers have no other header: they share one list made once. An overload of
        // its own: an empty list made for the default argument, and the plan made in one
        // branch of a function that can return another, would be a copy and a destroy.
        ResponsePlan(status: status, headers: jsonHeaders, body: body)
    }

    /// A JSON body from already-encoded bytes, with other header fields.
    public static func json(_ status: Int = 200, _ body: Data, headers: HeaderFields) -> ResponsePlan {
        guard !headers.fields.isEmpty else { return json(status, body) }
        var headers = headers
        headers.set("Content-Type", jsonContentType)
        return ResponsePlan(status: status, headers: headers, body: body)
    }

    static let jsonContentType = "application/json; charset=utf-8"
    private static let jsonHeaders: HeaderFields = ["Content-Type": jsonContentType]

    /// A JSON body encoded from a value.
    public static func json(_ status: Int = 200, _ value: JSONValue, headers: HeaderFields = [:]) -> ResponsePlan {
        .json(status, JSONCoding.encode(value), headers: headers)
    }

    /// A `200` (or `status`) answer with a text body, `text/plain; charset=utf-8` unless `contentType` says otherwise.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> ResponsePlan {
        ResponsePlan(status: status, headers: ["Content-Type": contentType], body: Data(text.utf8))
    }

    /// The error body every route uses, Vapor's shape: `{"error": true, "reason": "..."}`,
    /// plus optional details.
    public static func error(_ status: Int, _ reason: String, details: [String: JSONValue] = [:]) -> ResponsePlan {
        var members: [String: JSONValue] = ["error": true, "reason": .string(reason)]
        members.merge(details) { current, _ in current }
        return .json(status, .object(members))
    }

    /// The plan, answered by `name`. Consuming: the caller's plan is moved, not copied
    /// (a copy retains every field; this runs on every request).
    public consuming func answered(by name: String) -> ResponsePlan {
        answeredBy = name
        return self
    }
}

/// A throttled body: `chunkSize` bytes, then a pause of `interval` seconds, and so on.
public struct BodyPacing: Sendable, Equatable {
    /// Bytes per chunk.
    public var chunkSize: Int
    /// Seconds between chunks, already time-scaled.
    public var interval: TimeInterval
    /// Makes a pacing of `chunkSize` bytes every `interval` seconds.
    public init(chunkSize: Int, interval: TimeInterval) {
        self.chunkSize = chunkSize
        self.interval = interval
    }
}

/// One JSON encoder configuration for every body the mock writes: stable key order.
public enum JSONCoding {
    /// Encodes `value` as JSON with sorted keys and unescaped slashes, so equal values give equal
    /// bytes. Traps on failure, which for the package's own `Encodable` types is a programming error.
    public static func encode<T: Encodable>(_ value: T) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding our own value types cannot fail; a failure is a programming error.
        return (try? encoder.encode(value)) ?? Data("null".utf8)
    }

    /// Appends `text` to `out` as the inside of a JSON string (no quotes): `"` and `\`
    /// escaped, control characters as `\n`, `\r`, `\t` or `\u00XX`, and U+2028 and U+2029
    /// (line breaks to JavaScript) as `\u2028` and `\u2029`. Everything else as it is.
    public static func appendEscaped(_ text: String, to out: inout String) {
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
    }
}

/// A network profile held by reference, as the engine passes it from the request's
/// resolution to the plan (see `ResponsePlan.network`).
final class SharedProfile: Sendable {
    let profile: NetworkProfile
    /// The profile's name, which the journal reads without copying the profile.
    let name: String
    init(_ profile: NetworkProfile) { (self.profile, name) = (profile, profile.name) }
}

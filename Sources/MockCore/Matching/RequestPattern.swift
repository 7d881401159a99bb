import Foundation

/// What a request must look like for a rule or a route to apply (WireMock's
/// `RequestPattern`). Every constraint left nil or empty matches anything.
public struct RequestPattern: Sendable, Hashable, CustomStringConvertible {
    /// The method, upper-case; nil matches any.
    public var method: String?
    /// The path template; nil matches any path.
    public var path: PathPattern?
    /// Query items that must match, by name (case-sensitive); items not named may be anything.
    public var query: [String: StringMatcher]
    /// Header fields that must match, by name (any case); fields not named may be anything.
    public var headers: [String: StringMatcher]
    /// What the body must contain; nil matches any body.
    public var body: BodyPattern?

    /// Makes a pattern; `method` is stored upper-case, `path` is parsed as a `PathPattern`.
    /// Every constraint left nil or empty matches anything.
    public init(
        method: String? = nil,
        path: String? = nil,
        query: [String: StringMatcher] = [:],
        headers: [String: StringMatcher] = [:],
        body: BodyPattern? = nil
    ) {
        self.method = method?.uppercased()
        self.path = path.map(PathPattern.init)
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// `GET` requests whose path matches the template `path`.
    public static func get(_ path: String) -> RequestPattern { RequestPattern(method: "GET", path: path) }
    /// `POST` requests whose path matches the template `path`.
    public static func post(_ path: String) -> RequestPattern { RequestPattern(method: "POST", path: path) }
    /// `PATCH` requests whose path matches the template `path`.
    public static func patch(_ path: String) -> RequestPattern { RequestPattern(method: "PATCH", path: path) }
    /// `DELETE` requests whose path matches the template `path`.
    public static func delete(_ path: String) -> RequestPattern { RequestPattern(method: "DELETE", path: path) }
    /// Matches every request.
    public static let any = RequestPattern()

    /// Matches `request`, returning the path parameters, or nil with no match.
    /// A HEAD request matches a GET pattern, as HTTP says it must.
    public func match(_ request: MockRequest) -> MatchResult? {
        if let method, method != request.method, !(method == "GET" && request.method == "HEAD") { return nil }
        var parameters: [String: String] = [:]
        if let path {
            guard let found = path.match(request.path) else { return nil }
            parameters = found
        }
        for (name, matcher) in query where !matcher.matches(request.queryValue(name)) { return nil }
        for (name, matcher) in headers where !matcher.matches(request.headers[name]) { return nil }
        if let body, !body.matches(request.body) { return nil }
        return MatchResult(pathParameters: parameters)
    }

    /// Whether `request` meets every constraint.
    public func matches(_ request: MockRequest) -> Bool { match(request) != nil }

    /// How far `request` is from matching, 0 meaning a match; used to name the nearest
    /// routes in a 404 and the near misses in verification reports.
    public func distance(to request: MockRequest) -> Double {
        var distance = 0.0
        if let method, method != request.method, !(method == "GET" && request.method == "HEAD") { distance += 1 }
        if let path, path.match(request.path) == nil {
            // A wrong path weighs more than a wrong method: `GET /order` is nearest to `POST /order`.
            distance += 2 * PathDistance.between(path.template, request.path)
        }
        distance += Double(query.filter { !$0.value.matches(request.queryValue($0.key)) }.count) * 0.5
        distance += Double(headers.filter { !$0.value.matches(request.headers[$0.key]) }.count) * 0.5
        if let body, !body.matches(request.body) { distance += 0.5 }
        return distance
    }

    /// The pattern for people: `METHOD /path`, then its other constraints.
    public var description: String {
        var text = "\(method ?? "ANY") \(path?.template ?? "/**")"
        if !query.isEmpty {
            text += "?" + query.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.description)" }.joined(separator: "&")
        }
        for (name, matcher) in headers.sorted(by: { $0.key < $1.key }) { text += " [\(name) \(matcher.description)]" }
        if let body { text += " body \(body.description)" }
        return text
    }
}

/// The result of a successful match.
public struct MatchResult: Sendable, Equatable {
    /// The path template's parameters by name, as the path had them.
    public var pathParameters: [String: String]
    /// Makes a result with `pathParameters`.
    public init(pathParameters: [String: String] = [:]) { self.pathParameters = pathParameters }
    /// The path parameter called `parameter`, nil when the template has none of that name.
    public subscript(parameter: String) -> String? { pathParameters[parameter] }
}

/// What a request body must contain.
public enum BodyPattern: Sendable, Hashable, CustomStringConvertible {
    /// The body parses as JSON containing this value (extra object keys allowed).
    case json(JSONValue)
    /// The body parses as JSON equal to this value.
    case jsonEqualTo(JSONValue)
    /// The body parses as a JSON object with a value at this dotted key path (`order.menuIds`).
    case jsonHasKey(String)
    /// The body, read as UTF-8, contains this text.
    case contains(String)
    /// The body parses as JSON with a value at this location (a JSONPath or a JSON
    /// Pointer) that `matcher` accepts (a string as it is, other values as JSON), or any
    /// value there when `matcher` is nil: WireMock's `matchesJsonPath`.
    case jsonValue(at: JSONLocation, StringMatcher?)

    /// Whether `body` meets the pattern; a body that is not JSON fails every JSON case.
    public func matches(_ body: Data) -> Bool {
        switch self {
        case .contains(let text):
            return String(decoding: body, as: UTF8.self).contains(text)
        case .json(let expected):
            return JSONValue(parsing: body)?.contains(expected) ?? false
        case .jsonEqualTo(let expected):
            return JSONValue(parsing: body)?.contains(expected, ignoreExtraKeys: false) ?? false
        case .jsonValue(let location, let matcher):
            guard let document = JSONValue(parsing: body), let value = location.value(in: document) else { return false }
            return matcher?.matches(JSONLocation.text(of: value)) ?? true
        case .jsonHasKey(let keyPath):
            guard var value = JSONValue(parsing: body) else { return false }
            for key in keyPath.split(separator: ".") {
                guard let next = value[String(key)] else { return false }
                value = next
            }
            return true
        }
    }

    /// The pattern for people, such as `contains JSON {"menuIds":[1]}`.
    public var description: String {
        switch self {
        case .json(let v): return "contains JSON \(v)"
        case .jsonEqualTo(let v): return "equals JSON \(v)"
        case .jsonHasKey(let k): return "has JSON key \(k)"
        case .contains(let s): return "contains \"\(s)\""
        case .jsonValue(let location, let matcher?): return "JSON at \(location) \(matcher.description)"
        case .jsonValue(let location, nil): return "has JSON at \(location)"
        }
    }
}

enum PathDistance {
    /// A normalised edit distance between a template and a path, in 0...1.
    static func between(_ template: String, _ path: String) -> Double {
        let a = Array(template.utf8), b = Array(path.utf8)
        if a.isEmpty || b.isEmpty { return 1 }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return Double(previous[b.count]) / Double(Swift.max(a.count, b.count))
    }
}

import Foundation
import MockCore

/// Turns recorded exchanges into a scenario (format v1): one rule per distinct request —
/// method, path, query, JSON body and the headers asked for — answering with that
/// request's responses in the order they were recorded, the last one repeated. A value
/// redacted from a request (a HAR import's secrets) is matched on presence, not value.
/// Pure logic: `Recorder` and `HARImport.write` write what it returns.
public struct RecordingBook: Sendable {
    /// The scenario's name, and its body folder's.
    public let name: String
    /// The upstream recorded from, as the scenario's description names it.
    public let upstream: String
    /// Request headers that take part in matching (say, an API key), compared exactly.
    public let matchHeaders: [String]
    /// Every exchange added, in order.
    public private(set) var exchanges: [RecordedExchange] = []
    /// Each exchange's body file, relative to the scenario file; nil for an empty body.
    private var bodyFiles: [String?] = []
    private var filesByDigest: [String: String] = [:]

    /// Makes an empty book for a scenario called `name`, recorded from `upstream`; `matchHeaders`
    /// take part in matching.
    public init(name: String, upstream: String, matchHeaders: [String] = []) {
        self.name = name
        self.upstream = upstream
        self.matchHeaders = matchHeaders
    }

    /// Adds an exchange; returns its body file (path relative to the scenario file, and
    /// bytes) when that body was not seen before. Identical bodies share one file.
    public mutating func add(_ exchange: RecordedExchange) -> (path: String, data: Data)? {
        exchanges.append(exchange)
        guard !exchange.body.isEmpty else {
            bodyFiles.append(nil)
            return nil
        }
        let ext = exchange.fileExtension
        let digest = StableHash.hex(StableHash.fnv1a64(bytes: exchange.body)) + "." + ext
        if let existing = filesByDigest[digest] {
            bodyFiles.append(existing)
            return nil
        }
        let index = String(exchanges.count)
        let file = "\(name)/\(String(repeating: "0", count: max(0, 4 - index.count)))\(index)-\(exchange.method.lowercased())-\(Self.slug(exchange.path)).\(ext)"
        filesByDigest[digest] = file
        bodyFiles.append(file)
        return (file, exchange.body)
    }

    /// The scenario file's content.
    public func scenario(recordedAt: Date) -> JSONValue {
        var order: [Key] = []
        var groups: [Key: [Int]] = [:]
        var queryNames: [String: Set<String>] = [:]
        for (index, exchange) in exchanges.enumerated() {
            let key = Key(exchange, matchHeaders: matchHeaders)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(index)
            queryNames[key.method + " " + key.path, default: []].formUnion(key.query.keys)
        }
        var usedNames: [String: Int] = [:]
        let rules: [JSONValue] = order.map { key in
            let outcomes = responses(groups[key] ?? [])
            var rule: [String: JSONValue] = [
                "name": .string(Self.unique(key.title, &usedNames)),
                "request": request(key, otherQueryNames: (queryNames[key.method + " " + key.path] ?? []).subtracting(key.query.keys)),
            ]
            if Set(outcomes).count == 1, let only = outcomes.first {
                rule["response"] = only
            } else {
                rule["responses"] = .array(outcomes)
                rule["afterLast"] = "repeatLast"
            }
            return .object(rule)
        }
        let count = exchanges.count
        return [
            "version": .number(Double(Scenario.formatVersion)),
            "name": .string(name),
            "description": .string("Recorded from \(upstream) on \(ISO8601.format(recordedAt)): \(count) request\(count == 1 ? "" : "s"), \(rules.count) rule\(rules.count == 1 ? "" : "s")."),
            "rules": .array(rules),
        ]
    }

    /// One rule's outcomes. A 304 to a conditional request is left out when the rule
    /// already has a 200 with validators: the replay answers conditional requests itself.
    private func responses(_ indexes: [Int]) -> [JSONValue] {
        var outcomes: [JSONValue] = []
        var hasValidators = false
        for index in indexes {
            let exchange = exchanges[index]
            if exchange.status == 304, exchange.isConditional, hasValidators { continue }
            hasValidators = hasValidators || exchange.hasValidators
            var outcome: [String: JSONValue] = ["status": .number(Double(exchange.status))]
            var headers: [String: JSONValue] = [:]
            for field in exchange.headers {
                if case .string(let earlier)? = headers[field.name] {
                    headers[field.name] = .string(earlier + ", " + field.value)
                } else {
                    headers[field.name] = .string(field.value)
                }
            }
            if !headers.isEmpty { outcome["headers"] = .object(headers) }
            if let file = bodyFiles[index] { outcome["bodyFile"] = .string(file) }
            if exchange.templated { outcome["templated"] = true }
            if exchange.hasValidators, exchange.method == "GET" || exchange.method == "HEAD" { outcome["conditional"] = true }
            if let latency = exchange.latencyMilliseconds { outcome["latency"] = ["fixed": .number(latency)] }
            outcomes.append(.object(outcome))
        }
        return outcomes
    }

    private func request(_ key: Key, otherQueryNames: Set<String>) -> JSONValue {
        var request: [String: JSONValue] = ["method": .string(key.method), "path": .string(key.path)]
        var query: [String: JSONValue] = key.query.mapValues(JSONValue.string)
        // A redacted value is no value to compare: any one answers, as long as it is there.
        for name in key.anyValueQuery where query[name] != nil { query[name] = ["present": true] }
        // Exact on the names this path was seen with: `/menu` does not answer `/menu?category=x`.
        for name in otherQueryNames { query[name] = ["absent": true] }
        if !query.isEmpty { request["query"] = .object(query) }
        if !key.headers.isEmpty {
            request["headers"] = .object(key.headers.mapValues { value in value.map(JSONValue.string) ?? ["absent": true] })
        }
        if let body = key.body { request["body"] = key.bodyIsPartial ? ["json": body] : ["jsonEqualTo": body] }
        return .object(request)
    }

    /// What tells two recorded requests apart.
    struct Key: Hashable {
        let method: String
        let path: String
        let query: [String: String]
        /// Query names matched on presence only (their values were redacted).
        let anyValueQuery: Set<String>
        let headers: [String: String?]
        let body: JSONValue?
        /// `body` lacks the redacted members, so it is matched as contained, not equal.
        let bodyIsPartial: Bool
        let uri: String

        init(_ exchange: RecordedExchange, matchHeaders: [String]) {
            method = exchange.method
            path = exchange.path
            var query: [String: String] = [:]
            for item in exchange.query where query[item.name] == nil { query[item.name] = item.value }
            self.query = query
            anyValueQuery = exchange.redactedQueryNames
            headers = Dictionary(uniqueKeysWithValues: matchHeaders.map { ($0, exchange.requestHeaders[$0]) })
            if let json = exchange.requestJSON, !exchange.redactedBodyKeys.isEmpty {
                body = Self.removing(exchange.redactedBodyKeys, from: json)
                bodyIsPartial = true
            } else {
                body = exchange.requestJSON
                bodyIsPartial = false
            }
            let items = exchange.query.map { $0.value.isEmpty ? $0.name : "\($0.name)=\($0.value)" }
            uri = items.isEmpty ? path : path + "?" + items.joined(separator: "&")
        }

        var title: String { "\(method) \(uri)" }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.method == rhs.method && lhs.path == rhs.path && lhs.query == rhs.query && lhs.anyValueQuery == rhs.anyValueQuery
                && lhs.headers == rhs.headers && lhs.body == rhs.body && lhs.bodyIsPartial == rhs.bodyIsPartial
        }

        /// `json` without the members named `keys`, at any depth.
        static func removing(_ keys: Set<String>, from json: JSONValue) -> JSONValue {
            switch json {
            case .object(let members):
                var kept: [String: JSONValue] = [:]
                for (name, value) in members where !keys.contains(name) { kept[name] = removing(keys, from: value) }
                return .object(kept)
            case .array(let elements):
                return .array(elements.map { removing(keys, from: $0) })
            default:
                return json
            }
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(method)
            hasher.combine(path)
            hasher.combine(query)
            hasher.combine(body)
        }
    }

    static func unique(_ title: String, _ used: inout [String: Int]) -> String {
        let count = (used[title] ?? 0) + 1
        used[title] = count
        return count == 1 ? title : "\(title) #\(count)"
    }

    /// A file-name-safe form of a path: `/api/products/12` → `api-products-12`.
    static func slug(_ path: String) -> String {
        var slug = ""
        for scalar in path.lowercased().unicodeScalars {
            let keep = (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9")
            if keep { slug.unicodeScalars.append(scalar) } else if !slug.isEmpty && !slug.hasSuffix("-") { slug += "-" }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return slug.isEmpty ? "root" : String(slug.prefix(48))
    }
}

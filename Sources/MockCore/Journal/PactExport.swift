import Foundation

/// A Pact file made from the journal: the interactions a client actually made with the
/// mock (Pact specification V4, `Synchronous/HTTP`, or V3), so that the contract a test
/// exercised can be verified against the real provider or published to a broker.
///
/// - One interaction per distinct request and answer, in the order first seen, each with
///   a description, a key and the response's status, `Content-Type` and body.
/// - Matching rules where a value cannot be expected to repeat: ids (`id`, `*_id`) and
///   tokens (`secret`, `identifier`, UUIDs) by type, dates by their shape, and URLs on
///   the mock's own address by a regex that accepts any host (the provider has its own).
/// - Provider states: once anything moved the server's state (a write, an answer of a
///   scenario rule, which moves its sequence or state machine, a scenario switched), each
///   interaction names what came before it, with those requests in its `params.replay`.
///   The mock's own `POST /__admin/pact/state` resets and replays them, so a mock can be
///   the provider of a verification; a real provider gets states it can read.
/// - Left out and listed as skipped: requests a scenario answered with a transport fault
///   (a Pact cannot express a reset), the admin API, requests nothing answered, and
///   requests whose body the journal did not keep whole.
public struct PactExport: Sendable {
    /// The Pact specification version written.
    public enum Specification: String, Sendable, CaseIterable {
        /// Pact specification V3.
        case v3 = "3.0.0"
        /// Pact specification V4 (`Synchronous/HTTP` interactions).
        case v4 = "4.0"
    }

    /// The consumer's name in the Pact file (the app under test).
    public var consumer: String
    /// The provider's name in the Pact file (the API it calls).
    public var provider: String
    /// The Pact specification version written; V4 by default.
    public var specification: Specification

    /// Makes an export from `consumer` to `provider` in `specification`.
    public init(consumer: String, provider: String, specification: Specification = .v4) {
        self.consumer = consumer
        self.provider = provider
        self.specification = specification
    }

    /// Request headers a provider needs to answer the same; the rest (Host, User-Agent,
    /// Accept-Encoding, Content-Length, the mock's X-Mock-*) vary by client.
    /// The mock's own `X-Mock-Scenario` and `X-Mock-Session` stay: a real provider ignores
    /// them, and the mock, as the provider of a verification, answers as it did.
    static let keptRequestHeaders: Set<String> = ["content-type", "accept", "identifier", "authorization", "if-none-match", "if-modified-since",
                                                  "x-mock-scenario", "x-mock-session"]

    /// Admin calls that change what later requests get (a scenario switched or reset, the
    /// state reset or restored); they are replayed with the requests of a provider state.
    static func isAdmin(_ path: String) -> Bool { path == "/__admin" || path.hasPrefix("/__admin/") }

    static func changesState(_ event: ServeEvent) -> Bool {
        let path = event.request.path
        return Self.isAdmin(path) && !["GET", "HEAD"].contains(event.request.method) && event.status < 300
            && (path.hasPrefix("/__admin/scenario") || path.hasPrefix("/__admin/state"))
    }

    /// The Pact and what was left out of it, one line per request.
    public func pact(from events: [ServeEvent]) -> (document: JSONValue, skipped: [String]) {
        var interactions: [JSONValue] = []
        var skipped: [String] = []
        var seen = Set<String>()
        var descriptions: [String: Int] = [:]
        /// Earlier requests that moved the server's state (writes, scenario answers), to replay.
        var history: [Replay] = []
        var lastScenario: String?
        // When some request moved the state, every interaction names the state it needs
        // (the first ones "the provider's initial data"), so a verifier resets before each.
        let stateful = events.contains { event in
            Self.changesState(event) || (event.fault == nil && !Self.isAdmin(event.request.path)
                && (event.scenarioStep != nil || !["GET", "HEAD", "OPTIONS"].contains(event.request.method)))
        }
        for event in events {
            let line = "#\(event.id) \(event.request.method) \(event.request.asRequest.uri)"
            if Self.isAdmin(event.request.path) {
                if Self.changesState(event), let body = event.request.body.data {
                    history.append(Replay(event, body: body))
                    if event.request.path == "/__admin/scenario", let name = JSONValue(parsing: body)?["name"]?.stringValue {
                        lastScenario = name
                    }
                }
                continue
            }
            if let fault = event.fault {
                skipped.append("\(line): the \(fault.rawValue) fault (a Pact cannot express a transport fault)")
                continue
            }
            guard event.answeredBy != nil else {
                skipped.append("\(line): no route or rule answered it (\(event.status))")
                continue
            }
            guard let requestBody = event.request.body.data else {
                skipped.append("\(line): its body (\(event.request.body.size) bytes) is over the journal's limit, so it cannot be replayed")
                continue
            }
            if specification == .v3, !requestBody.isEmpty, body(requestBody, contentType: event.request.headers["Content-Type"]) == nil {
                skipped.append("\(line): its body (\(event.request.headers["Content-Type"] ?? "binary")) cannot be written in Pact V3; V4 carries it")
                history.append(Replay(event, body: requestBody))
                continue
            }
            let replay = Replay(event, body: requestBody)
            let step = event.scenarioStep.flatMap { $0.split(separator: "/").first.map(String.init) }
            if let step { lastScenario = step }
            let scenario = step ?? lastScenario
            // Optional.none spelled out: a `nil` literal here would become JSONValue.null.
            let state: JSONValue? = stateful ? .some(providerState(history: history, scenario: scenario)) : .none
            let interaction = self.interaction(event, requestBody: requestBody, state: state)
            let identity = StableHash.hex(StableHash.fnv1a64(bytes: Data(interaction.identity.utf8)))
            if seen.insert(identity).inserted {
                var description = "\(event.request.method) \(event.request.asRequest.uri) → \(event.status)"
                if let step { description += " (scenario \(step))" }
                let count = descriptions[description, default: 0] + 1
                descriptions[description] = count
                if count > 1 { description += " #\(count)" }
                interactions.append(interaction.json(description: description, key: identity))
            }
            if replay.movesState || step != nil { history.append(replay) }
        }
        var metadata: [String: JSONValue] = [
            "pactSpecification": ["version": .string(specification.rawValue)],
            "mockServer": ["skipped": .array(skipped.map(JSONValue.string))],
        ]
        if specification == .v3 { metadata["pact-specification"] = ["version": .string(specification.rawValue)] }
        let document: JSONValue = [
            "consumer": ["name": .string(consumer)],
            "provider": ["name": .string(provider)],
            "interactions": .array(interactions),
            "metadata": .object(metadata),
        ]
        return (document, skipped)
    }

    // MARK: Provider states

    /// A request to replay before an interaction, as the state's parameters carry it.
    struct Replay {
        let method: String
        let uri: String
        let headers: [(String, String)]
        let body: Data
        let session: String?

        init(_ event: ServeEvent, body: Data) {
            method = event.request.method
            uri = event.request.asRequest.uri
            headers = event.request.headers.filter { PactExport.keptRequestHeaders.contains($0.name.lowercased()) }.map { ($0.name, $0.value) }
            self.body = body
            session = event.session
        }

        /// Whether the request changes what later requests see (a write).
        var movesState: Bool { !["GET", "HEAD", "OPTIONS"].contains(method) }

        var json: JSONValue {
            var object: [String: JSONValue] = ["method": .string(method), "uri": .string(uri),
                                               "headers": .object(Dictionary(headers, uniquingKeysWith: { first, _ in first }).mapValues(JSONValue.string))]
            if !body.isEmpty { object["body"] = .string(body.base64EncodedString()) }
            return .object(object)
        }

        var summary: String { "\(method) \(uri)" }
    }

    func providerState(history: [Replay], scenario: String?) -> JSONValue {
        var parts: [String] = []
        if let scenario { parts.append("the mock plays scenario \(scenario)") }
        if history.isEmpty && scenario == nil { parts.append("the provider's initial data") }
        if !history.isEmpty {
            let shown = history.suffix(3).map(\.summary).joined(separator: ", ")
            parts.append("after \(history.count) earlier request\(history.count == 1 ? "" : "s")" + (history.count > 3 ? " (… \(shown))" : " (\(shown))"))
        }
        return ["name": .string(parts.joined(separator: ", ")), "params": ["replay": .array(history.map(\.json))]]
    }

    // MARK: Interactions

    struct Interaction {
        let request: JSONValue
        let response: JSONValue
        let state: JSONValue?
        let specification: Specification

        /// What makes two interactions the same: request, answer and state.
        var identity: String { "\(request)|\(response)|\(state.map { "\($0)" } ?? "")" }

        func json(description: String, key: String) -> JSONValue {
            var object: [String: JSONValue] = ["description": .string(description), "request": request, "response": response]
            switch specification {
            case .v4:
                object["type"] = "Synchronous/HTTP"
                object["key"] = .string(key)
                object["pending"] = false
                if let state { object["providerStates"] = [state] }
            case .v3:
                if let state { object["providerStates"] = [state] }
            }
            return .object(object)
        }
    }

    func interaction(_ event: ServeEvent, requestBody: Data, state: JSONValue?) -> Interaction {
        var request: [String: JSONValue] = ["method": .string(event.request.method), "path": .string(event.request.path)]
        if !event.request.query.isEmpty {
            var query: [String: [JSONValue]] = [:]
            for item in event.request.query { query[item.name, default: []].append(.string(item.value)) }
            request["query"] = .object(query.mapValues(JSONValue.array))
        }
        let headers = event.request.headers.filter { Self.keptRequestHeaders.contains($0.name.lowercased()) }
        if !headers.isEmpty { request["headers"] = headerObject(headers.map { ($0.name, $0.value) }) }
        if !requestBody.isEmpty { request["body"] = body(requestBody, contentType: event.request.headers["Content-Type"]) }

        var response: [String: JSONValue] = ["status": .number(Double(event.status))]
        let contentType = event.responseHeaders["Content-Type"]
        if let contentType { response["headers"] = headerObject([("Content-Type", contentType)]) }
        if let data = event.responseBody, !data.isEmpty {
            response["body"] = body(data, contentType: contentType)
            let rules = matchingRules(for: data, contentType: contentType, baseURL: Self.baseURL(of: event))
            if !rules.isEmpty { response["matchingRules"] = ["body": .object(rules)] }
        }
        return Interaction(request: .object(request), response: .object(response), state: state, specification: specification)
    }

    /// Headers as the specification writes them: V4 a list of values each, V3 a string.
    func headerObject(_ headers: [(String, String)]) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for (name, value) in headers {
            switch specification {
            case .v4: object[name] = .array((object[name]?.arrayValue ?? []) + [.string(value)])
            case .v3: object[name] = .string(object[name]?.stringValue.map { $0 + ", " + value } ?? value)
            }
        }
        return .object(object)
    }

    /// A body: JSON as JSON, text as text, anything else (images, multipart) as base64 in
    /// V4. V3 has no binary bodies: there they are left out (the status and headers stay).
    func body(_ data: Data, contentType: String?) -> JSONValue? {
        let mediaType = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let json = (mediaType == "application/json" || mediaType.hasSuffix("+json")) ? JSONValue(parsing: data) : nil
        let text = mediaType.hasPrefix("text/") ? String(data: data, encoding: .utf8) : nil
        switch specification {
        case .v4:
            if let json { return ["content": json, "contentType": .string(contentType ?? "application/json"), "encoded": false] }
            if let text { return ["content": .string(text), "contentType": .string(contentType ?? "text/plain"), "encoded": false] }
            return ["content": .string(data.base64EncodedString()), "contentType": .string(contentType ?? "application/octet-stream"), "encoded": "base64"]
        case .v3:
            if let json { return json }
            if let text { return .string(text) }
            return nil
        }
    }

    // MARK: Matching rules

    /// `scheme://host:port` the client used, as the mock put it into absolute URLs.
    static func baseURL(of event: ServeEvent) -> String? {
        guard let host = event.request.headers["Host"] else { return nil }
        return "://" + host
    }

    func matchingRules(for data: Data, contentType: String?, baseURL: String?) -> [String: JSONValue] {
        guard contentType?.lowercased().contains("json") == true, let json = JSONValue(parsing: data) else { return [:] }
        var rules: [String: JSONValue] = [:]
        collect(json, path: "$", key: nil, baseURL: baseURL, into: &rules)
        return rules
    }

    private func rule(_ matcher: JSONValue) -> JSONValue {
        switch specification {
        case .v4: return ["combine": "AND", "matchers": [matcher]]
        case .v3: return ["matchers": [matcher]]
        }
    }

    private func collect(_ value: JSONValue, path: String, key: String?, baseURL: String?, into rules: inout [String: JSONValue]) {
        switch value {
        case .object(let members):
            for (name, member) in members {
                collect(member, path: path + "." + Self.pathKey(name), key: name, baseURL: baseURL, into: &rules)
            }
        case .array(let items):
            for (index, item) in items.enumerated() { collect(item, path: path + "[\(index)]", key: key, baseURL: baseURL, into: &rules) }
        case .number:
            if let key, key == "id" || key.hasSuffix("_id") || key.hasSuffix("Id") { rules[path] = rule(["match": "type"]) }
        case .string(let text):
            if let key, ["secret", "identifier", "token", "password"].contains(key.lowercased()) || UUID(uuidString: text) != nil {
                rules[path] = rule(["match": "type"])
            } else if let pattern = Self.datePattern(text) {
                rules[path] = rule(["match": "regex", "regex": .string(pattern)])
            } else if let baseURL, let range = text.range(of: baseURL), text[..<range.lowerBound].allSatisfy(\.isLetter) {
                let rest = String(text[range.upperBound...])
                rules[path] = rule(["match": "regex", "regex": .string("^https?://[^/]+" + Self.escaped(rest) + "$")])
            }
        case .bool, .null:
            break
        }
    }

    /// `text` as a regex matching itself: its metacharacters escaped (the same on every
    /// platform, unlike Foundation's escaping, which also escapes `/` on Linux).
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if "\\^$.|?*+()[]{}".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// A JSON path segment: `.name`, or `['name']` when the name is not a plain word.
    static func pathKey(_ name: String) -> String {
        name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !name.isEmpty ? name : "['\(name.replacingOccurrences(of: "'", with: "\\'"))']"
    }

    /// The regex of a date-time the APIs write (`2022-01-04T00:00:00.00`, with a space, with
    /// or without fractions and a zone), or nil when `text` is none.
    static func datePattern(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes.count <= 35 else { return nil }
        func digits(_ range: Range<Int>) -> Bool { range.allSatisfy { bytes[$0] >= 0x30 && bytes[$0] <= 0x39 } }
        guard digits(0..<4), bytes[4] == 0x2D, digits(5..<7), bytes[7] == 0x2D, digits(8..<10),
              bytes[10] == 0x54 || bytes[10] == 0x20, digits(11..<13), bytes[13] == 0x3A, digits(14..<16), bytes[16] == 0x3A, digits(17..<19)
        else { return nil }
        return #"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$"#
    }
}

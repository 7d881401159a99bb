import Foundation

/// The matchers requests' bodies and WebSocket messages share: string matchers, body
/// patterns (JSON contains or equal, a key, a JSONPath's or JSON Pointer's value), and a
/// message's pattern built of them.
extension ScenarioParser {
    static let textMatcherKeys = ["equalTo", "equalToIgnoringCase", "contains", "prefix", "matches"]
    static let bodyPatternKeys = ["json", "jsonEqualTo", "jsonHasKey", "matchesJsonPath", "matchesJsonPointer"]

    /// Which client messages a reply answers: `type`, one text matcher and one JSON pattern.
    func messagePattern(_ json: JSONValue, _ path: String) -> MessagePattern? {
        guard let members = reader.object(json, path, keys: Set(["type"] + Self.textMatcherKeys + Self.bodyPatternKeys)) else { return nil }
        let before = reader.problems.count
        var pattern = MessagePattern()
        pattern.kind = members["type"] == nil ? nil
            : reader.choice(members["type"], "\(path).type", Dictionary(uniqueKeysWithValues: MessagePattern.Kind.allCases.map { ($0.rawValue, $0) }))
        let texts = Self.textMatcherKeys.filter { members[$0] != nil }
        if texts.count > 1 { reader.problem(path, "give at most one of \(Self.textMatcherKeys.joined(separator: ", "))") }
        if let key = texts.first, let value = members[key] { pattern.text = stringMatcher(key, value, "\(path).\(key)") }
        let bodies = Self.bodyPatternKeys.filter { members[$0] != nil }
        if bodies.count > 1 { reader.problem(path, "give at most one of \(Self.bodyPatternKeys.joined(separator: ", "))") }
        if let key = bodies.first, let value = members[key] { pattern.body = bodyPattern(key, value, "\(path).\(key)") }
        return reader.problems.count == before ? pattern : nil
    }

    /// One string matcher (`equalTo`, …, `matches`) with its argument.
    func stringMatcher(_ kind: String, _ argument: JSONValue, _ path: String) -> StringMatcher? {
        guard let text = reader.string(argument, path) else { return nil }
        switch kind {
        case "equalTo": return .equalTo(text)
        case "equalToIgnoringCase": return .equalToIgnoringCase(text)
        case "contains": return .contains(text)
        case "prefix": return .hasPrefix(text)
        default:
            // Compiled when it first meets a value; checked here without ICU where the
            // pattern is plainly valid (`RegexSyntax`).
            if !RegexSyntax.isPlainlyValid(text), (try? NSRegularExpression(pattern: text)) == nil {
                reader.problem(path, "not a valid regular expression")
                return nil
            }
            return .matches(text)
        }
    }

    /// One body pattern, as requests' `body` and messages' `match` write it.
    func bodyPattern(_ key: String, _ value: JSONValue, _ path: String) -> BodyPattern? {
        switch key {
        case "json": return .json(value)
        case "jsonEqualTo": return .jsonEqualTo(value)
        case "jsonHasKey": return reader.string(value, path).map(BodyPattern.jsonHasKey)
        case "contains": return reader.string(value, path).map(BodyPattern.contains)
        default:
            // `"$.a"`, or `{"expression": "$.a", "equalTo": "x"}` (WireMock's shape).
            let pointer = key == "matchesJsonPointer"
            var expression: String?
            var matcher: StringMatcher?
            if case .object = value, let members = reader.object(value, path, keys: Set(["expression"] + Self.textMatcherKeys)) {
                expression = reader.string(members["expression"], "\(path).expression", required: true)
                let kinds = Self.textMatcherKeys.filter { members[$0] != nil }
                if kinds.count > 1 { reader.problem(path, "give at most one of \(Self.textMatcherKeys.joined(separator: ", "))") }
                if let kind = kinds.first, let argument = members[kind] { matcher = stringMatcher(kind, argument, "\(path).\(kind)") }
            } else {
                expression = reader.string(value, path)
            }
            guard let expression else { return nil }
            let location = pointer ? JSONLocation(pointer: expression) : JSONLocation(path: expression)
            guard let location else {
                reader.problem(path, pointer ? "not a JSON Pointer (\"\" or \"/a/0\"), found \"\(expression)\""
                                                              : "not a JSONPath of keys and indices (\"$.a.b[0]\"), found \"\(expression)\"")
                return nil
            }
            return .jsonValue(at: location, matcher)
        }
    }
}

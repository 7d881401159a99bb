import Foundation

/// A stub's body or header written with `{{…}}` holes that are filled from each request,
/// in WireMock's response-templating words:
///
/// | hole | filled with |
/// |---|---|
/// | `{{baseURL}}` | the scheme, host and port the client used |
/// | `{{request.method}}`, `{{request.url}}`, `{{request.path}}` | the method; the path and query; the path |
/// | `{{request.path.NAME}}` | the path parameter `{NAME}` of the rule's path template |
/// | `{{request.path.[N]}}` | the path's Nth segment, from 0 |
/// | `{{request.query.NAME}}` | the first query item named NAME |
/// | `{{request.headers.NAME}}` | the first header named NAME (any case) |
/// | `{{request.body}}` | the request body as text |
/// | `{{jsonPath request.body '$.a.b[0]'}}` | that value of the JSON request body (JSON for objects and arrays) |
/// | `{{randomValue type='UUID'}}`, `{{randomValue length=8 type='NUMERIC'}}` | from the engine's seeded generator (`ALPHANUMERIC`, `ALPHABETIC`, `NUMERIC`, `HEXADECIMAL`) |
/// | `{{randomInt lower=1 upper=100}}` | likewise, both bounds included |
/// | `{{now}}`, `{{now format='yyyy-MM-dd' offset='1 days'}}` | the request's time on the engine's clock (ISO 8601 in UTC; `format='epoch'` milliseconds, `'unix'` seconds) |
/// | `{{message}}`, `{{jsonPath message '$.a'}}` | in a WebSocket's reply, the client message it answers: as text; that value of it as JSON |
///
/// `\{{` writes `{{` itself (a body that holds that text, such as a template language's).
/// A missing value is empty. In a JSON body every value is escaped as the inside of a JSON
/// string, so a request cannot break the body's syntax; in a header, control characters
/// are dropped. An unknown hole is refused when the scenario is read, with its path.
public struct ResponseTemplate: Sendable, Hashable {
    enum Part: Sendable, Hashable {
        case text(String)
        case hole(Hole)
    }

    enum Hole: Sendable, Hashable {
        case baseURL
        case method, url, path, body
        case pathParameter(String)
        case pathSegment(Int)
        case query(String)
        case header(String)
        case jsonPath([JSONPathStep])
        /// The WebSocket message a reply answers, and a value of it as JSON.
        case message
        case messageJSONPath([JSONPathStep])
        case randomUUID
        case randomString(length: Int, alphabet: String)
        case randomInt(lower: Int, upper: Int)
        case now(format: String?, offset: TimeInterval)
    }

    enum JSONPathStep: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    let parts: [Part]
    /// The text as written.
    public let source: String

    /// Reads `text`; a hole that is not one of the table's is thrown with what it says.
    public init(_ text: String) throws(TemplateError) {
        source = text
        var parts: [Part] = []
        var rest = text[...]
        var literal = ""
        while let open = rest.range(of: "{{") {
            // `\{{` is the text `{{` (Handlebars' escape, as WireMock reads it).
            if open.lowerBound > rest.startIndex, rest[rest.index(before: open.lowerBound)] == "\\" {
                literal += rest[..<rest.index(before: open.lowerBound)] + "{{"
                rest = rest[open.upperBound...]
                continue
            }
            literal += rest[..<open.lowerBound]
            if !literal.isEmpty { parts.append(.text(literal)) }
            literal = ""
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw TemplateError(hole: String(rest[open.lowerBound...]), reason: "a {{ with no }}")
            }
            let inside = String(rest[open.upperBound..<close.lowerBound])
            parts.append(.hole(try Self.hole(inside.trimmingCharacters(in: .whitespaces))))
            rest = rest[close.upperBound...]
        }
        literal += rest
        if !literal.isEmpty { parts.append(.text(literal)) }
        self.parts = parts
    }

    /// Whether any hole is written at all.
    public var hasHoles: Bool { parts.contains { if case .hole = $0 { return true } else { return false } } }

    /// Whether a hole reads the WebSocket message a reply answers (`{{message}}`,
    /// `{{jsonPath message '…'}}`), which only a reply has.
    public var readsMessage: Bool {
        parts.contains { part in
            switch part {
            case .hole(.message), .hole(.messageJSONPath): return true
            default: return false
            }
        }
    }

    /// What the holes are filled from.
    public struct Context: Sendable {
        let request: MockRequest
        /// The rule's path parameters, by name.
        let pathParameters: [String: String]
        /// Draws for the random holes.
        public internal(set) var generator: SeededRandom
        /// The WebSocket message a reply answers (nil elsewhere: its holes are empty).
        var message: WebSocketConversation.Message?

        /// Makes the context for `request`: `pathParameters` are the rule's path parameters by name,
        /// `generator` draws the random holes, and `message` is the WebSocket message a reply answers.
        public init(request: MockRequest, pathParameters: [String: String] = [:], generator: SeededRandom, message: Data? = nil) {
            self.init(request: request, pathParameters: pathParameters, generator: generator,
                      message: message.map { WebSocketConversation.Message(kind: .binary, bytes: $0) })
        }

        /// The context of a WebSocket reply to `message`, kept as it came (a text message
        /// is not turned into bytes unless a hole reads it as JSON).
        init(request: MockRequest, pathParameters: [String: String], generator: SeededRandom, message: WebSocketConversation.Message?) {
            self.request = request
            self.pathParameters = pathParameters
            self.generator = generator
            self.message = message
        }
    }

    /// How filled-in values are escaped.
    public enum Escaping: Sendable {
        /// As the inside of a JSON string.
        case json
        /// Control characters dropped (a header value).
        case header
        /// As they are.
        case none
    }

    /// The text with every hole filled; `context.generator` moves on for each random hole.
    public func render(_ context: inout Context, escaping: Escaping) -> String {
        // One hole and nothing else (an echo's `{{message}}`): its value, escaped, with no
        // string built around it.
        if parts.count == 1, case .hole(let hole) = parts[0] { return Self.escape(value(hole, &context), escaping) }
        var out = ""
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .hole(let hole): out += Self.escape(value(hole, &context), escaping)
            }
        }
        return out
    }

    private func value(_ hole: Hole, _ context: inout Context) -> String {
        switch hole {
        case .baseURL: return context.request.baseURL
        case .method: return context.request.method
        case .url: return context.request.uri
        case .path: return context.request.path
        case .body: return String(decoding: context.request.body, as: UTF8.self)
        case .pathParameter(let name): return context.pathParameters[name] ?? ""
        case .pathSegment(let index):
            let segments = context.request.path.split(separator: "/", omittingEmptySubsequences: true)
            return segments.indices.contains(index) ? String(segments[index]).removingPercentEncoding ?? String(segments[index]) : ""
        case .query(let name): return context.request.queryValue(name) ?? ""
        case .header(let name): return context.request.headers[name] ?? ""
        case .jsonPath(let steps):
            return Self.text(at: steps, in: context.request.body)
        case .message:
            return context.message?.text ?? ""
        case .messageJSONPath(let steps):
            return context.message.map { Self.text(at: steps, in: $0.bytes) } ?? ""
        case .randomUUID:
            var bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: context.generator.next()) }
            bytes[6] = (bytes[6] & 0x0F) | 0x40
            bytes[8] = (bytes[8] & 0x3F) | 0x80
            let hex = bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
            let characters = Array(hex)
            return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
        case .randomString(let length, let alphabet):
            let letters = Array(alphabet)
            return String((0..<length).map { _ in letters[Int(context.generator.next() % UInt64(letters.count))] })
        case .randomInt(let lower, let upper):
            // Not `Int.random(in:using:)`: its draw is the standard library's to change.
            let span = UInt64(bitPattern: Int64(upper) &- Int64(lower)) &+ 1
            let draw = span == 0 ? context.generator.next() : context.generator.next() % span
            return String(Int64(lower) &+ Int64(bitPattern: draw))
        case .now(let format, let offset):
            let date = context.request.receivedAt.addingTimeInterval(offset)
            switch format {
            case nil: return Self.iso8601(date)
            case "epoch": return String(Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
            case "unix": return String(Int64(date.timeIntervalSince1970.rounded(.down)))
            case let pattern?:
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "UTC")
                formatter.calendar = Calendar(identifier: .gregorian)
                formatter.dateFormat = pattern
                return formatter.string(from: date)
            }
        }
    }

    /// The value at `steps` of `body` read as JSON: a string as it is, anything else as
    /// JSON; empty when there is none (or it is `null`).
    static func text(at steps: [JSONPathStep], in body: Data) -> String {
        var value = JSONValue(parsing: body)
        for step in steps {
            switch step {
            case .key(let key): value = value?[key]
            case .index(let index):
                let array = value?.arrayValue ?? []
                value = array.indices.contains(index) ? array[index] : nil
            }
        }
        switch value {
        case .none, .null?: return ""
        case .string(let text)?: return text
        case let other?: return String(decoding: JSONCoding.encode(other), as: UTF8.self)
        }
    }

    private static func iso8601(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z'"
        return formatter.string(from: date)
    }

    static func escape(_ value: String, _ escaping: Escaping) -> String {
        switch escaping {
        case .none:
            return value
        case .header:
            return String(value.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        case .json:
            var out = ""
            JSONCoding.appendEscaped(value, to: &out)
            return out
        }
    }

    // MARK: Reading holes

    /// The holes the table names, for messages.
    static let known = "baseURL, request.method, request.url, request.path, request.path.NAME, request.path.[N], request.query.NAME, "
        + "request.headers.NAME, request.body, jsonPath request.body '$.a.b', message, jsonPath message '$.a.b', randomValue type='UUID', "
        + "randomValue length=N type='ALPHANUMERIC|ALPHABETIC|NUMERIC|HEXADECIMAL', randomInt lower=A upper=B, now format='…' offset='N days'"

    private static func hole(_ text: String) throws(TemplateError) -> Hole {
        func unknown(_ reason: String = "unknown template variable") -> TemplateError {
            TemplateError(hole: "{{\(text)}}", reason: "\(reason); known: \(known)")
        }
        switch text {
        case "baseURL": return .baseURL
        case "request.method": return .method
        case "request.url": return .url
        case "request.path": return .path
        case "request.body": return .body
        case "message": return .message
        default: break
        }
        for (prefix, make) in [("request.path.", Hole.pathParameter), ("request.query.", Hole.query), ("request.headers.", Hole.header)] {
            guard text.hasPrefix(prefix) else { continue }
            let name = String(text.dropFirst(prefix.count))
            guard !name.isEmpty, !name.contains(" ") else { throw unknown() }
            if prefix == "request.path." {
                let bare = name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
                if let index = Int(bare), index >= 0 { return .pathSegment(index) }
                guard !name.hasPrefix("[") else { throw unknown("a path segment is a number from 0: request.path.[0]") }
            }
            return make(name)
        }
        let words = Self.words(text)
        guard let head = words.first else { throw unknown() }
        let options = Self.options(words.dropFirst())
        switch head {
        case "jsonPath":
            guard words.count == 3, words[1] == "request.body" || words[1] == "message", let path = words[2].quoted,
                  let steps = jsonPathSteps(path) else {
                throw unknown("jsonPath takes request.body (or a WebSocket reply's message) and a path in quotes: {{jsonPath request.body '$.a.b[0]'}}")
            }
            return words[1] == "message" ? .messageJSONPath(steps) : .jsonPath(steps)
        case "randomValue":
            guard options.count == words.count - 1 else { throw unknown("randomValue takes length=N and type='…'") }
            let type = (options["type"] ?? "ALPHANUMERIC").uppercased()
            if type == "UUID" { return .randomUUID }
            let alphabets = ["ALPHANUMERIC": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                             "ALPHABETIC": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                             "NUMERIC": "0123456789", "HEXADECIMAL": "0123456789abcdef"]
            guard let alphabet = alphabets[type] else { throw unknown("randomValue type '\(type)' is not one of UUID, \(alphabets.keys.sorted().joined(separator: ", "))") }
            guard let length = Int(options["length"] ?? "36"), (1...4096).contains(length) else {
                throw unknown("randomValue length is a number from 1 to 4096")
            }
            return .randomString(length: length, alphabet: alphabet)
        case "randomInt":
            guard options.count == words.count - 1 else { throw unknown("randomInt takes lower=A upper=B") }
            let lower = Int(options["lower"] ?? "0"), upper = Int(options["upper"] ?? String(Int32.max))
            guard let lower, let upper, lower <= upper else { throw unknown("randomInt needs whole numbers lower <= upper") }
            return .randomInt(lower: lower, upper: upper)
        case "now":
            guard options.count == words.count - 1 else { throw unknown("now takes format='…' and offset='N unit'") }
            var offset: TimeInterval = 0
            if let text = options["offset"] {
                let parts = text.split(separator: " ")
                let units: [String: TimeInterval] = ["seconds": 1, "minutes": 60, "hours": 3600, "days": 86_400, "weeks": 604_800]
                guard parts.count == 2, let amount = Double(parts[0]),
                      let unit = units[String(parts[1])] ?? units[String(parts[1]) + "s"] else {
                    throw unknown("now's offset is 'N seconds|minutes|hours|days|weeks' (N may be negative)")
                }
                offset = amount * unit
            }
            return .now(format: options["format"], offset: offset)
        default:
            throw unknown()
        }
    }

    /// Words split at spaces outside quotes, quotes kept.
    private static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        for character in text {
            if let open = quote {
                current.append(character)
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
                current.append(character)
            } else if character == " " {
                if !current.isEmpty { words.append(current); current = "" }
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `name=value` words (the value unquoted), by name.
    private static func options(_ words: ArraySlice<String>) -> [String: String] {
        var options: [String: String] = [:]
        for word in words {
            guard let equals = word.firstIndex(of: "=") else { continue }
            let value = String(word[word.index(after: equals)...])
            options[String(word[..<equals])] = value.quoted ?? value
        }
        return options
    }

    /// `$.a.b[0]['c d']` as keys and indices; nil when it is not that.
    static func jsonPathSteps(_ path: String) -> [JSONPathStep]? {
        guard path.hasPrefix("$") else { return nil }
        var steps: [JSONPathStep] = []
        var rest = path.dropFirst()
        while let first = rest.first {
            if first == "." {
                rest = rest.dropFirst()
                let key = rest.prefix { $0 != "." && $0 != "[" }
                guard !key.isEmpty else { return nil }
                steps.append(.key(String(key)))
                rest = rest.dropFirst(key.count)
            } else if first == "[" {
                guard let close = rest.firstIndex(of: "]") else { return nil }
                let inside = String(rest[rest.index(after: rest.startIndex)..<close])
                if let index = Int(inside), index >= 0 {
                    steps.append(.index(index))
                } else if let key = inside.quoted {
                    steps.append(.key(key))
                } else {
                    return nil
                }
                rest = rest[rest.index(after: close)...]
            } else {
                return nil
            }
        }
        return steps
    }
}

/// A template hole that cannot be filled, with what it says and why.
public struct TemplateError: Error, Sendable, CustomStringConvertible {
    /// The hole as written, such as `{{request.query.page}}`.
    public let hole: String
    /// Why it cannot be filled.
    public let reason: String
    /// `HOLE: REASON`.
    public var description: String { "\(hole): \(reason)" }
}

private extension String {
    /// The text inside matching single or double quotes, nil when not quoted.
    var quoted: String? {
        guard count >= 2, let first, first == "'" || first == "\"", last == first else { return nil }
        return String(dropFirst().dropLast())
    }

    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

import Foundation

/// Checks a JSON value against a schema of an OpenAPI 3.1 document: the JSON Schema
/// keywords the shipped documents use (`$ref` into `#/components/schemas`, `type`,
/// `properties`, `required`, `additionalProperties`, `items`, `enum`, `const`, `pattern`,
/// `minimum`/`maximum` and their exclusive forms, `multipleOf`, `minLength`/`maxLength`,
/// `minItems`/`maxItems`, `uniqueItems`, `allOf`/`anyOf`/`oneOf`, `format` uri, uuid,
/// date-time, date and email). Every problem is named with its JSON path, like the
/// fixture errors.
public struct SchemaValidator: Sendable {
    /// The OpenAPI document whose `#/components/schemas` `$ref`s point into.
    public let document: JSONValue

    /// Makes a validator that resolves `$ref`s in `document`.
    public init(document: JSONValue) { self.document = document }

    /// The problems of `value` against `schema`, each `path: what is wrong`; empty when it conforms.
    /// Object members are checked in the order of their keys, so the list is the same in every run.
    public func problems(_ value: JSONValue, against schema: JSONValue, at path: String = "$") -> [String] {
        var walk = Walk(root: path, limit: .max, named: true)
        check(value, schema, &walk)
        return walk.found
    }

    /// The first of `problems(_:against:at:)`, found without looking for the others.
    public func firstProblem(_ value: JSONValue, against schema: JSONValue, at path: String = "$") -> String? {
        var walk = Walk(root: path, limit: 1, named: true)
        check(value, schema, &walk)
        return walk.found.first
    }

    /// Whether `value` conforms to `schema` (`problems` is empty), decided at the first
    /// problem and without naming it.
    public func conforms(_ value: JSONValue, to schema: JSONValue) -> Bool {
        var walk = Walk(root: "$", limit: 1, named: false)
        check(value, schema, &walk)
        return walk.count == 0
    }

    /// Where a check is and what it found. The path is kept as parts and written out only
    /// for a problem; a check that stops at its limit leaves the rest unvisited.
    struct Walk {
        enum Part {
            case key(String)
            case index(Int)
        }

        let root: String
        let limit: Int
        /// Whether problems are written out (`found`) or only counted.
        let named: Bool
        var parts: [Part] = []
        var found: [String] = []
        var count = 0
        /// The `$ref`s followed since the last step into the value. A reference met again
        /// before the next step would check the same value against the same schema for
        /// ever: it is a problem, named once, and not followed.
        var references: [String] = []

        init(root: String, limit: Int, named: Bool) {
            self.root = root
            self.limit = limit
            self.named = named
        }

        var isDone: Bool { count >= limit }

        var path: String {
            var text = root
            for part in parts {
                switch part {
                case .key(let name): text += "." + name
                case .index(let index): text += "[\(index)]"
                }
            }
            return text
        }

        mutating func report(_ problem: @autoclosure () -> String) {
            count += 1
            if named { found.append("\(path): \(problem())") }
        }
    }

    func check(_ value: JSONValue, _ schema: JSONValue, _ walk: inout Walk) {
        guard !walk.isDone, case .object(let keywords) = schema else { return }
        if let reference = keywords["$ref"]?.stringValue {
            guard let target = resolve(reference) else { return walk.report("the schema's $ref \(reference) names nothing") }
            guard !walk.references.contains(reference) else {
                return walk.report("the schema's $ref \(reference) leads back to itself before reaching a value")
            }
            walk.references.append(reference)
            defer { walk.references.removeLast() }
            return check(value, target, &walk)
        }
        if let constant = keywords["const"], value != constant { return walk.report("expected \(constant), found \(value)") }
        if let options = keywords["enum"]?.arrayValue, !options.contains(value) {
            return walk.report("expected one of \(JSONValue.array(options)), found \(value)")
        }
        if let types = keywords["type"].map(Self.typeNames), !types.contains(where: { Self.value(value, is: $0) }) {
            return walk.report("expected \(types.joined(separator: " or ")), found \(value.typeName) \(Self.short(value))")
        }
        for part in keywords["allOf"]?.arrayValue ?? [] where !walk.isDone { check(value, part, &walk) }
        if let branches = keywords["anyOf"]?.arrayValue, !branches.isEmpty, !walk.isDone,
           !branches.contains(where: { branch(value, $0, walk.references) }) {
            walk.report("matches none of the anyOf schemas")
        }
        if let branches = keywords["oneOf"]?.arrayValue, !branches.isEmpty, !walk.isDone {
            let matching = branches.filter { branch(value, $0, walk.references) }.count
            if matching != 1 { walk.report("matches \(matching) of the oneOf schemas, exactly 1 expected") }
        }
        guard !walk.isDone else { return }
        switch value {
        case .string(let text):
            if let pattern = keywords["pattern"]?.stringValue, !Self.matches(text, pattern) {
                walk.report("\"\(text)\" does not match \(pattern)")
            }
            if let format = keywords["format"]?.stringValue {
                if format == "uri", URL(string: text)?.scheme == nil {
                    walk.report("\"\(text)\" is not an absolute URI")
                }
                if format == "uuid", UUID(uuidString: text) == nil {
                    walk.report("\(Self.short(.string(text))) is not a UUID")
                }
                if let shape = Self.formatShapes[format], !Self.matches(text, shape) {
                    walk.report("\(Self.short(.string(text))) is not a \(format)")
                }
            }
            if let least = keywords["minLength"]?.intValue, text.count < least { walk.report("\(text.count) characters, at least \(least) expected") }
            if let most = keywords["maxLength"]?.intValue, text.count > most { walk.report("\(text.count) characters, at most \(most) expected") }
        case .number(let number):
            if let minimum = keywords["minimum"], let bound = minimum.doubleValue, number < bound { walk.report("\(value) is below \(minimum)") }
            if let maximum = keywords["maximum"], let bound = maximum.doubleValue, number > bound { walk.report("\(value) is above \(maximum)") }
            if let format = keywords["format"]?.stringValue, let range = Self.integerRanges[format], !range.contains(number) {
                walk.report("\(value) is out of the \(format) range")
            }
            if let bound = keywords["exclusiveMinimum"]?.doubleValue, number <= bound { walk.report("\(value) is not above \(bound)") }
            if let bound = keywords["exclusiveMaximum"]?.doubleValue, number >= bound { walk.report("\(value) is not below \(bound)") }
            if let step = keywords["multipleOf"]?.doubleValue, step > 0, abs((number / step).rounded() - number / step) > 1e-9 {
                walk.report("\(value) is not a multiple of \(step)")
            }
        case .array(let items):
            if let least = keywords["minItems"]?.intValue, items.count < least { walk.report("\(items.count) items, at least \(least) expected") }
            if let most = keywords["maxItems"]?.intValue, items.count > most { walk.report("\(items.count) items, at most \(most) expected") }
            if keywords["uniqueItems"] == .bool(true), Set(items).count != items.count { walk.report("the items are not unique") }
            if let itemSchema = keywords["items"] {
                let references = walk.references
                walk.references = []
                for (index, item) in items.enumerated() where !walk.isDone {
                    walk.parts.append(.index(index))
                    check(item, itemSchema, &walk)
                    walk.parts.removeLast()
                }
                walk.references = references
            }
        case .object(let members):
            let properties = keywords["properties"]?.objectValue ?? [:]
            for name in keywords["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where members[name] == nil {
                walk.report("the key \"\(name)\" is missing")
            }
            let closed = keywords["additionalProperties"] == .bool(false)
            guard !properties.isEmpty || closed else { break }
            let references = walk.references
            walk.references = []
            // Named problems come in key order; a yes-or-no check needs no order.
            let ordered = walk.named ? members.sorted { $0.key < $1.key } : Array(members)
            for (name, member) in ordered where !walk.isDone {
                if let propertySchema = properties[name] {
                    walk.parts.append(.key(name))
                    check(member, propertySchema, &walk)
                    walk.parts.removeLast()
                } else if closed {
                    walk.report("the key \"\(name)\" is not in the document")
                }
            }
            walk.references = references
        case .null, .bool:
            break
        }
    }

    /// Whether `value` conforms to one branch of an `anyOf` or `oneOf`, with the
    /// references followed so far (a branch leading back to one of them does not conform).
    private func branch(_ value: JSONValue, _ schema: JSONValue, _ references: [String]) -> Bool {
        var branchWalk = Walk(root: "$", limit: 1, named: false)
        branchWalk.references = references
        check(value, schema, &branchWalk)
        return branchWalk.count == 0
    }

    /// Whether `pattern` (ICU syntax, as `NSRegularExpression` reads it) finds a match in
    /// `text`; a pattern that does not compile matches nothing.
    static func matches(_ text: String, _ pattern: String) -> Bool {
        guard let regex = RegexCache.shared.regex(pattern) else { return false }
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// The values integer formats can hold.
    static let integerRanges: [String: ClosedRange<Double>] = [
        "int32": Double(Int32.min)...Double(Int32.max),
        "int64": Double(Int64.min)...Double(Int64.max),
    ]

    /// The shapes of the string formats checked beyond uri and uuid (RFC 3339, a simple address).
    static let formatShapes: [String: String] = [
        "date-time": #"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"#,
        "date": #"^\d{4}-\d{2}-\d{2}$"#,
        "email": #"^[^@\s]+@[^@\s]+$"#,
    ]

    /// `schema` with its `$ref`s followed (itself when it has none, or a broken one).
    public func resolved(_ schema: JSONValue) -> JSONValue {
        var current = schema
        for _ in 0..<16 {
            guard let reference = current["$ref"]?.stringValue, let target = resolve(reference) else { return current }
            current = target
        }
        return current
    }

    /// `#/components/schemas/Name` (or any `#/a/b` path) in the document.
    public func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        return reference.dropFirst(2).split(separator: "/").reduce(Optional(document)) { node, key in
            guard let node else { return nil }
            // JSON pointer escapes (RFC 6901): `~1` is `/`, `~0` is `~`.
            let name = key.utf8.contains(UInt8(ascii: "~")) ? key.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~") : String(key)
            if case .array(let items) = node, let index = Int(name), items.indices.contains(index) { return items[index] }
            return node[name]
        }
    }

    /// The type names a schema's `type` keyword allows: one for a string, each for an array, none otherwise.
    public static func typeNames(_ type: JSONValue) -> [String] {
        if let name = type.stringValue { return [name] }
        return type.arrayValue?.compactMap(\.stringValue) ?? []
    }

    static func value(_ value: JSONValue, is type: String) -> Bool {
        switch (type, value) {
        case ("string", .string), ("boolean", .bool), ("array", .array), ("object", .object), ("null", .null), ("number", .number): return true
        case ("integer", .number(let number)): return number.rounded() == number
        default: return false
        }
    }

    static func short(_ value: JSONValue) -> String {
        let text = "\(value)"
        return text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}

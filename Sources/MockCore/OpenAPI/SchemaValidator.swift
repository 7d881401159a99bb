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
    public func problems(_ value: JSONValue, against schema: JSONValue, at path: String = "$") -> [String] {
        guard case .object(let keywords) = schema else { return [] }
        if let reference = keywords["$ref"]?.stringValue {
            guard let target = resolve(reference) else { return ["\(path): the schema's $ref \(reference) names nothing"] }
            return problems(value, against: target, at: path)
        }
        if let constant = keywords["const"], value != constant { return ["\(path): expected \(constant), found \(value)"] }
        if let options = keywords["enum"]?.arrayValue, !options.contains(value) {
            return ["\(path): expected one of \(JSONValue.array(options)), found \(value)"]
        }
        if let types = keywords["type"].map(Self.typeNames), !types.contains(where: { Self.value(value, is: $0) }) {
            return ["\(path): expected \(types.joined(separator: " or ")), found \(value.typeName) \(Self.short(value))"]
        }
        var found: [String] = []
        for part in keywords["allOf"]?.arrayValue ?? [] { found += problems(value, against: part, at: path) }
        if let branches = keywords["anyOf"]?.arrayValue, !branches.isEmpty,
           !branches.contains(where: { problems(value, against: $0, at: path).isEmpty }) {
            found.append("\(path): matches none of the anyOf schemas")
        }
        if let branches = keywords["oneOf"]?.arrayValue, !branches.isEmpty {
            let matching = branches.filter { problems(value, against: $0, at: path).isEmpty }.count
            if matching != 1 { found.append("\(path): matches \(matching) of the oneOf schemas, exactly 1 expected") }
        }
        switch value {
        case .string(let text):
            if let pattern = keywords["pattern"]?.stringValue, text.range(of: pattern, options: .regularExpression) == nil {
                found.append("\(path): \"\(text)\" does not match \(pattern)")
            }
            if keywords["format"]?.stringValue == "uri", URL(string: text)?.scheme == nil {
                found.append("\(path): \"\(text)\" is not an absolute URI")
            }
            if keywords["format"]?.stringValue == "uuid", UUID(uuidString: text) == nil {
                found.append("\(path): \(Self.short(.string(text))) is not a UUID")
            }
            if let format = keywords["format"]?.stringValue, let shape = Self.formatShapes[format],
               text.range(of: shape, options: .regularExpression) == nil {
                found.append("\(path): \(Self.short(.string(text))) is not a \(format)")
            }
            if let least = keywords["minLength"]?.intValue, text.count < least { found.append("\(path): \(text.count) characters, at least \(least) expected") }
            if let most = keywords["maxLength"]?.intValue, text.count > most { found.append("\(path): \(text.count) characters, at most \(most) expected") }
        case .number(let number):
            if let minimum = keywords["minimum"], let bound = minimum.doubleValue, number < bound { found.append("\(path): \(value) is below \(minimum)") }
            if let maximum = keywords["maximum"], let bound = maximum.doubleValue, number > bound { found.append("\(path): \(value) is above \(maximum)") }
            if let format = keywords["format"]?.stringValue, let range = Self.integerRanges[format], !range.contains(number) {
                found.append("\(path): \(value) is out of the \(format) range")
            }
            if let bound = keywords["exclusiveMinimum"]?.doubleValue, number <= bound { found.append("\(path): \(value) is not above \(bound)") }
            if let bound = keywords["exclusiveMaximum"]?.doubleValue, number >= bound { found.append("\(path): \(value) is not below \(bound)") }
            if let step = keywords["multipleOf"]?.doubleValue, step > 0, abs((number / step).rounded() - number / step) > 1e-9 {
                found.append("\(path): \(value) is not a multiple of \(step)")
            }
        case .array(let items):
            if let least = keywords["minItems"]?.intValue, items.count < least { found.append("\(path): \(items.count) items, at least \(least) expected") }
            if let most = keywords["maxItems"]?.intValue, items.count > most { found.append("\(path): \(items.count) items, at most \(most) expected") }
            if keywords["uniqueItems"] == .bool(true), Set(items).count != items.count { found.append("\(path): the items are not unique") }
            if let itemSchema = keywords["items"] {
                for (index, item) in items.enumerated() { found += problems(item, against: itemSchema, at: "\(path)[\(index)]") }
            }
        case .object(let members):
            let properties = keywords["properties"]?.objectValue ?? [:]
            for name in keywords["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where members[name] == nil {
                found.append("\(path): the key \"\(name)\" is missing")
            }
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                if let propertySchema = properties[name] {
                    found += problems(member, against: propertySchema, at: "\(path).\(name)")
                } else if keywords["additionalProperties"] == .bool(false) {
                    found.append("\(path): the key \"\(name)\" is not in the document")
                }
            }
        case .null, .bool:
            break
        }
        return found
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
            let name = key.contains("~") ? key.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~") : String(key)
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

import Foundation

/// Checks a JSON value against a schema of an OpenAPI 3.1 document: the JSON Schema
/// keywords the shipped documents use (`$ref` into `#/components/schemas`, `type`,
/// `properties`, `required`, `additionalProperties`, `items`, `enum`, `const`, `pattern`,
/// `minimum`/`maximum`, `minItems`/`maxItems`, `format: uri` and `uuid`). Every problem is named with
/// its JSON path, like the fixture errors.
public struct SchemaValidator: Sendable {
    public let document: JSONValue

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
        case .number(let number):
            if let minimum = keywords["minimum"], let bound = minimum.doubleValue, number < bound { found.append("\(path): \(value) is below \(minimum)") }
            if let maximum = keywords["maximum"], let bound = maximum.doubleValue, number > bound { found.append("\(path): \(value) is above \(maximum)") }
        case .array(let items):
            if let least = keywords["minItems"]?.intValue, items.count < least { found.append("\(path): \(items.count) items, at least \(least) expected") }
            if let most = keywords["maxItems"]?.intValue, items.count > most { found.append("\(path): \(items.count) items, at most \(most) expected") }
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

    /// `schema` with its `$ref`s followed (itself when it has none, or a broken one).
    func resolved(_ schema: JSONValue) -> JSONValue {
        var current = schema
        for _ in 0..<16 {
            guard let reference = current["$ref"]?.stringValue, let target = resolve(reference) else { return current }
            current = target
        }
        return current
    }

    /// `#/components/schemas/Name` (or any `#/a/b` path) in the document.
    func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        return reference.dropFirst(2).split(separator: "/").reduce(Optional(document)) { node, key in node?[String(key)] }
    }

    static func typeNames(_ type: JSONValue) -> [String] {
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

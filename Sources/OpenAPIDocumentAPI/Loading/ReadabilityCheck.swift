import Foundation
import MockCore

/// Finds the operations and schemas of a (bundled, normalized) document that cannot be
/// read, so they are skipped and the rest served: an operation that is not an object, a
/// `responses` or `parameters` of the wrong shape, a parameter without its name or place,
/// a schema whose `type` is no JSON Schema type or whose parts are of the wrong shape, a
/// `$ref` that names nothing. A schema is judged once, however many operations use it; an
/// operation using a schema that cannot be read cannot be read either.
struct ReadabilityCheck {
    /// A part that cannot be read: where, and why.
    struct Problem: Error {
        let pointer: String
        let reason: String
        /// The problem as the bundler recorded it (an external reference), with its own file.
        let recorded: FixtureProblem?
    }

    let document: JSONValue
    /// Problems of references the bundler could not follow, by reference as written.
    let unresolved: [String: FixtureProblem]
    /// Each component schema's verdict, by pointer (nil: readable; being checked counts as readable).
    private var verdicts: [String: Problem?] = [:]
    /// The keys of the part being checked.
    private var path: [String] = []
    /// Whether parts are walked by name (to name a problem the same way every run).
    private var ordered = false

    init(document: JSONValue, unresolved: [String: FixtureProblem]) {
        self.document = document
        self.unresolved = unresolved
    }

    private static let types: Set<String> = ["string", "integer", "number", "boolean", "array", "object", "null"]
    private static let places: Set<String> = ["path", "query", "header", "cookie"]

    /// Why the schema at `keys` (of the component `#/components/schemas/NAME`) cannot be
    /// read; nil when it can.
    mutating func componentProblem(_ name: String) -> Problem? {
        let pointer = "/components/schemas/" + JSONPointer.escape(name)
        return referenceProblem("#" + pointer, at: [])
    }

    /// Why the operation at `keys` (`["paths", "/pets", "get"]`) cannot be read, with the
    /// path item's shared `parameters`; nil when it can.
    mutating func operationProblem(_ operation: JSONValue, shared: [JSONValue], at keys: [String]) -> Problem? {
        do throws(Problem) {
            guard case .object(let members) = operation else { throw problem(keys, "an operation must be an object") }
            try parameters(shared, at: keys.dropLast() + ["parameters"])
            if let list = members["parameters"] {
                guard case .array(let items) = list else { throw problem(keys + ["parameters"], "parameters must be a list") }
                try parameters(items, at: keys + ["parameters"])
            }
            if let body = members["requestBody"] {
                let (resolved, place) = try resolve(body, at: keys + ["requestBody"])
                guard case .object = resolved else { throw problem(place, "a request body must be an object") }
                try content(resolved["content"], at: place + ["content"])
            }
            if let responses = members["responses"] {
                guard case .object(let codes) = responses else { throw problem(keys + ["responses"], "responses must be an object of status codes") }
                for (code, response) in codes.sorted(by: { $0.key < $1.key }) where !code.hasPrefix("x-") {
                    let (resolved, place) = try resolve(response, at: keys + ["responses", code])
                    guard case .object(let fields) = resolved else { throw problem(place, "a response must be an object") }
                    try content(fields["content"], at: place + ["content"])
                    if let headers = fields["headers"] {
                        guard case .object(let named) = headers else { throw problem(place + ["headers"], "headers must be an object") }
                        for (name, header) in named.sorted(by: { $0.key < $1.key }) {
                            let (resolvedHeader, headerPlace) = try resolve(header, at: place + ["headers", name])
                            if let schema = resolvedHeader["schema"] { try check(schema, at: headerPlace + ["schema"], depth: 0) }
                        }
                    }
                }
            }
            return nil
        } catch {
            return error
        }
    }

    private func problem(_ keys: [String], _ reason: String) -> Problem {
        Problem(pointer: JSONPointer.pointer(keys), reason: reason, recorded: nil)
    }

    private mutating func parameters(_ items: [JSONValue], at keys: [String]) throws(Problem) {
        for (index, item) in items.enumerated() {
            let (parameter, place) = try resolve(item, at: keys + [String(index)])
            guard case .object(let fields) = parameter else { throw problem(place, "a parameter must be an object") }
            guard fields["name"]?.stringValue != nil else { throw problem(place, "a parameter without its name") }
            guard let location = fields["in"]?.stringValue, Self.places.contains(location) else {
                throw problem(place + ["in"], "a parameter's \"in\" must be path, query, header or cookie")
            }
            if let schema = fields["schema"] { try check(schema, at: place + ["schema"], depth: 0) }
            if fields["content"] != nil { try content(fields["content"], at: place + ["content"]) }
        }
    }

    private mutating func content(_ value: JSONValue?, at keys: [String]) throws(Problem) {
        guard let value else { return }
        guard case .object(let types) = value else { throw problem(keys, "content must be an object of media types") }
        for (type, media) in types.sorted(by: { $0.key < $1.key }) {
            guard case .object(let fields) = media else { throw problem(keys + [type], "a media type must be an object") }
            if let schema = fields["schema"] { try check(schema, at: keys + [type, "schema"], depth: 0) }
        }
    }

    /// A part that may be a `$ref` to a component: the part it names and where that is.
    private func resolve(_ value: JSONValue, at keys: [String]) throws(Problem) -> (JSONValue, [String]) {
        var current = value
        var place = keys
        for _ in 0..<16 {
            guard case .string(let reference)? = current["$ref"] else { return (current, place) }
            guard reference.hasPrefix("#") else { throw unresolvedProblem(reference, at: place) }
            guard let target = JSONPointer.resolve(String(reference.dropFirst()), in: document) else {
                throw problem(place + ["$ref"], "\(reference) names nothing in the document")
            }
            current = target
            place = reference.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false).map { JSONPointer.unescape($0) }
        }
        return (current, place)
    }

    private func unresolvedProblem(_ reference: String, at keys: [String]) -> Problem {
        let recorded = unresolved[reference]
        return Problem(pointer: JSONPointer.pointer(keys + ["$ref"]), reason: recorded?.reason ?? "\(reference) was not read", recorded: recorded)
    }

    /// A reference to a schema: its target judged once when it is a component.
    private mutating func referenceProblem(_ reference: String, at keys: [String]) -> Problem? {
        guard reference.hasPrefix("#") else { return unresolvedProblem(reference, at: keys) }
        let pointer = String(reference.dropFirst())
        if let verdict = verdicts[pointer] { return verdict }
        guard let target = JSONPointer.resolve(pointer, in: document) else {
            return problem(keys + ["$ref"], "\(reference) names nothing in the document")
        }
        verdicts[pointer] = .some(nil)   // a schema referring to itself is readable so far
        let targetKeys = pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { JSONPointer.unescape($0) }
        var verdict: Problem?
        do throws(Problem) {
            try check(target, at: Array(targetKeys), depth: 0)
        } catch {
            verdict = error
        }
        verdicts[pointer] = .some(verdict)
        return verdict
    }

    private static let schemaMaps: Set<String> = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]
    private static let schemaLists: Set<String> = ["allOf", "anyOf", "oneOf", "prefixItems"]
    private static let subschemas: Set<String> = ["additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
                                                  "unevaluatedItems", "unevaluatedProperties", "additionalItems"]

    /// Checks the schema at `keys`; the keys of its parts are pushed on `path` as it goes,
    /// and a pointer is made only for a problem.
    private mutating func check(_ schema: JSONValue, at keys: [String], depth: Int) throws(Problem) {
        let saved = path
        path = keys
        defer { path = saved }
        do {
            try check(schema, depth: depth)
        } catch {
            // Found walking in hash order: walked again by name, so the problem named is the
            // same on every run.
            guard !ordered else { throw error }
            ordered = true
            defer { ordered = false }
            path = keys
            try check(schema, depth: depth)
            throw error
        }
    }

    private func here(_ more: String...) -> [String] { path + more }

    private mutating func check(_ schema: JSONValue, depth: Int) throws(Problem) {
        guard depth < 64 else { return }
        switch schema {
        case .bool: return
        case .object(let keywords):
            if ordered {
                for key in keywords.keys.sorted() { try keyword(key, keywords[key] ?? .null, depth: depth) }
            } else {
                for (key, value) in keywords { try keyword(key, value, depth: depth) }
            }
        default:
            throw problem(path, "a schema must be an object or a boolean, not \(schema.typeName)")
        }
    }

    private mutating func keyword(_ key: String, _ value: JSONValue, depth: Int) throws(Problem) {
        switch key {
        case "$ref":
            guard case .string(let text) = value else { throw problem(here("$ref"), "a $ref must be text") }
            let keys = path
            if let found = referenceProblem(text, at: keys) {
                // The operation names the part it uses; the part says what is wrong.
                if found.recorded != nil || found.pointer == JSONPointer.pointer(keys + ["$ref"]) { throw found }
                throw Problem(pointer: JSONPointer.pointer(keys + ["$ref"]),
                              reason: "\(text) cannot be read (\(found.pointer): \(found.reason))", recorded: nil)
            }
        case "type":
            let names: [JSONValue]
            switch value {
            case .string: names = [value]
            case .array(let items): names = items
            default: throw problem(here("type"), "type \(value) is not a JSON Schema type")
            }
            for name in names where !(name.stringValue.map(Self.types.contains) ?? false) {
                throw problem(here("type"), "type \(name) is not a JSON Schema type")
            }
        case "required":
            guard case .array(let names) = value, names.allSatisfy({ $0.stringValue != nil }) else {
                throw problem(here("required"), "required must be a list of property names")
            }
        case "enum":
            if value.arrayValue == nil { throw problem(here("enum"), "enum must be a list") }
        case "items":
            if case .array(let list) = value {
                for (index, item) in list.enumerated() { try descend(item, ["items", String(index)], depth: depth) }
            } else {
                try descend(value, ["items"], depth: depth)
            }
        case _ where Self.schemaMaps.contains(key):
            guard case .object(let named) = value else { throw problem(here(key), "\(key) must be an object of schemas") }
            if ordered {
                for name in named.keys.sorted() { try descend(named[name] ?? .null, [key, name], depth: depth) }
            } else {
                for (name, member) in named { try descend(member, [key, name], depth: depth) }
            }
        case _ where Self.schemaLists.contains(key):
            guard case .array(let items) = value else { throw problem(here(key), "\(key) must be a list of schemas") }
            for (index, item) in items.enumerated() { try descend(item, [key, String(index)], depth: depth) }
        case _ where Self.subschemas.contains(key):
            try descend(value, [key], depth: depth)
        default:
            return
        }
    }

    private mutating func descend(_ schema: JSONValue, _ keys: [String], depth: Int) throws(Problem) {
        // Scalars and empty schemas need no walk (and no path).
        if case .object(let keywords) = schema, keywords.isEmpty { return }
        if case .bool = schema { return }
        path.append(contentsOf: keys)
        defer { path.removeLast(keys.count) }
        try check(schema, depth: depth + 1)
    }
}

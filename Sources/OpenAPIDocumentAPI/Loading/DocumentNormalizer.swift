import Foundation
import MockCore

/// Reads an OpenAPI 3.0 or 3.1 document as OpenAPI 3.1, repairing the common mistakes of
/// real documents on the way, each with a note naming its JSON pointer and what was done.
///
/// A 3.0 document is converted (its `nullable`, boolean `exclusiveMinimum` and
/// `exclusiveMaximum`, and schemas' `example` are 3.0's own words, silently read as 3.1);
/// in a 3.1 document the same words are mistakes and are noted. Either version also gets:
/// bounds beyond what a 64-bit integer holds read as int64's, bounds that are not numbers
/// read or left out, a `format` in another spelling (`UUID`, `datetime`) read as the
/// usual one and one its own example breaks left unchecked, `required: true` on a property
/// read as the object's `required` list, a `pattern` that is no regular expression left
/// out, a response without its `description` given an empty one, and a duplicate
/// `operationId` given a suffix.
struct DocumentNormalizer {
    /// Whether the document says 3.0 (its 3.0 words are then conversions, not mistakes).
    let isVersion30: Bool
    /// Where a bundled pointer was written (its file and pointer there).
    let locate: (String) -> (file: String, pointer: String)
    private(set) var notes: [DocumentNote] = []
    private var path: [String] = []
    /// Patterns seen, and whether each compiles.
    private var patterns: [String: Bool] = [:]

    init(isVersion30: Bool, locate: @escaping (String) -> (file: String, pointer: String)) {
        self.isVersion30 = isVersion30
        self.locate = locate
    }

    /// The document read as OpenAPI 3.1, with its repairs.
    mutating func normalize(_ document: JSONValue) -> JSONValue {
        guard case .object(var members) = document else { return document }
        for (key, member) in members where !key.hasPrefix("x-") {
            path = [key]
            let context: Context = key == "paths" || key == "webhooks" ? .names : .document
            if let changed = walk(member, context: context) { members[key] = changed }
        }
        path = []
        repairInfo(&members)
        if var paths = members["paths"]?.objectValue {
            repairOperations(&paths)
            members["paths"] = .object(paths)
        }
        if var components = members["components"]?.objectValue, var responses = components["responses"]?.objectValue {
            for (name, response) in responses {
                if let repaired = describedResponse(response, at: ["components", "responses", name]) { responses[name] = repaired }
            }
            components["responses"] = .object(responses)
            members["components"] = .object(components)
        }
        if isVersion30 { members["openapi"] = "3.1.0" }
        notes.sort { ($0.file, $0.pointer, $0.message) < ($1.file, $1.pointer, $1.message) }
        return .object(members)
    }

    private mutating func note(_ kind: DocumentNote.Kind, at keys: [String], _ message: String, group: String) {
        let (file, pointer) = locate(JSONPointer.pointer(keys))
        notes.append(DocumentNote(kind, file: file, pointer: pointer, message, group: group))
    }

    // MARK: Walking to the schemas

    private enum Context { case document, names, schema, schemaNames }


    /// `value` with the schemas in it repaired; nil when nothing changed.
    private mutating func walk(_ value: JSONValue, context: Context) -> JSONValue? {
        switch value {
        case .array(let items):
            // A list's items are values, never names (a `parameters` list holds parameters).
            let itemContext: Context = context == .names ? .document : context == .schemaNames ? .schema : context
            var changed: [JSONValue]?
            for (index, item) in items.enumerated() {
                path.append(String(index))
                let walked = walk(item, context: itemContext)
                path.removeLast()
                if let walked {
                    if changed == nil { changed = items }
                    changed?[index] = walked
                }
            }
            return changed.map(JSONValue.array)
        case .object(let members):
            var changed: [String: JSONValue]?
            for (key, member) in members {
                // Scalars hold no schema: only objects and lists are walked.
                switch member {
                case .object, .array: break
                default: continue
                }
                let inner: Context?
                switch context {
                case .names:
                    inner = path.count == 2 && path[0] == "components" && path[1] == "schemas" ? .schema : .document
                case .schemaNames:
                    inner = .schema
                case .schema:
                    switch key {
                    case "example", "examples", "default", "enum", "const": inner = nil
                    case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas": inner = .schemaNames
                    default: inner = key.hasPrefix("x-") ? nil : .schema
                    }
                case .document:
                    switch key {
                    case "example", "examples", "value": inner = nil
                    case "schema": inner = .schema
                    case "schemas", "paths", "webhooks", "callbacks", "links", "encoding", "content", "variables", "securitySchemes",
                         "parameters", "responses", "requestBodies", "headers", "pathItems":
                        inner = .names
                    default: inner = key.hasPrefix("x-") ? nil : .document
                    }
                }
                guard let inner else { continue }
                path.append(key)
                let walked = walk(member, context: inner)
                path.removeLast()
                if let walked {
                    if changed == nil { changed = members }
                    changed?[key] = walked
                }
            }
            guard context == .schema else { return changed.map(JSONValue.object) }
            var schema = changed ?? members
            let repaired = repairSchema(&schema)
            return repaired || changed != nil ? .object(schema) : nil
        default:
            return nil
        }
    }

    // MARK: Schemas

    private static let integerLimit = 9_223_372_036_854_775_808.0   // 2^63
    private static let numericKeywords = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
                                          "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"]
    private static let formatSpellings: [String: String] = [
        "datetime": "date-time", "date_time": "date-time", "date-time": "date-time", "uuid": "uuid", "guid": "uuid",
        "email": "email", "uri": "uri", "date": "date", "int32": "int32", "int64": "int64", "ipv4": "ipv4", "ipv6": "ipv6",
    ]
    /// Formats the validator checks, and the shapes of their values.
    private static let checkedFormats: Set<String> = ["date-time", "date", "uuid", "email", "uri"]

    /// Repairs one schema's own keywords; whether anything changed.
    /// Whether a schema's keywords hold anything `repairSchema` would change: one pass over
    /// them, so the common schema costs no more than that.
    private mutating func needsRepair(_ schema: [String: JSONValue]) -> Bool {
        for (key, value) in schema {
            switch key {
            case "nullable", "example":
                return true
            case "type":
                if case .string(let type) = value, !Self.typeNames.contains(type) { return true }
            case "exclusiveMinimum", "exclusiveMaximum", "minimum", "maximum", "multipleOf", "minLength", "maxLength",
                 "minItems", "maxItems", "minProperties", "maxProperties":
                guard case .number(let number) = value, abs(number) < Self.integerLimit, key != "multipleOf" || number > 0 else { return true }
            case "properties":
                for property in value.objectValue?.values ?? [:].values {
                    if case .bool? = property["required"] { return true }
                }
            case "pattern":
                guard case .string(let pattern) = value, compiles(pattern) else { return true }
            case "format":
                guard case .string(let format) = value else { continue }
                if let canonical = Self.formatSpellings[format.lowercased()], canonical != format { return true }
                if Self.checkedFormats.contains(format), schema["examples"] != nil || schema["default"] != nil { return true }
            default:
                continue
            }
        }
        return false
    }

    private static let typeNames: Set<String> = ["string", "integer", "number", "boolean", "array", "object", "null"]

    /// Whether `pattern` compiles, each pattern compiled once.
    private mutating func compiles(_ pattern: String) -> Bool {
        if let known = patterns[pattern] { return known }
        let result = PatternCheck.compiles(pattern)
        patterns[pattern] = result
        return result
    }

    private mutating func repairSchema(_ schema: inout [String: JSONValue]) -> Bool {
        guard needsRepair(schema) else { return false }
        var changed = false
        let types = schema["type"].map(SchemaValidator.typeNames) ?? []
        if case .string(let type)? = schema["type"], type != type.lowercased(),
           ["string", "integer", "number", "boolean", "array", "object", "null"].contains(type.lowercased()) {
            schema["type"] = .string(type.lowercased())
            note(.repaired, at: path + ["type"], "type \"\(type)\" read as \"\(type.lowercased())\"", group: "a type name in capitals read in lower case")
            changed = true
        }
        if let nullable = schema["nullable"] {
            schema["nullable"] = nil
            changed = true
            if nullable == .bool(true) {
                makeNullable(&schema)
                if !isVersion30 {
                    note(.repaired, at: path + ["nullable"], "nullable: true (OpenAPI 3.0) read as a type that admits null",
                         group: "nullable (OpenAPI 3.0) in a 3.1 document read as a type that admits null")
                }
            }
        }
        for (keyword, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
            guard case .bool(let exclusive)? = schema[keyword] else { continue }
            changed = true
            if exclusive, let value = schema[bound] {
                schema[keyword] = value
                schema[bound] = nil
            } else {
                schema[keyword] = nil
            }
            if !isVersion30 {
                note(.repaired, at: path + [keyword], "\(keyword): \(exclusive) (OpenAPI 3.0) read as \(exclusive ? "\(keyword): \(schema[keyword].map { "\($0)" } ?? "nothing") (OpenAPI 3.1)" : "no bound")",
                     group: "a boolean \(keyword) (OpenAPI 3.0) in a 3.1 document read as 3.1's")
            }
        }
        if let example = schema["example"] {
            schema["example"] = nil
            if schema["examples"] == nil { schema["examples"] = [example] }
            changed = true
            if !isVersion30 {
                note(.repaired, at: path + ["example"], "a schema's example (OpenAPI 3.0) read as its examples",
                     group: "a schema's example (OpenAPI 3.0) in a 3.1 document read as examples")
            }
        }
        for keyword in Self.numericKeywords {
            guard let value = schema[keyword] else { continue }
            switch value {
            case .number(let number):
                if abs(number) >= Self.integerLimit, types.contains("integer") || schema["format"] == "int64" || types.isEmpty {
                    schema[keyword] = nil
                    if schema["format"] == nil, types.contains("integer") { schema["format"] = "int64" }
                    note(.repaired, at: path + [keyword], "\(keyword) \(String(format: "%.6g", number)) is at or beyond what a 64-bit integer holds; read as \(schema["format"]?.stringValue ?? "int64")'s bound",
                         group: "an integer bound beyond a 64-bit integer read as int64's")
                    changed = true
                } else if keyword == "multipleOf", number <= 0 {
                    schema[keyword] = nil
                    note(.repaired, at: path + [keyword], "multipleOf \(Self.written(number)) is not above 0; left out", group: "a multipleOf not above 0 left out")
                    changed = true
                }
            case .string(let text) where Double(text.trimmingCharacters(in: .whitespaces))?.isFinite == true:
                schema[keyword] = .number(Double(text.trimmingCharacters(in: .whitespaces))!)
                note(.repaired, at: path + [keyword], "\(keyword) \"\(text)\" is text; read as the number", group: "a bound written as text read as its number")
                changed = true
            default:
                schema[keyword] = nil
                note(.repaired, at: path + [keyword], "\(keyword) \(value) is not a number; left out", group: "a bound that is not a number left out")
                changed = true
            }
        }
        if let properties = schema["properties"]?.objectValue {
            var required = schema["required"]?.arrayValue ?? []
            var repaired = properties
            for (name, property) in properties {
                guard case .object(var members) = property, case .bool(let flag)? = members["required"] else { continue }
                members["required"] = nil
                repaired[name] = .object(members)
                if flag, !required.contains(.string(name)) { required.append(.string(name)) }
                note(.repaired, at: path + ["properties", name, "required"], "required: \(flag) on a property read as \(flag ? "the object's required list" : "optional")",
                     group: "required: true|false on a property read as the object's required list")
            }
            if repaired != properties {
                schema["properties"] = .object(repaired)
                if !required.isEmpty { schema["required"] = .array(required.sorted { ($0.stringValue ?? "") < ($1.stringValue ?? "") }) }
                changed = true
            }
        }
        if let pattern = schema["pattern"] {
            if pattern.stringValue.map({ compiles($0) }) != true {
                schema["pattern"] = nil
                note(.repaired, at: path + ["pattern"], "pattern \(pattern) is not a regular expression; left out", group: "a pattern that is not a regular expression left out")
                changed = true
            }
        }
        if case .string(let format)? = schema["format"] {
            let canonical = Self.formatSpellings[format.lowercased()]
            if let canonical, canonical != format {
                schema["format"] = .string(canonical)
                note(.repaired, at: path + ["format"], "format \"\(format)\" read as \"\(canonical)\"", group: "a format in another spelling read as the usual one")
                changed = true
            }
            if let checked = canonical, Self.checkedFormats.contains(checked) {
                let own = (schema["examples"]?.arrayValue ?? []) + [schema["default"]].compactMap { $0 }
                let checker = SchemaValidator(document: [:])
                if let broken = own.first(where: { value in
                    value.stringValue != nil && !checker.conforms(value, to: ["format": .string(checked)])
                }) {
                    schema["format"] = nil
                    note(.repaired, at: path + ["format"], "format \(checked) is used loosely (its own example \(broken) is not one); not checked",
                         group: "a format its own example breaks left unchecked")
                    changed = true
                }
            }
        }
        return changed
    }

    /// `schema` admitting null as well: `null` among its types (and its `enum`), or, for a
    /// reference or a combination, any of it or null.
    private func makeNullable(_ schema: inout [String: JSONValue]) {
        if let type = schema["type"] {
            var names = SchemaValidator.typeNames(type)
            if !names.contains("null") { names.append("null") }
            schema["type"] = .array(names.map(JSONValue.string))
            if var options = schema["enum"]?.arrayValue, !options.contains(.null) {
                options.append(.null)
                schema["enum"] = .array(options)
            }
            return
        }
        let combined = ["$ref", "allOf", "anyOf", "oneOf"].filter { schema[$0] != nil }
        guard !combined.isEmpty else { return }   // any value, null included
        var inner: [String: JSONValue] = [:]
        for key in combined + ["properties", "required", "items", "additionalProperties", "discriminator"] {
            if let value = schema[key] {
                inner[key] = value
                schema[key] = nil
            }
        }
        schema["anyOf"] = [.object(inner), ["type": "null"]]
    }

    private static func written(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e21 ? String(format: "%.0f", number) : "\(number)"
    }

    // MARK: The rest of the document

    private mutating func repairInfo(_ members: inout [String: JSONValue]) {
        var info = members["info"]?.objectValue ?? [:]
        var changed = members["info"]?.objectValue == nil
        for key in ["title", "version"] where info[key]?.stringValue == nil {
            info[key] = .string(key == "title" ? "API" : "0")
            note(.repaired, at: ["info", key], "info has no \(key); read as \"\(key == "title" ? "API" : "0")\"", group: "info without its title or version")
            changed = true
        }
        if changed { members["info"] = .object(info) }
    }

    private mutating func repairOperations(_ paths: inout [String: JSONValue]) {
        var seen: [String: String] = [:]
        var taken = Set<String>()
        for item in paths.values {
            for operation in (item.objectValue ?? [:]).values {
                if let id = operation["operationId"]?.stringValue { taken.insert(id) }
            }
        }
        for template in paths.keys.sorted() {
            guard case .object(var item) = paths[template] else { continue }
            var itemChanged = false
            for method in item.keys.sorted() where RequestConformance.methods.contains(method) {
                guard case .object(var operation) = item[method] else { continue }
                var changed = false
                if let id = operation["operationId"]?.stringValue {
                    if let first = seen[id] {
                        var suffix = 2
                        while taken.contains("\(id)_\(suffix)") { suffix += 1 }
                        let renamed = "\(id)_\(suffix)"
                        taken.insert(renamed)
                        operation["operationId"] = .string(renamed)
                        note(.repaired, at: ["paths", template, method, "operationId"], "operationId \(id) is \(first)'s too; read as \(renamed)",
                             group: "a duplicate operationId given a suffix")
                        changed = true
                    } else {
                        seen[id] = "\(method.uppercased()) \(template)"
                    }
                }
                if var responses = operation["responses"]?.objectValue {
                    var responsesChanged = false
                    for (code, response) in responses {
                        if let repaired = describedResponse(response, at: ["paths", template, method, "responses", code]) {
                            responses[code] = repaired
                            responsesChanged = true
                        }
                    }
                    if responsesChanged {
                        operation["responses"] = .object(responses)
                        changed = true
                    }
                }
                if changed {
                    item[method] = .object(operation)
                    itemChanged = true
                }
            }
            if itemChanged { paths[template] = .object(item) }
        }
    }

    /// A response object given an empty `description` when it has none; nil when it has one
    /// (or is a reference).
    private mutating func describedResponse(_ response: JSONValue, at keys: [String]) -> JSONValue? {
        guard case .object(var members) = response, members["$ref"] == nil, members["description"]?.stringValue == nil else { return nil }
        members["description"] = ""
        note(.repaired, at: keys, "a response without its description (required); read with an empty one", group: "a response without its description")
        return .object(members)
    }
}

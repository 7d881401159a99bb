import Foundation
import MockCore

/// How a body wraps the item it carries, as its schema says: not at all, in an object of
/// one key (`{"article": {…}}`, `{"data": {…}}`), or as a JSON:API resource
/// (`{"data": {"id": …, "type": …, "attributes": {…}}}`). The item is kept unwrapped and
/// wrapped again for each answer as that answer's schema says.
enum Envelope: Sendable, Equatable {
    /// The body is the item.
    case none
    /// The item is the value of the body's one key.
    case key(String)
    /// A JSON:API document: the item's fields are `data.attributes`, its id `data.id`.
    case jsonAPI

    /// The envelope `schema` describes, and the schema of the item inside it.
    static func of(_ schema: JSONValue?, validator: SchemaValidator) -> (envelope: Envelope, item: JSONValue?) {
        guard let schema else { return (.none, nil) }
        let properties = Schemas.properties(schema, validator: validator)
        if let data = properties["data"], let attributes = Schemas.properties(data, validator: validator)["attributes"],
           Schemas.isObject(attributes, validator: validator) {
            return (.jsonAPI, validator.resolved(attributes))
        }
        if properties.count == 1, let (name, inner) = properties.first, Schemas.isObject(inner, validator: validator) {
            return (.key(name), validator.resolved(inner))
        }
        return (.none, validator.resolved(schema))
    }

    /// The item a request body carries: its fields (with the JSON:API id under `idProperty`);
    /// nil when the body is not so wrapped.
    func unwrap(_ body: JSONValue, idProperty: String?) -> [String: JSONValue]? {
        switch self {
        case .none:
            return body.objectValue
        case .key(let name):
            guard case .object(let members) = body else { return nil }
            return members[name]?.objectValue
        case .jsonAPI:
            guard case .object(let data)? = body["data"] else { return nil }
            var fields = data["attributes"]?.objectValue ?? [:]
            if let id = data["id"], let idProperty, fields[idProperty] == nil { fields[idProperty] = id }
            return fields
        }
    }
}

/// Reading object schemas as a whole: their properties and required names across `allOf`
/// parts and `$ref`s.
enum Schemas {
    /// An object schema's properties, those of its `allOf` parts included.
    static func properties(_ schema: JSONValue, validator: SchemaValidator, depth: Int = 0) -> [String: JSONValue] {
        let schema = validator.resolved(schema)
        var properties = schema["properties"]?.objectValue ?? [:]
        guard depth < 16 else { return properties }
        for part in schema["allOf"]?.arrayValue ?? [] {
            properties.merge(Self.properties(part, validator: validator, depth: depth + 1)) { own, _ in own }
        }
        return properties
    }

    /// The names an object schema requires, those of its `allOf` parts included.
    static func required(_ schema: JSONValue, validator: SchemaValidator, depth: Int = 0) -> Set<String> {
        let schema = validator.resolved(schema)
        var names = Set(schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        guard depth < 16 else { return names }
        for part in schema["allOf"]?.arrayValue ?? [] { names.formUnion(required(part, validator: validator, depth: depth + 1)) }
        return names
    }

    /// Whether `schema` describes objects (by its type, or by having properties).
    static func isObject(_ schema: JSONValue, validator: SchemaValidator) -> Bool {
        let resolved = validator.resolved(schema)
        if let type = resolved["type"] { return SchemaValidator.typeNames(type).contains("object") }
        return resolved["properties"] != nil || resolved["allOf"]?.arrayValue?.contains { isObject($0, validator: validator) } == true
    }

    /// Whether `schema` describes arrays, and the schema of its items.
    static func items(_ schema: JSONValue, validator: SchemaValidator) -> JSONValue? {
        let resolved = validator.resolved(schema)
        guard resolved["type"].map({ SchemaValidator.typeNames($0).contains("array") }) ?? (resolved["items"] != nil) else { return nil }
        return resolved["items"] ?? [:]
    }
}

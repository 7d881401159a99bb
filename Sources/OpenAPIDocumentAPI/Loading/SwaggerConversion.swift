import Foundation
import MockCore

/// A Swagger 2.0 document as OpenAPI 3.0, converted as swagger2openapi converts one:
/// `host`, `basePath` and `schemes` become `servers`; `definitions`, `parameters`,
/// `responses` and `securityDefinitions` become `components`; a `body` parameter becomes
/// the `requestBody` (in each media type of `consumes`), `formData` parameters a form
/// or, with a `file` among them or `multipart/form-data` in `consumes`, a multipart body;
/// other parameters keep their type in a `schema`, `collectionFormat` read as `style` and
/// `explode`; a response's `schema` and `examples` go into `content` for each media type
/// of `produces`, its headers' types into a `schema`; `type: file` is a binary string and
/// `x-nullable` is `nullable`. References are rewritten to the new places.
enum SwaggerConversion {
    static func convert(_ swagger: JSONValue) -> JSONValue {
        guard case .object(let document) = swagger else { return swagger }
        let globalConsumes = document["consumes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let globalProduces = document["produces"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let globalParameters = document["parameters"]?.objectValue ?? [:]
        var out: [String: JSONValue] = ["openapi": "3.0.3"]
        out["info"] = document["info"] ?? ["title": "API", "version": "0"]
        for key in ["tags", "externalDocs", "security"] { if let value = document[key] { out[key] = value } }
        for (key, value) in document where key.hasPrefix("x-") { out[key] = value }
        if let servers = servers(document) { out["servers"] = servers }

        var components: [String: JSONValue] = [:]
        if let definitions = document["definitions"]?.objectValue {
            components["schemas"] = .object(definitions.mapValues(schema))
        }
        var parameters: [String: JSONValue] = [:]
        var requestBodies: [String: JSONValue] = [:]
        for (name, parameter) in globalParameters {
            if parameter["in"] == "body" {
                requestBodies[name] = requestBody(fromBody: parameter, consumes: globalConsumes)
            } else if parameter["in"] != "formData" {
                parameters[name] = self.parameter(parameter)
            }
        }
        if !parameters.isEmpty { components["parameters"] = .object(parameters) }
        if !requestBodies.isEmpty { components["requestBodies"] = .object(requestBodies) }
        if let responses = document["responses"]?.objectValue {
            components["responses"] = .object(responses.mapValues { response($0, produces: globalProduces) })
        }
        if let schemes = document["securityDefinitions"]?.objectValue {
            components["securitySchemes"] = .object(schemes.mapValues(securityScheme))
        }
        if !components.isEmpty { out["components"] = .object(components) }

        var paths: [String: JSONValue] = [:]
        for (template, item) in document["paths"]?.objectValue ?? [:] {
            guard case .object(let members) = item else { paths[template] = item; continue }
            var converted: [String: JSONValue] = [:]
            let shared = members["parameters"]?.arrayValue ?? []
            for (key, value) in members {
                if RequestConformance.methods.contains(key) {
                    converted[key] = operation(value, shared: shared, globalParameters: globalParameters,
                                               consumes: globalConsumes, produces: globalProduces)
                } else if key == "parameters" {
                    let kept = shared.filter { !["body", "formData"].contains(resolvedIn($0, globalParameters)) }
                    if !kept.isEmpty { converted[key] = .array(kept.map(parameterOrReference)) }
                } else {
                    converted[key] = value
                }
            }
            paths[template] = .object(converted)
        }
        out["paths"] = .object(paths)
        return rewriteReferences(.object(out), bodies: Set(requestBodies.keys))
    }

    private static func servers(_ document: [String: JSONValue]) -> JSONValue? {
        let base = document["basePath"]?.stringValue ?? ""
        guard let host = document["host"]?.stringValue, !host.isEmpty else {
            return base.isEmpty || base == "/" ? nil : [["url": .string(base)]]
        }
        let schemes = document["schemes"]?.arrayValue?.compactMap(\.stringValue) ?? ["https"]
        return .array(schemes.map { ["url": .string("\($0)://\(host)\(base == "/" ? "" : base)")] })
    }

    // MARK: Operations

    private static func operation(_ value: JSONValue, shared: [JSONValue], globalParameters: [String: JSONValue],
                                  consumes: [String], produces: [String]) -> JSONValue {
        guard case .object(let members) = value else { return value }
        let consumes = members["consumes"]?.arrayValue?.compactMap(\.stringValue) ?? consumes
        let produces = members["produces"]?.arrayValue?.compactMap(\.stringValue) ?? produces
        var out: [String: JSONValue] = [:]
        for (key, member) in members where !["parameters", "responses", "consumes", "produces", "schemes"].contains(key) {
            out[key] = member
        }
        let own = members["parameters"]?.arrayValue ?? []
        // The operation's own parameters replace the path item's of the same name and place.
        let inherited = shared.filter { parameter in
            let resolved = resolve(parameter, globalParameters)
            return !own.contains { resolve($0, globalParameters)["name"] == resolved["name"] && resolve($0, globalParameters)["in"] == resolved["in"] }
        }
        var parameters: [JSONValue] = []
        var form: [(name: String, schema: JSONValue, required: Bool)] = []
        for parameter in inherited + own {
            let resolved = resolve(parameter, globalParameters)
            switch resolved["in"]?.stringValue {
            case "body":
                if let reference = parameter["$ref"]?.stringValue, reference.hasPrefix("#/parameters/") {
                    out["requestBody"] = ["$ref": .string("#/components/requestBodies/" + reference.dropFirst("#/parameters/".count))]
                } else {
                    out["requestBody"] = requestBody(fromBody: resolved, consumes: consumes)
                }
            case "formData":
                form.append((resolved["name"]?.stringValue ?? "", formSchema(resolved), resolved["required"] == .bool(true)))
            default:
                parameters.append(parameterOrReference(parameter))
            }
        }
        if !parameters.isEmpty { out["parameters"] = .array(parameters) }
        if !form.isEmpty {
            let multipart = consumes.contains("multipart/form-data") || form.contains { $0.schema["format"] == "binary" }
            var schema: [String: JSONValue] = ["type": "object", "properties": .object(Dictionary(form.map { ($0.name, $0.schema) }) { first, _ in first })]
            let required = form.filter(\.required).map { JSONValue.string($0.name) }
            if !required.isEmpty { schema["required"] = .array(required) }
            let type = multipart ? "multipart/form-data" : "application/x-www-form-urlencoded"
            out["requestBody"] = ["required": .bool(!required.isEmpty), "content": .object([type: ["schema": .object(schema)]])]
        }
        var responses: [String: JSONValue] = [:]
        for (code, response) in members["responses"]?.objectValue ?? [:] {
            responses[code] = self.response(response, produces: produces)
        }
        out["responses"] = .object(responses)
        return .object(out)
    }

    private static func resolve(_ parameter: JSONValue, _ globals: [String: JSONValue]) -> JSONValue {
        guard let reference = parameter["$ref"]?.stringValue, reference.hasPrefix("#/parameters/") else { return parameter }
        return globals[JSONPointer.unescape(reference.dropFirst("#/parameters/".count))] ?? parameter
    }

    private static func resolvedIn(_ parameter: JSONValue, _ globals: [String: JSONValue]) -> String? {
        resolve(parameter, globals)["in"]?.stringValue
    }

    private static func parameterOrReference(_ parameter: JSONValue) -> JSONValue {
        parameter["$ref"] != nil ? parameter : self.parameter(parameter)
    }

    private static let schemaKeys: Set<String> = ["type", "format", "items", "enum", "default", "minimum", "maximum", "exclusiveMinimum",
                                                  "exclusiveMaximum", "minLength", "maxLength", "pattern", "minItems", "maxItems",
                                                  "uniqueItems", "multipleOf"]

    /// A non-body parameter: its type in a `schema`, `collectionFormat` as `style` and `explode`.
    private static func parameter(_ value: JSONValue) -> JSONValue {
        guard case .object(let members) = value else { return value }
        var out: [String: JSONValue] = [:]
        var schema: [String: JSONValue] = [:]
        for (key, member) in members {
            if schemaKeys.contains(key) {
                schema[key] = key == "items" ? self.schema(itemsSchema(member)) : member
            } else if key != "collectionFormat" && key != "allowEmptyValue" || key == "allowEmptyValue" && members["in"] == "query" {
                out[key] = member
            }
        }
        if schema["type"] == "file" { schema = ["type": "string", "format": "binary"] }
        out["schema"] = .object(schema)
        switch members["collectionFormat"]?.stringValue {
        case "multi": out["explode"] = true
        case "ssv": out["style"] = "spaceDelimited"; out["explode"] = false
        case "pipes": out["style"] = "pipeDelimited"; out["explode"] = false
        case "csv"?, "tsv"?: out["explode"] = false
        case nil: if schema["type"] == "array" { out["explode"] = false }
        default: break
        }
        return .object(out)
    }

    /// A Swagger 2.0 `items` object (a parameter's) as a schema.
    private static func itemsSchema(_ items: JSONValue) -> JSONValue {
        guard case .object(let members) = items else { return items }
        return .object(members.filter { $0.key != "collectionFormat" })
    }

    private static func formSchema(_ parameter: JSONValue) -> JSONValue {
        var schema: [String: JSONValue] = [:]
        for key in schemaKeys { if let value = parameter[key] { schema[key] = key == "items" ? self.schema(itemsSchema(value)) : value } }
        if schema["type"] == "file" { return ["type": "string", "format": "binary"] }
        if let description = parameter["description"] { schema["description"] = description }
        return .object(schema)
    }

    private static func requestBody(fromBody parameter: JSONValue, consumes: [String]) -> JSONValue {
        let types = consumes.isEmpty ? ["application/json"] : consumes
        let schema = self.schema(parameter["schema"] ?? [:])
        var body: [String: JSONValue] = ["content": .object(Dictionary(types.map { ($0, ["schema": schema]) }) { first, _ in first })]
        if parameter["required"] == .bool(true) { body["required"] = true }
        if let description = parameter["description"] { body["description"] = description }
        return .object(body)
    }

    private static func response(_ value: JSONValue, produces: [String]) -> JSONValue {
        guard case .object(let members) = value, members["$ref"] == nil else { return value }
        var out: [String: JSONValue] = ["description": members["description"] ?? ""]
        let examples = members["examples"]?.objectValue ?? [:]
        if let schema = members["schema"] {
            let types = produces.isEmpty ? ["application/json"] : produces
            var content: [String: JSONValue] = [:]
            for type in types {
                var media: [String: JSONValue] = ["schema": self.schema(schema)]
                if let example = examples[type] { media["example"] = example }
                content[type] = .object(media)
            }
            out["content"] = .object(content)
        } else if !examples.isEmpty {
            out["content"] = .object(examples.mapValues { ["example": $0] })
        }
        if let headers = members["headers"]?.objectValue {
            out["headers"] = .object(headers.mapValues { header in
                guard case .object(let fields) = header else { return header }
                var schema: [String: JSONValue] = [:]
                var converted: [String: JSONValue] = [:]
                for (key, field) in fields {
                    if schemaKeys.contains(key) { schema[key] = key == "items" ? self.schema(itemsSchema(field)) : field } else if key != "collectionFormat" { converted[key] = field }
                }
                converted["schema"] = .object(schema)
                return .object(converted)
            })
        }
        for (key, member) in members where key.hasPrefix("x-") { out[key] = member }
        return .object(out)
    }

    private static func securityScheme(_ value: JSONValue) -> JSONValue {
        guard case .object(let members) = value else { return value }
        var out: [String: JSONValue] = [:]
        if let description = members["description"] { out["description"] = description }
        switch members["type"]?.stringValue {
        case "basic":
            out["type"] = "http"
            out["scheme"] = "basic"
        case "apiKey":
            out["type"] = "apiKey"
            out["name"] = members["name"] ?? ""
            out["in"] = members["in"] ?? "header"
        case "oauth2":
            out["type"] = "oauth2"
            var flow: [String: JSONValue] = ["scopes": members["scopes"] ?? [:]]
            if let url = members["authorizationUrl"] { flow["authorizationUrl"] = url }
            if let url = members["tokenUrl"] { flow["tokenUrl"] = url }
            let name: String
            switch members["flow"]?.stringValue {
            case "password": name = "password"
            case "application": name = "clientCredentials"
            case "accessCode": name = "authorizationCode"
            default: name = "implicit"
            }
            out["flows"] = .object([name: .object(flow)])
        default:
            return value
        }
        return .object(out)
    }

    // MARK: Schemas and references

    /// A Swagger 2.0 schema as OpenAPI 3.0's: `type: file` a binary string, `x-nullable`
    /// as `nullable`, a `discriminator` name as an object.
    static func schema(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let items):
            return .array(items.map(schema))
        case .object(var members):
            if members["type"] == "file" {
                members["type"] = "string"
                members["format"] = "binary"
            }
            if let nullable = members["x-nullable"] {
                members["x-nullable"] = nil
                members["nullable"] = nullable
            }
            if case .string(let name)? = members["discriminator"] { members["discriminator"] = ["propertyName": .string(name)] }
            for key in ["items", "additionalProperties", "not"] { if let inner = members[key] { members[key] = schema(inner) } }
            for key in ["allOf", "anyOf", "oneOf"] { if let inner = members[key] { members[key] = schema(inner) } }
            if let properties = members["properties"]?.objectValue { members["properties"] = .object(properties.mapValues(schema)) }
            return .object(members)
        default:
            return value
        }
    }

    /// Every `$ref` to 2.0's places pointed at 3.0's.
    private static func rewriteReferences(_ value: JSONValue, bodies: Set<String>) -> JSONValue {
        switch value {
        case .array(let items):
            return .array(items.map { rewriteReferences($0, bodies: bodies) })
        case .object(var members):
            if case .string(let reference)? = members["$ref"] {
                if reference.hasPrefix("#/definitions/") {
                    members["$ref"] = .string("#/components/schemas/" + reference.dropFirst("#/definitions/".count))
                } else if reference.hasPrefix("#/parameters/") {
                    let name = String(reference.dropFirst("#/parameters/".count))
                    members["$ref"] = .string((bodies.contains(JSONPointer.unescape(Substring(name))) ? "#/components/requestBodies/" : "#/components/parameters/") + name)
                } else if reference.hasPrefix("#/responses/") {
                    members["$ref"] = .string("#/components/responses/" + reference.dropFirst("#/responses/".count))
                }
            }
            for (key, member) in members where key != "$ref" {
                switch member {
                case .object, .array: members[key] = rewriteReferences(member, bodies: bodies)
                default: break
                }
            }
            return .object(members)
        default:
            return value
        }
    }
}

import Foundation

/// The request body's checks: JSON, forms and multipart parts against the operation's
/// request body schema, for each media type it declares.
extension RequestConformance {
    func checkBody(_ request: MockRequest, _ operation: Operation) -> [RequestViolation] {
        guard let requestBody = operation.body else {
            guard request.body.isEmpty || request.method == "GET" || request.method == "HEAD" else {
                return [RequestViolation(path: "$.body", reason: "a body of \(request.body.count) bytes the operation does not take")]
            }
            return []
        }
        let content = requestBody["content"]?.objectValue ?? [:]
        guard !request.body.isEmpty else {
            return requestBody["required"]?.boolValue == true
                ? [RequestViolation(path: "$.body", reason: "the required body is missing (\(content.keys.sorted().joined(separator: " or ")))")]
                : []
        }
        let given = request.headers["Content-Type"] ?? ""
        let mediaType = given.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard let media = Self.media(for: mediaType, in: content) else {
            return [RequestViolation(path: "$.header.Content-Type",
                                     reason: "\(given.isEmpty ? "no Content-Type" : "\"\(given)\"") where the document takes \(content.keys.sorted().joined(separator: " or "))")]
        }
        let schema = media["schema"] ?? [:]
        if mediaType == "application/json" || mediaType.hasSuffix("+json") {
            guard let json = JSONValue(parsing: request.body) else {
                return [RequestViolation(path: "$.body", reason: "not JSON: \(MockRequest.preview(request.body))")]
            }
            return operation.validator.problems(json, against: schema, at: "$.body").map(Self.violation)
        }
        if mediaType == "application/x-www-form-urlencoded" {
            return checkForm(request.body, schema: schema, operation)
        }
        if mediaType == "multipart/form-data" || mediaType == "multipart/mixed" {
            return checkMultipart(request, given, schema: schema, encoding: media["encoding"]?.objectValue ?? [:], operation)
        }
        if mediaType == "application/xml" || mediaType == "text/xml" || mediaType.hasSuffix("+xml") {
            switch XMLBody.value(request.body, schema: schema, validator: operation.validator) {
            case .failure(let malformed):
                return [RequestViolation(path: "$.body", reason: "not XML: \(malformed.reason)")]
            case .success(let value):
                return operation.validator.problems(value, against: schema, at: "$.body").map(Self.violation)
            }
        }
        if mediaType.hasPrefix("text/"), SchemaValidator.typeNames(operation.validator.resolved(schema)["type"] ?? .null) == ["string"] {
            guard let text = String(data: request.body, encoding: .utf8) else {
                return [RequestViolation(path: "$.body", reason: "not UTF-8 text")]
            }
            return operation.validator.problems(.string(text), against: schema, at: "$.body").map(Self.violation)
        }
        return []
    }

    /// The media type object of `content` that a body of `mediaType` (lower case, without
    /// parameters) is read by: the same type (the document's parameters, such as
    /// `charset`, aside), else a range that covers it (`application/*`, `*/*`).
    static func media(for mediaType: String, in content: [String: JSONValue]) -> JSONValue? {
        var range: JSONValue?
        var any: JSONValue?
        for (key, media) in content {
            let type = key.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            if type == mediaType { return media }
            if type == "*/*" { any = media } else if type.hasSuffix("/*"), mediaType.hasPrefix(type.dropLast()) { range = media }
        }
        return range ?? any
    }

    /// A form body (`a=1&b=x`) as the object its schema describes, each value read as
    /// its property's type, against the schema.
    private func checkForm(_ body: Data, schema: JSONValue, _ operation: Operation) -> [RequestViolation] {
        let resolved = operation.validator.resolved(schema)
        let properties = resolved["properties"]?.objectValue ?? [:]
        var members: [String: JSONValue] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { String($0).replacingOccurrences(of: "+", with: " ") }
            let name = parts[0].removingPercentEncoding ?? parts[0]
            let text = parts.count > 1 ? (parts[1].removingPercentEncoding ?? parts[1]) : ""
            let property = operation.validator.resolved(properties[name] ?? [:])
            let value = Self.typed(text, as: SchemaValidator.typeNames(property["type"] ?? .null))
            if case .array(let items)? = members[name] {
                members[name] = .array(items + [value])
            } else if SchemaValidator.typeNames(property["type"] ?? .null) == ["array"] {
                let itemTypes = SchemaValidator.typeNames(operation.validator.resolved(property["items"] ?? [:])["type"] ?? .null)
                members[name] = .array([Self.typed(text, as: itemTypes)])
            } else {
                members[name] = value
            }
        }
        // A form cannot write an empty list: a list property it leaves out is empty.
        for (name, property) in properties where members[name] == nil
            && SchemaValidator.typeNames(operation.validator.resolved(property)["type"] ?? .null) == ["array"] {
            members[name] = .array([])
        }
        return operation.validator.problems(.object(members), against: schema, at: "$.body").map(Self.violation)
    }

    private func checkMultipart(_ request: MockRequest, _ contentType: String, schema: JSONValue, encoding: [String: JSONValue],
                                _ operation: Operation) -> [RequestViolation] {
        let form: MultipartForm
        do {
            form = try MultipartForm.parse(request.body, contentType: contentType)
        } catch {
            let reason: String
            switch error {
            case .notMultipart: reason = "not multipart/form-data"
            case .noBoundary: reason = "the Content-Type names no boundary"
            case .malformed(let detail): reason = detail
            }
            return [RequestViolation(path: "$.body", reason: "not a multipart body: \(reason)")]
        }
        let resolved = operation.validator.resolved(schema)
        let properties = resolved["properties"]?.objectValue ?? [:]
        var found: [RequestViolation] = []
        var reported = Set<String>()
        // A part the schema does not name is refused only where the schema is closed
        // (`additionalProperties: false`), as for a JSON body's keys.
        let closed = resolved["additionalProperties"] == .bool(false)
        for part in form.parts where closed {
            let name = part.name ?? ""
            guard properties[name] == nil, reported.insert(name).inserted else { continue }
            found.append(RequestViolation(path: "$.body.\(name.isEmpty ? "(no name)" : name)",
                                          reason: "a part the document does not have (it has \(properties.keys.sorted().joined(separator: ", ")))"))
        }
        for name in resolved["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where !form.parts.contains(where: { $0.name == name }) {
            found.append(RequestViolation(path: "$.body.\(name)", reason: "the required part is missing"))
        }
        for (name, property) in properties.sorted(by: { $0.key < $1.key }) {
            let parts = form.parts.filter { $0.name == name }
            guard !parts.isEmpty else { continue }
            let types = (encoding[name]?["contentType"]?.stringValue ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            let propertySchema = operation.validator.resolved(property)
            if SchemaValidator.typeNames(propertySchema["type"] ?? .null) == ["array"] {
                if let least = propertySchema["minItems"]?.intValue, parts.count < least {
                    found.append(RequestViolation(path: "$.body.\(name)", reason: "\(parts.count) parts, at least \(least) expected"))
                }
                if let most = propertySchema["maxItems"]?.intValue, parts.count > most {
                    found.append(RequestViolation(path: "$.body.\(name)", reason: "\(parts.count) parts, at most \(most) expected"))
                }
                for (index, part) in parts.enumerated() {
                    found += checkPart(part, at: "$.body.\(name)[\(index)]", schema: propertySchema["items"] ?? [:], types: types, operation)
                }
            } else {
                if parts.count > 1 { found.append(RequestViolation(path: "$.body.\(name)", reason: "\(parts.count) parts where the document has one")) }
                found += checkPart(parts[0], at: "$.body.\(name)", schema: propertySchema, types: types, operation)
            }
        }
        return found
    }

    /// One multipart part: a JSON part against its schema, a file part's type.
    private func checkPart(_ part: MultipartForm.Part, at path: String, schema: JSONValue, types: [String], _ operation: Operation) -> [RequestViolation] {
        let given = (part.contentType ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let resolved = operation.validator.resolved(schema)
        // An object's part is JSON unless the encoding says otherwise (OpenAPI's default).
        let jsonByDefault = types.isEmpty && SchemaValidator.typeNames(resolved["type"] ?? .null).contains("object")
        if types.contains("application/json") || jsonByDefault {
            var found: [RequestViolation] = []
            if given != "application/json" && !(jsonByDefault && given.isEmpty) {
                found.append(RequestViolation(path: path, reason: "\(given.isEmpty ? "no Content-Type" : given) where the document takes application/json"))
            }
            guard let json = JSONValue(parsing: part.body) else {
                return found + [RequestViolation(path: path, reason: "a JSON part that is not JSON: \(MockRequest.preview(part.body))")]
            }
            return found + operation.validator.problems(json, against: schema, at: path).map(Self.violation)
        }
        let isFile = resolved["format"] == "binary" || resolved["format"] == "byte" || resolved["contentMediaType"] != nil
            || resolved["contentEncoding"] != nil || !types.isEmpty
        if !isFile {
            // A text part is the value of its property: read as its type, then checked.
            guard let text = String(data: part.body, encoding: .utf8) else {
                return [RequestViolation(path: path, reason: "a text part that is not UTF-8")]
            }
            let value = Self.typed(text, as: SchemaValidator.typeNames(resolved["type"] ?? .null))
            return operation.validator.problems(value, against: schema, at: path).map(Self.violation)
        }
        guard !types.isEmpty, !types.contains(given) else { return [] }
        return [RequestViolation(path: path, reason: "\(given.isEmpty ? "no Content-Type" : given) where the document takes \(types.joined(separator: " or "))")]
    }
}

import Foundation

/// One way a request breaks its API's OpenAPI document: where (a JSON path over the
/// request: `$.query.page_no`, `$.header.identifier`, `$.body.menuIds[0]`,
/// `$.body.params.price` inside a multipart part) and what is wrong.
public struct RequestViolation: Sendable, Hashable, CustomStringConvertible {
    /// Where the problem is, as a JSON path over the request (`$.query.page_no`, `$.body.price`).
    public let path: String
    /// What is wrong.
    public let reason: String

    /// Makes a violation at `path`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `PATH: REASON`.
    public var description: String { "\(path): \(reason)" }

    /// The violation as a JSON object, `{"path": …, "reason": …}`.
    public var json: JSONValue { ["path": .string(path), "reason": .string(reason)] }
}

/// Checks what a client sent against the OpenAPI documents of the APIs the server plays
/// (the ones it serves at `/__admin/openapi/…`, for its variants): the operation for the
/// method and path, path and query parameters (required ones present, values of their
/// schema's type and range, no name the document does not have), header parameters, and
/// the body: its media type, a JSON body against its schema, a multipart body part by
/// part (JSON parts against their schema, file parts' count and types, no unknown part).
///
/// It judges only; the answer is the simulator's (a lenient real server stays lenient):
/// the journal keeps the violations on the entry.
public struct RequestConformance: Sendable {
    struct Parameter: Sendable {
        let name: String
        let place: String
        let required: Bool
        let schema: JSONValue
        /// An array query parameter given as several values (`ids=1&ids=2`), OpenAPI's default.
        let explode: Bool
        /// Made once, not per request: where a violation is (`$.query.page_no`) and the
        /// schema's types.
        let location: String
        let types: [String]

        init(name: String, place: String, required: Bool, schema: JSONValue, explode: Bool = true) {
            self.name = name
            self.place = place
            self.required = required
            self.schema = schema
            self.explode = explode
            self.location = "$.\(place).\(name)"
            self.types = SchemaValidator.typeNames(schema["type"] ?? .null)
        }
    }

    struct Operation: Sendable {
        let method: String
        let pattern: PathPattern
        let parameters: [Parameter]
        let body: JSONValue?
        let validator: SchemaValidator
        /// The parameters by place, and the query names, sorted out once (a request on the
        /// hot path allocates nothing when it conforms).
        let pathParameters: [Parameter]
        let queryParameters: [Parameter]
        let headerParameters: [Parameter]
        let queryNames: Set<String>

        init(method: String, pattern: PathPattern, parameters: [Parameter], body: JSONValue?, validator: SchemaValidator,
             credentialNames: Set<String> = []) {
            self.method = method
            self.pattern = pattern
            self.parameters = parameters
            self.body = body
            self.validator = validator
            pathParameters = parameters.filter { $0.place == "path" }
            queryParameters = parameters.filter { $0.place == "query" }
            headerParameters = parameters.filter { $0.place == "header" }
            queryNames = Set(queryParameters.map(\.name)).union(credentialNames)
        }
    }

    /// Path templates with their operations, the most literal first (OpenAPI's "concrete
    /// paths before templated ones").
    private let paths: [(pattern: PathPattern, operations: [String: Operation])]
    /// Indices into `paths` of the templates that can match a path starting with the key
    /// (its first segment), in `paths` order, templates with any first segment included;
    /// as the router does, so a request is tried against those templates only, not every
    /// one the documents hold.
    private let candidates: [Substring: [Int]]
    /// Indices of the templates whose first segment can be anything.
    private let anyFirstSegment: [Int]

    /// Makes a checker over `documents` (OpenAPI 3 documents as JSON); made once, it serves every request.
    public init(documents: [JSONValue]) {
        var paths: [(pattern: PathPattern, operations: [String: Operation])] = []
        for document in documents {
            let validator = SchemaValidator(document: document)
            let prefixes = Self.basePaths(of: document)
            // API keys the security schemes take in the query are no unknown parameters.
            let credentialNames = Set((document["components"]?["securitySchemes"]?.objectValue ?? [:]).values.compactMap { scheme in
                scheme["type"] == "apiKey" && scheme["in"] == "query" ? scheme["name"]?.stringValue : nil
            })
            for (template, item) in (document["paths"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                var operations: [String: Operation] = [:]
                // Parameters of the path item apply to each of its operations, unless one
                // names the same parameter again; `$ref`s to components are followed.
                let shared = (item["parameters"]?.arrayValue ?? []).map(validator.resolved)
                for prefix in prefixes {
                    let pattern = PathPattern(prefix + template)
                    for (method, operation) in item.objectValue ?? [:] where Self.methods.contains(method) {
                        let own = (operation["parameters"]?.arrayValue ?? []).map(validator.resolved)
                        let inherited = shared.filter { parameter in
                            !own.contains { $0["name"] == parameter["name"] && $0["in"] == parameter["in"] }
                        }
                        let parameters = (inherited + own).compactMap { parameter -> Parameter? in
                            guard let name = parameter["name"]?.stringValue, let place = parameter["in"]?.stringValue else { return nil }
                            return Parameter(name: name, place: place, required: parameter["required"]?.boolValue ?? (place == "path"),
                                             schema: validator.resolved(parameter["schema"] ?? [:]), explode: parameter["explode"]?.boolValue ?? true)
                        }
                        operations[method.uppercased()] = Operation(method: method.uppercased(), pattern: pattern, parameters: parameters,
                                                                   body: operation["requestBody"].map(validator.resolved), validator: validator,
                                                                   credentialNames: credentialNames)
                    }
                    paths.append((pattern, operations))
                }
            }
        }
        self.init(paths: paths)
    }

    /// One checker of the documents of `parts`, in their order: what a checker made of all
    /// their documents at once checks, without reading the documents again (a large
    /// document's checker is made once and shared by every engine serving it).
    public init(combining parts: [RequestConformance]) {
        self.init(paths: parts.flatMap(\.paths))
    }

    private init(paths: [(pattern: PathPattern, operations: [String: Operation])]) {
        let sorted = paths.enumerated().sorted { ($0.element.pattern.literalCount, -$0.offset) > ($1.element.pattern.literalCount, -$1.offset) }.map(\.element)
        self.paths = sorted
        let keys = sorted.map(\.pattern.requiredFirstSegment)
        var byKey: [Substring: [Int]] = [:]
        var anyFirst: [Int] = []
        for (index, key) in keys.enumerated() {
            if let key { byKey[Substring(key), default: []].append(index) } else { anyFirst.append(index) }
        }
        // Each first segment's templates with those of any first segment, in `paths` order.
        var candidates: [Substring: [Int]] = [:]
        for (key, own) in byKey {
            var merged: [Int] = []
            merged.reserveCapacity(own.count + anyFirst.count)
            var (i, j) = (0, 0)
            while i < own.count || j < anyFirst.count {
                if j == anyFirst.count || (i < own.count && own[i] < anyFirst[j]) { merged.append(own[i]); i += 1 } else { merged.append(anyFirst[j]); j += 1 }
            }
            candidates[key] = merged
        }
        self.candidates = candidates
        self.anyFirstSegment = anyFirst
    }

    /// The operations' keys in a path item.
    public static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// The paths a document's operations are served under: each `servers` URL's path
    /// (`https://host/api` and `/api` give `/api`), with its variables at their defaults;
    /// `[""]` when it has none.
    public static func basePaths(of document: JSONValue) -> [String] {
        var found: [String] = []
        for server in document["servers"]?.arrayValue ?? [] {
            guard var url = server["url"]?.stringValue else { continue }
            for (name, variable) in server["variables"]?.objectValue ?? [:] {
                url = url.replacingOccurrences(of: "{\(name)}", with: variable["default"]?.stringValue ?? "")
            }
            var path = url
            if let scheme = url.range(of: "://") {
                let rest = url[scheme.upperBound...]
                path = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? ""
            }
            path = String(path.prefix { $0 != "?" && $0 != "#" })
            while path.hasSuffix("/") { path.removeLast() }
            if !path.isEmpty && !path.hasPrefix("/") { path = "/" + path }
            if !found.contains(path) { found.append(path) }
        }
        return found.isEmpty ? [""] : found
    }

    /// The violations of `request`; nil when its path is no API route (the admin API, an
    /// unknown path), empty when it conforms.
    public func violations(of request: MockRequest) -> [RequestViolation]? {
        var matched: (pattern: PathPattern, operations: [String: Operation], parameters: [String: String])?
        for index in candidates[PathPattern.firstSegment(of: request.path)] ?? anyFirstSegment {
            let entry = paths[index]
            if let parameters = entry.pattern.match(request.path) {
                matched = (entry.pattern, entry.operations, parameters)
                break
            }
        }
        guard let (pattern, operations, parameters) = matched else { return nil }
        // HEAD is GET without the body (RFC 9110 §9.3.2), as every server answers it.
        let method = request.method == "HEAD" && operations["HEAD"] == nil ? "GET" : request.method
        guard let operation = operations[method] else {
            return [RequestViolation(path: "$.method", reason: "\(request.method) is not an operation of \(pattern.template) (the document has \(operations.keys.sorted().joined(separator: ", ")))")]
        }
        var found: [RequestViolation] = []
        for parameter in operation.pathParameters {
            if let value = parameters[parameter.name] { found += check(value, parameter, in: operation) }
        }
        found += checkQuery(request, operation)
        for parameter in operation.headerParameters {
            if let value = request.headers[parameter.name] {
                found += check(value, parameter, in: operation)
            } else if parameter.required {
                found.append(RequestViolation(path: "$.header.\(parameter.name)", reason: "the required header is missing"))
            }
        }
        found += checkBody(request, operation)
        return found
    }

    private func checkQuery(_ request: MockRequest, _ operation: Operation) -> [RequestViolation] {
        var found: [RequestViolation] = []
        let documented = operation.queryParameters
        let names = operation.queryNames
        var reported = Set<String>()
        for item in request.query where !names.contains(item.name) && reported.insert(item.name).inserted {
            let known = names.isEmpty ? "it has none" : "it has \(names.sorted().joined(separator: ", "))"
            found.append(RequestViolation(path: "$.query.\(item.name)", reason: "a query parameter the document does not have (\(known))"))
        }
        for parameter in documented {
            let values = request.queryValues(parameter.name)
            if values.isEmpty {
                if parameter.required { found.append(RequestViolation(path: "$.query.\(parameter.name)", reason: "the required query parameter is missing")) }
            } else {
                for value in values { found += check(value, parameter, in: operation) }
            }
        }
        return found
    }

    /// A parameter's text, read as its schema's type, against the schema. An array's
    /// items are its values (`ids=1&ids=2`), or one value's comma-separated parts when the
    /// parameter does not explode.
    private func check(_ text: String, _ parameter: Parameter, in operation: Operation) -> [RequestViolation] {
        if parameter.types == ["array"] {
            let items = operation.validator.resolved(parameter.schema["items"] ?? [:])
            let types = SchemaValidator.typeNames(items["type"] ?? .null)
            let parts = parameter.explode && parameter.place == "query" ? [Substring(text)] : text.split(separator: ",", omittingEmptySubsequences: false)
            return parts.enumerated().flatMap { index, part in
                operation.validator.problems(Self.typed(String(part), as: types), against: items, at: "\(parameter.location)[\(index)]").map(Self.violation)
            }
        }
        let value = Self.typed(text, as: parameter.types)
        return operation.validator.problems(value, against: parameter.schema, at: parameter.location).map(Self.violation)
    }

    /// `text` as the JSON value a parameter of these types stands for: an integer only
    /// when it is written as one (`1e3` stays text), a number, a boolean, else the text.
    static func typed(_ text: String, as types: [String]) -> JSONValue {
        if types.contains("integer") {
            if let integer = Int(text) { return .number(Double(integer)) }
            // Past a 64-bit integer: read as JSON reads it, so int64's range check refuses it.
            if text.count > 18, let value = JSONValue(parsing: Data(text.utf8)), case .number(let number) = value,
               text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") }) {
                return .number(number)
            }
        }
        if types.contains("number"), let number = Double(text), number.isFinite,
           text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") || $0 == UInt8(ascii: "+") }) {
            return .number(number)
        }
        if types.contains("boolean"), text == "true" || text == "false" { return .bool(text == "true") }
        return .string(text)
    }

    /// "$.a.b: reason" from the schema validator, as a violation.
    static func violation(_ problem: String) -> RequestViolation {
        guard let colon = problem.range(of: ": ") else { return RequestViolation(path: "$", reason: problem) }
        return RequestViolation(path: String(problem[..<colon.lowerBound]), reason: String(problem[colon.upperBound...]))
    }
}

extension MockRequest {
    /// The start of a body, for a violation's reason.
    static func preview(_ body: Data) -> String {
        let text = String(decoding: body.prefix(60), as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
        return "\"" + text + (body.count > 60 ? "…" : "") + "\""
    }
}

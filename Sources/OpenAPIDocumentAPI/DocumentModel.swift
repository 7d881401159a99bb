import Foundation
import MockCore

/// A loaded OpenAPI document, read once and shared by every engine that serves it: the
/// document as OpenAPI 3.1 JSON, its operations, where they are served, and what the mock
/// repaired, skipped or does not serve of it.
public final class OpenAPIDocument: Sendable {
    /// The file it was read from.
    public let file: String
    /// The document as OpenAPI 3.1 JSON (3.0 and Swagger 2.0 converted, external references
    /// resolved, mistakes repaired, parts that cannot be read left out): what
    /// `/__admin/openapi/NAME` serves and requests are checked against.
    public let json: JSONValue
    /// What the mock repaired, skipped and does not serve, each with its file and JSON pointer.
    public let notes: [DocumentNote]
    /// The notes as sentences (`pointer: what was done`), one each.
    public var warnings: [String] { notes.map(\.description) }
    /// The version the file declares (`2.0` for a Swagger document, converted).
    public let declaredVersion: String
    /// The paths its operations are served under (`servers`' paths; "" for the root).
    public let basePaths: [String]
    /// The host names of its absolute `servers` URLs, loopback names left out.
    public let hosts: [String]
    /// How many files were read for it (more than one for a split document).
    public let fileCount: Int
    /// The bytes of the files read for it.
    public let byteCount: Int

    /// How many operations it has (each answers).
    public var operationCount: Int { operations.count }

    /// Its operations, by path then method.
    public let operations: [DocumentOperation]
    let validator: SchemaValidator
    /// The document's checker, for `--strict` answers, shared by every engine serving it.
    let conformance: RequestConformance
    /// Collections and their items, as the paths say (`/pets`, `/pets/{id}`).
    let collections: [ResourceCollection]

    /// One operation's place among the routes: its index in `operations`, the base path it
    /// is served under, and its request pattern there.
    struct RouteEntry: Sendable {
        let operation: Int
        let base: String
        let pattern: RequestPattern
    }

    /// Every operation under each base path, concrete paths before templated ones, as
    /// OpenAPI reads them: made on first use and shared by every engine serving the
    /// document (a test target's servers each make their routes from it).
    var routeOrder: [RouteEntry] {
        routeOrderCache.withLock { cached in
            if let cached { return cached }
            var entries: [(literals: Int, entry: RouteEntry)] = []
            for base in basePaths {
                for (index, operation) in operations.enumerated() {
                    let pattern = operation.requestPattern(under: base)
                    let literals = (pattern.path?.description ?? "").split(separator: "/").filter { !$0.hasPrefix("{") && $0 != "*" }.count
                    entries.append((literals, RouteEntry(operation: index, base: base, pattern: pattern)))
                }
            }
            let made = entries.enumerated().sorted { ($0.element.literals, -$0.offset) > ($1.element.literals, -$1.offset) }.map(\.element.entry)
            cached = made
            return made
        }
    }

    private let routeOrderCache = Locked<[RouteEntry]?>(nil)

    /// A document of `json` (OpenAPI 3.1) as if read from `file`, with nothing repaired.
    convenience init(file: String, json: JSONValue) {
        self.init(file: file, json: json, notes: [], declaredVersion: json["openapi"]?.stringValue ?? "3.1.0", fileCount: 1, byteCount: 0)
    }

    init(file: String, json: JSONValue, notes loaded: [DocumentNote], declaredVersion: String, fileCount: Int, byteCount: Int) {
        self.file = file
        self.json = json
        self.declaredVersion = declaredVersion
        self.fileCount = fileCount
        self.byteCount = byteCount
        validator = SchemaValidator(document: json)
        basePaths = RequestConformance.basePaths(of: json)
        hosts = Self.hosts(of: json)
        var notes = loaded
        var operations: [DocumentOperation] = []
        for (path, item) in (json["paths"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            let item = validator.resolved(item)
            let shared = (item["parameters"]?.arrayValue ?? []).map(validator.resolved)
            for (method, operation) in (item.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) where RequestConformance.methods.contains(method) {
                let made = DocumentOperation(method: method.uppercased(), path: path, operation: operation, shared: shared,
                                             validator: validator, file: file, notes: &notes)
                operations.append(made)
            }
        }
        // Some documents key a second operation on one URL as `/items#variant`: no request's
        // path carries a fragment, so such an operation is never reached.
        for path in (json["paths"]?.objectValue ?? [:]).keys.sorted() where path.contains("#") {
            let url = String(path[..<path.firstIndex(of: "#")!])
            notes.append(DocumentNote(.notServed, file: file, pointer: JSONPointer.pointer(["paths", path]),
                                      "\(path): a request's path carries no fragment, so it reaches \(url), never this path's operations",
                                      group: "paths with a fragment (#…), which no request's path carries"))
        }
        if let webhooks = json["webhooks"]?.objectValue, !webhooks.isEmpty {
            notes.append(DocumentNote(.notServed, file: file, pointer: "/webhooks",
                                      "webhooks (\(webhooks.keys.sorted().joined(separator: ", "))) are not sent: the mock never calls out"))
        }
        self.operations = operations
        conformance = RequestConformance(documents: [json])
        for operation in operations {
            let pointer = JSONPointer.pointer(["paths", operation.path, operation.method.lowercased()])
            if !operation.security.alternatives.isEmpty, operation.response(for: 401) == nil, !operation.documents(403) {
                notes.append(DocumentNote(.undocumented, file: file, pointer: pointer,
                                          "\(operation.method) \(operation.path) asks for credentials and documents no 401; a request without them is answered 401",
                                          group: "operations asking for credentials that document no 401 answer 401"))
            }
            if operation.response(for: DocumentSimulator.rejectionStatus(operation)) == nil {
                notes.append(DocumentNote(.undocumented, file: file, pointer: pointer,
                                          "\(operation.method) \(operation.path) documents neither 400, 422, 4XX nor default; with --strict a request that breaks the document is answered 400",
                                          group: "operations documenting no answer to a bad request answer it 400 (--strict)"))
            }
        }
        collections = ResourceCollection.infer(operations, validator: validator)
        for collection in collections {
            for operation in operations where operation.path == collection.itemPath && MissingItem.status(for: operation) == nil {
                notes.append(DocumentNote(.undocumented, file: file, pointer: JSONPointer.pointer(["paths", operation.path, operation.method.lowercased()]),
                                          "\(operation.method) \(operation.path) documents no 4xx; a missing item is answered 404",
                                          group: "operations documenting no 4xx answer a missing item 404"))
            }
        }
        self.notes = notes
    }

    private static func hosts(of json: JSONValue) -> [String] {
        var hosts: [String] = []
        for server in json["servers"]?.arrayValue ?? [] {
            guard var url = server["url"]?.stringValue, url.contains("://") else { continue }
            for (name, variable) in server["variables"]?.objectValue ?? [:] {
                url = url.replacingOccurrences(of: "{\(name)}", with: variable["default"]?.stringValue ?? "")
            }
            guard let host = URLComponents(string: url)?.host?.lowercased(), !host.isEmpty,
                  !["localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0"].contains(host), !hosts.contains(host) else { continue }
            hosts.append(host)
        }
        return hosts
    }
}

/// One operation of the document, with its answers sorted out once.
public struct DocumentOperation: Sendable {
    /// `GET`, `POST`, … in upper case.
    public let method: String
    /// The path template as the document writes it (`/pets/{id}`), without the servers' path.
    public let path: String
    /// `operationId`, else `METHOD path`: the route's name in the journal
    /// (`routeName(api:)`) and the operation's name in contract checks.
    public let name: String
    let responses: [DocumentResponse]
    /// The response answered when the request prefers none (the lowest 2xx, else `default`, else the lowest).
    let primary: Int?
    /// The operation's query parameters by name (path item's included).
    let queryParameters: [String: JSONValue]
    let requestSchema: JSONValue?
    /// Whether the request body's schema has a boolean `stream` field (a streaming LLM
    /// API's way to ask for events).
    let asksForStreams: Bool
    /// Whether a response documents a `text/event-stream` body.
    let streams: Bool
    /// The credentials it asks for.
    let security: SecurityRequirements

    init(method: String, path: String, operation: JSONValue, shared: [JSONValue], validator: SchemaValidator,
         file: String, notes: inout [DocumentNote]) {
        self.method = method
        self.path = path
        let name = operation["operationId"]?.stringValue ?? "\(method) \(path)"
        self.name = name
        let parameters = shared + (operation["parameters"]?.arrayValue ?? []).map(validator.resolved)
        var query: [String: JSONValue] = [:]
        for parameter in parameters where parameter["in"] == "query" {
            if let parameterName = parameter["name"]?.stringValue { query[parameterName] = validator.resolved(parameter["schema"] ?? [:]) }
        }
        queryParameters = query
        security = SecurityRequirements(operation: operation, document: validator.document, validator: validator)
        let body = operation["requestBody"].map(validator.resolved)
        requestSchema = (body?["content"]?.objectValue ?? [:]).first { DocumentResponse.isJSON($0.key) }?.value["schema"]
        asksForStreams = requestSchema.flatMap { Schemas.properties($0, validator: validator)["stream"] }
            .map { validator.conforms(.bool(true), to: $0) } ?? false
        let pointer = JSONPointer.pointer(["paths", path, method.lowercased()])
        if let callbacks = operation["callbacks"]?.objectValue, !callbacks.isEmpty {
            notes.append(DocumentNote(.notServed, file: file, pointer: pointer + "/callbacks",
                                      "\(method) \(path): callbacks (\(callbacks.keys.sorted().joined(separator: ", "))) are not made: the mock never calls out",
                                      group: "callbacks are not made: the mock never calls out"))
        }
        var responses: [DocumentResponse] = []
        var streams = false
        for (code, response) in (operation["responses"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            var made = DocumentResponse(code: code, response: validator.resolved(response), validator: validator)
            let responsePointer = pointer + "/responses/" + JSONPointer.escape(code)
            if !made.contents.isEmpty, made.contents.allSatisfy({ $0.isXML }) {
                notes.append(DocumentNote(.notServed, file: file, pointer: responsePointer,
                                          "\(method) \(path) \(code): an XML-only body (\(made.contents.map(\.type).joined(separator: ", "))) is answered with its example text or empty",
                                          group: "an XML-only body is answered with its example text or empty"))
            }
            for (index, content) in made.contents.enumerated() {
                for (exampleName, value) in content.examples {
                    guard let schema = content.schema, content.isJSON else { continue }
                    if let first = validator.firstProblem(value, against: schema) {
                        made.contents[index].brokenExamples.insert(exampleName)
                        notes.append(DocumentNote(.notServed, file: file, pointer: responsePointer + "/content/" + JSONPointer.escape(content.type),
                                                  "\(method) \(path) \(code) \(content.type): the example \"\(exampleName)\" breaks its schema (\(first)); a value made from the schema is answered instead (Prefer: example=\(Prefer.word(exampleName)) answers it as written)",
                                                  group: "an example that breaks its schema is answered only when asked for by name"))
                    }
                }
                for name in content.unreadableExamples {
                    notes.append(DocumentNote(.skipped, file: file, pointer: responsePointer + "/content/" + JSONPointer.escape(content.type) + "/examples/" + JSONPointer.escape(name),
                                              "\(method) \(path) \(code) \(content.type): the example \"\(name)\" cannot be read (no value, or a $ref naming nothing); skipped",
                                              group: "an example that cannot be read skipped"))
                }
                if content.isEventStream {
                    streams = true
                    let place = responsePointer + "/content/" + JSONPointer.escape(content.type)
                    let shape = DocumentEventStream.shape(of: content, validator: validator)
                    if case .text = shape, content.examples.isEmpty {
                        notes.append(DocumentNote(.undocumented, file: file, pointer: place,
                                                  "\(method) \(path) \(code) \(content.type) has no itemSchema, schema or example; its events carry text",
                                                  group: "event streams without an event schema carry text events"))
                    }
                    for (exampleName, value) in content.examples {
                        guard let events = DocumentEventStream.events(of: value, shape: shape) else {
                            made.contents[index].brokenExamples.insert(exampleName)
                            notes.append(DocumentNote(.skipped, file: file, pointer: place,
                                                      "\(method) \(path) \(code) \(content.type): the example \"\(exampleName)\" holds no events; events are made from the schema",
                                                      group: "an event stream's example that holds no events skipped"))
                            continue
                        }
                        let broken = events.enumerated().lazy.compactMap { offset, event in
                            DocumentEventStream.problems(of: event, shape: shape, validator: validator).first.map { (offset, $0) }
                        }.first
                        if let (offset, problem) = broken {
                            made.contents[index].brokenExamples.insert(exampleName)
                            notes.append(DocumentNote(.notServed, file: file, pointer: place,
                                                      "\(method) \(path) \(code) \(content.type): event \(offset + 1) of the example \"\(exampleName)\" breaks its event schema (\(problem)); events are made from the schema instead (Prefer: example=\(Prefer.word(exampleName)) answers it as written)",
                                                      group: "an example that breaks its schema is answered only when asked for by name"))
                        }
                    }
                }
                if content.externalExamples > 0 {
                    notes.append(DocumentNote(.notServed, file: file, pointer: responsePointer + "/content/" + JSONPointer.escape(content.type),
                                              "\(method) \(path) \(code) \(content.type): \(content.externalExamples) example(s) by externalValue are not fetched",
                                              group: "examples by externalValue are not fetched"))
                }
            }
            responses.append(made)
        }
        self.responses = responses
        self.streams = streams
        let successes = responses.indices.filter { (200...299).contains(responses[$0].status) && !responses[$0].isRange }
        if let lowest = successes.min(by: { responses[$0].status < responses[$1].status }) {
            primary = lowest
        } else if let range = responses.firstIndex(where: { $0.code.uppercased() == "2XX" }) {
            primary = range
        } else if let fallback = responses.firstIndex(where: { $0.code == "default" }) {
            primary = fallback
        } else {
            primary = responses.indices.min { responses[$0].status < responses[$1].status }
        }
    }

    /// The documented response for `status` (its code, its range `4XX`, or `default`).
    func response(for status: Int) -> Int? {
        responses.firstIndex { $0.code == String(status) }
            ?? responses.firstIndex { $0.code.uppercased() == "\(status / 100)XX" }
            ?? responses.firstIndex { $0.code == "default" }
    }

    /// Whether the document names this exact status (not through a range or `default`).
    func documents(_ status: Int) -> Bool { responses.contains { $0.code == String(status) } }
}

/// One documented response: its status, bodies by media type, and headers.
struct DocumentResponse: Sendable {
    struct Content: Sendable {
        let type: String
        let schema: JSONValue?
        /// OpenAPI 3.2's schema of each item of a sequential media type (an event of
        /// `text/event-stream`).
        var itemSchema: JSONValue? = nil
        /// The media type's `example`, then its `examples` by name (JSON objects keep no order).
        let examples: [(name: String, value: JSONValue)]
        let externalExamples: Int
        /// The names of examples that cannot be read (a `$ref` naming nothing, no `value`).
        var unreadableExamples: [String] = []
        /// The names of examples that break the schema: not answered unless asked for by name.
        var brokenExamples: Set<String> = []
        /// The example answered when none is asked for: the first that keeps the schema.
        var servedExample: (name: String, value: JSONValue)? { examples.first { !brokenExamples.contains($0.name) } }
        var isJSON: Bool { DocumentResponse.isJSON(type) }
        /// Whether it is a Server-Sent Events stream (`text/event-stream`).
        var isEventStream: Bool { type.lowercased().hasPrefix("text/event-stream") }
        var isXML: Bool { type.lowercased().contains("xml") }
    }

    struct Header: Sendable {
        let name: String
        let schema: JSONValue
        let example: JSONValue?
    }

    let code: String
    /// The status answered: the code, a range's first (`4XX` is 400), `default`'s 200.
    let status: Int
    let isRange: Bool
    var contents: [Content]
    let headers: [Header]

    init(code: String, response: JSONValue, validator: SchemaValidator) {
        self.code = code
        if let number = Int(code) {
            status = number
            isRange = false
        } else if code.count == 3, code.uppercased().hasSuffix("XX"), let first = Int(code.prefix(1)) {
            status = first * 100
            isRange = true
        } else {
            status = 200
            isRange = true
        }
        var contents: [Content] = []
        for (type, media) in response["content"]?.objectValue ?? [:] {
            var examples: [(name: String, value: JSONValue)] = []
            var external = 0
            var unreadable: [String] = []
            if let example = media["example"] { examples.append((name: "example", value: example)) }
            let named = media["examples"]?.objectValue ?? [:]
            for exampleName in named.keys.sorted() {
                guard let entry = named[exampleName].map(validator.resolved) else { continue }
                if let value = entry["value"] {
                    examples.append((name: exampleName, value: value))
                } else if entry["externalValue"] != nil {
                    external += 1
                } else {
                    unreadable.append(exampleName)
                }
            }
            contents.append(Content(type: type, schema: media["schema"], itemSchema: media["itemSchema"], examples: examples,
                                    externalExamples: external, unreadableExamples: unreadable))
        }
        // JSON first, then other types, each group by name: the order a client that
        // accepts anything gets them in.
        self.contents = contents.sorted { ($0.isJSON ? 0 : 1, $0.type) < ($1.isJSON ? 0 : 1, $1.type) }
        headers = (response["headers"]?.objectValue ?? [:]).sorted { $0.key < $1.key }.compactMap { name, header in
            let header = validator.resolved(header)
            guard name.lowercased() != "content-type" else { return nil }
            let schema = header["schema"] ?? ["type": "string"]
            return Header(name: name, schema: schema, example: header["example"] ?? header["examples"]?.objectValue?.values.first?["value"])
        }
    }

    static func isJSON(_ type: String) -> Bool {
        let lowered = type.lowercased()
        return lowered == "application/json" || lowered.hasSuffix("+json") || lowered == "*/*" || lowered.hasPrefix("application/json;")
    }
}

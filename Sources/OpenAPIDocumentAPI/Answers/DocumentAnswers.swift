import Foundation
import MockCore

/// Builds the documented answers of one engine's document API: the chosen response's
/// example or a value made from its schema, its headers, and its media type.
struct DocumentAnswers: Sendable {
    let document: OpenAPIDocument
    let seed: UInt64
    /// What the engine multiplies delays by: an event stream's are scaled by it.
    let timeScale: Double
    /// Bodies made from schemas, by operation, response and media type: made once per
    /// engine, so the same request gets the same body (bounded by the document's size).
    private let made = Locked([String: JSONValue]())
    /// Draws for `Prefer: dynamic=true`, a new value each time.
    private let dynamic: Locked<SeededRandom>

    init(document: OpenAPIDocument, seed: UInt64, timeScale: Double = 1) {
        self.document = document
        self.seed = seed
        self.timeScale = timeScale
        dynamic = Locked(SeededRandom(seed: seed, stream: "document-api.dynamic"))
    }

    /// A chosen response: where it is in the operation, the status and the body value.
    struct Chosen {
        let response: DocumentResponse
        let status: Int
        let content: DocumentResponse.Content?
        var body: JSONValue?
        /// The events of a `text/event-stream` content, written in place of a body.
        var events: EventStream? = nil
    }

    /// The response `prefer` names, else the operation's main one; a plan when the
    /// request names what the document does not have.
    func choose(_ operation: DocumentOperation, _ prefer: Prefer, _ request: MockRequest) -> Result<Chosen, ResponsePlanBox> {
        var index = operation.primary
        var status = index.map { operation.responses[$0].status } ?? 200
        if let code = prefer.code {
            guard let found = operation.response(for: code) else {
                return .failure(ResponsePlanBox(.error(400, "Prefer: code=\(code) names no response of \(operation.method) \(operation.path); it documents \(operation.responses.map(\.code).joined(separator: ", "))")))
            }
            index = found
            status = code
        }
        if let example = prefer.example, prefer.code == nil {
            // The main response's example of that name, else the first response that has one.
            let order = [index].compactMap { $0 } + operation.responses.indices.filter { $0 != index }
            if let found = order.first(where: { operation.responses[$0].contents.contains { $0.examples.contains { $0.name == example } } }) {
                index = found
                status = operation.responses[found].status
            }
        }
        guard let index else { return .success(Chosen(response: DocumentResponse.empty, status: 200, content: nil, body: nil)) }
        let response = operation.responses[index]
        let content = Self.eventStream(of: response, for: request, operation: operation)
            ?? Self.content(of: response, accepting: request.headers["Accept"], example: prefer.example, leavingOutStreams: operation.streams)
        var chosen = Chosen(response: response, status: status, content: content, body: nil)
        guard let content else { return .success(chosen) }
        if content.isEventStream {
            return eventStream(content, &chosen, operation, prefer)
        }
        if let example = prefer.example {
            guard let found = content.examples.first(where: { $0.name == example }) else {
                let known = operation.responses.flatMap { $0.contents.flatMap { $0.examples.map(\.name) } }
                return .failure(ResponsePlanBox(.error(400, "Prefer: example=\(Prefer.word(example)) names no example of \(operation.method) \(operation.path); it has \(known.isEmpty ? "none" : known.joined(separator: ", "))")))
            }
            chosen.body = found.value
        } else if !prefer.dynamic, let first = content.servedExample {
            chosen.body = first.value
        } else if let schema = content.schema {
            chosen.body = prefer.dynamic ? dynamicValue(schema) : value(schema, key: "\(operation.method) \(operation.path) \(response.code) \(content.type)")
        }
        return .success(chosen)
    }

    /// `chosen` with the events of its `text/event-stream` content: the example `prefer`
    /// names (as written, even when it breaks the schema), else the first that keeps the
    /// schema (unless `Prefer: dynamic=true`), else events made from the schema, the same
    /// for the same seed (`DocumentEventStream`).
    private func eventStream(_ content: DocumentResponse.Content, _ chosen: inout Chosen, _ operation: DocumentOperation,
                             _ prefer: Prefer) -> Result<Chosen, ResponsePlanBox> {
        var example: JSONValue?
        if let name = prefer.example {
            guard let found = content.examples.first(where: { $0.name == name }) else {
                return .failure(ResponsePlanBox(.error(400, "Prefer: example=\(Prefer.word(name)) names no example of \(operation.method) \(operation.path) \(chosen.response.code) \(content.type); it has \(content.examples.isEmpty ? "none" : content.examples.map(\.name).joined(separator: ", "))")))
            }
            example = found.value
        } else if !prefer.dynamic {
            example = content.servedExample?.value
        }
        var random = prefer.dynamic
            ? dynamic.withLock { SeededRandom(seed: $0.next()) }
            : SeededRandom(seed: seed, stream: "\(operation.method) \(operation.path) \(chosen.response.code) \(content.type) events")
        chosen.events = DocumentEventStream(validator: document.validator, document: document.json)
            .stream(content, example: example, using: &random)
        return .success(chosen)
    }

    /// The response's `text/event-stream` content when the request asks for a stream
    /// (`asksForEventStream(_:_:)`). This is where a documented stream is chosen.
    static func eventStream(of response: DocumentResponse, for request: MockRequest, operation: DocumentOperation) -> DocumentResponse.Content? {
        guard let stream = response.contents.first(where: \.isEventStream), asksForEventStream(operation, request) else { return nil }
        return stream
    }

    /// Whether `request` asks `operation` (one that documents a `text/event-stream` answer)
    /// for a stream: by its own boolean `stream: true` where the operation's request schema
    /// has such a field (as streaming LLM APIs do), or by accepting `text/event-stream`
    /// (`Accept`, at a quality above 0) unless its body says `stream: false`.
    static func asksForEventStream(_ operation: DocumentOperation, _ request: MockRequest) -> Bool {
        guard operation.streams else { return false }
        let flag = operation.asksForStreams ? JSONValue(parsing: request.body)?["stream"] : nil
        if flag == .bool(true) { return true }
        guard flag != .bool(false), let accept = request.headers["Accept"] else { return false }
        return accept.split(separator: ",").contains { range in
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == "text/event-stream" else { return false }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return quality > 0
        }
    }

    /// The content a client accepting `accept` gets (the example's media type when one is named).
    /// `leavingOutStreams`: the request did not ask for a stream, so a `text/event-stream`
    /// content is chosen only when the response documents nothing else.
    static func content(of response: DocumentResponse, accepting accept: String?, example: String?,
                        leavingOutStreams: Bool = false) -> DocumentResponse.Content? {
        var response = response
        if leavingOutStreams, response.contents.contains(where: { !$0.isEventStream }) { response.contents.removeAll(where: \.isEventStream) }
        if let example, let holding = response.contents.first(where: { $0.examples.contains { $0.name == example } }) { return holding }
        let accepted = (accept ?? "").split(separator: ",").map { $0.split(separator: ";")[0].trimmingCharacters(in: .whitespaces).lowercased() }
        for type in accepted where type != "*/*" && !type.isEmpty {
            if let match = response.contents.first(where: { $0.type.lowercased() == type || (type.hasSuffix("/*") && $0.type.lowercased().hasPrefix(type.dropLast())) }) {
                return match
            }
        }
        return response.contents.first
    }

    /// A value of `schema`, made once per engine for `key`.
    func value(_ schema: JSONValue, key: String) -> JSONValue {
        if let known = made.withLock({ $0[key] }) { return known }
        var random = SeededRandom(seed: seed, stream: key)
        let value = SchemaSampler(document: document.json).sample(schema, using: &random)
        made.withLock { $0[key] = value }
        return value
    }

    /// A value of `schema` drawn from a generator seeded with the engine's seed and
    /// `stream`: the same each time for the same stream, and not kept (for values made per
    /// stored item).
    func sample(_ schema: JSONValue, stream: String) -> JSONValue {
        var random = SeededRandom(seed: seed, stream: stream)
        return SchemaSampler(document: document.json).sample(schema, using: &random)
    }

    private func dynamicValue(_ schema: JSONValue) -> JSONValue {
        var random = dynamic.withLock { generator -> SeededRandom in
            let split = SeededRandom(seed: generator.next())
            return split
        }
        return SchemaSampler(document: document.json).sample(schema, using: &random)
    }

    /// The plan of a chosen response: its status, media type, headers and body.
    func plan(_ chosen: Chosen, _ request: MockRequest) -> ResponsePlan {
        var headers = HeaderFields()
        for header in chosen.response.headers {
            let value = header.example ?? self.value(header.schema, key: "header \(header.name) \(header.schema)")
            headers.add(header.name, Self.text(value))
        }
        guard let content = chosen.content, chosen.status != 204, chosen.status != 304 else {
            return ResponsePlan(status: chosen.status, headers: headers)
        }
        if let events = chosen.events {
            // Server-Sent Events: the head now, each event when it is due.
            let type = content.type.contains(";") ? content.type : EventStream.defaultHeaders[0].value
            headers.set("Content-Type", type)
            for field in EventStream.defaultHeaders where !headers.contains(field.name) { headers.add(field.name, field.value) }
            var plan = ResponsePlan(status: chosen.status, headers: headers)
            plan.eventStream = events.scaled(by: timeScale)
            return plan
        }
        let type = content.type == "*/*" ? "application/json" : content.type
        headers.set("Content-Type", content.isJSON ? (type.contains("charset") ? type : type + "; charset=utf-8") : type)
        let body: Data
        switch chosen.body {
        case nil: body = Data()
        case .string(let text)? where !content.isJSON: body = Data(text.utf8)
        case let value?: body = content.isJSON || !content.isXML ? JSONCoding.encode(value) : Data()
        }
        return ResponsePlan(status: chosen.status, headers: headers, body: body)
    }

    /// A header's value as text: strings as they are, anything else as JSON.
    static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return text
        case .array(let items): return items.map(text).joined(separator: ",")
        default: return value.description
        }
    }
}

/// A plan carried through a `Result`'s failure.
struct ResponsePlanBox: Error {
    let plan: ResponsePlan
    init(_ plan: ResponsePlan) { self.plan = plan }
}

extension DocumentResponse {
    /// The answer of an operation that documents none.
    static let empty = DocumentResponse(code: "200", response: [:], validator: SchemaValidator(document: [:]))
}

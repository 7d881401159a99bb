import Foundation
import MockCore

/// The events of a documented `text/event-stream` answer, made from the document: its
/// example when it has one, else values of its event schema. The stream is a plain
/// ``EventStream``; the engine's transports play it (each event when it is due, the
/// scenario's stream faults and network profiles applied) as they play a scenario's.
///
/// Where the events come from, first found:
/// - the media type's example (`Prefer: example=NAME` names one): text in the event stream
///   format is split into its events; a list holds one event each (event objects where the
///   document gives an `itemSchema`, else each one's `data`); any other value is one event;
/// - OpenAPI 3.2's `itemSchema` of the sequential media type, an event object of `event`,
///   `data`, `id` and `retry`: each field sampled from its schema, and `data` made from its
///   `contentSchema` (written as JSON) where it has one;
/// - the media type's `schema` (OpenAPI 3.0 and 3.1 documents): each event's `data` a value
///   of it, written as JSON, or text for a string schema. A schema of an event object's
///   fields alone (`data` beside `event`, `id` or `retry`) is read as an `itemSchema`.
///
/// A made stream has ``eventCounts`` events (a `oneOf` schema's branch drawn for each), an
/// example's as many as it has; the first is written at once, each later one a delay in
/// ``delays`` after the one before. Counts, branches, values and delays are drawn from a
/// generator seeded with the engine's seed and the operation: the same seed plays the same
/// stream. The stream ends cleanly after its last event.
struct DocumentEventStream: Sendable {
    /// How many events a stream made from a schema has.
    static let eventCounts = 3...8
    /// The pause before each event after the first, in seconds (before the engine's time scale).
    static let delays = 0.02...0.12

    let validator: SchemaValidator
    let document: JSONValue

    /// The schema a made event's `data` keeps, and how the events are made.
    enum Shape {
        /// An event object (`itemSchema`, or a `schema` of its fields).
        case eventObject(JSONValue)
        /// Each event's `data` is a value of the schema: JSON, or text for a string schema.
        case data(JSONValue)
        /// Nothing says: text data.
        case text
    }

    static func shape(of content: DocumentResponse.Content, validator: SchemaValidator) -> Shape {
        if let item = content.itemSchema { return .eventObject(item) }
        guard let schema = content.schema else { return .text }
        let names = Set(Schemas.properties(schema, validator: validator).keys)
        if names.contains("data"), names.count > 1, names.isSubset(of: ["event", "data", "id", "retry"]) { return .eventObject(schema) }
        return .data(schema)
    }

    /// The stream of `content`: `example`'s events when given (nil when it holds none),
    /// else made from the schema with `random`.
    func stream(_ content: DocumentResponse.Content, example: JSONValue?, using random: inout SeededRandom) -> EventStream {
        let shape = Self.shape(of: content, validator: validator)
        var events = example.flatMap { Self.events(of: $0, shape: shape) } ?? []
        if events.isEmpty {
            let count = Self.eventCounts.lowerBound + Int(random.next() % UInt64(Self.eventCounts.count))
            events = (0..<count).map { _ in made(shape, using: &random) }
        }
        for index in events.indices.dropFirst() {
            events[index].delay = Self.delays.lowerBound + random.nextUnit() * (Self.delays.upperBound - Self.delays.lowerBound)
        }
        return EventStream(events)
    }

    // MARK: From examples

    /// The events an example gives, nil when it gives none.
    static func events(of example: JSONValue, shape: Shape) -> [ServerSentEvent]? {
        let events: [ServerSentEvent]
        switch (example, shape) {
        case (.string(let text), _):
            events = parse(text)
        case (.array(let items), .eventObject):
            events = items.compactMap(eventObject)
        case (.array(let items), .data(let schema)) where !isArraySchema(schema):
            events = items.map(dataEvent)
        case (_, .eventObject):
            events = eventObject(example).map { [$0] } ?? []
        default:
            events = [dataEvent(example)]
        }
        return events.isEmpty ? nil : events
    }

    private static func isArraySchema(_ schema: JSONValue) -> Bool {
        schema["type"].map { SchemaValidator.typeNames($0).contains("array") } ?? false
    }

    private static func dataEvent(_ value: JSONValue) -> ServerSentEvent {
        if case .string(let text) = value { return ServerSentEvent(data: .text(text)) }
        return ServerSentEvent(data: .json(value))
    }

    /// An event object's fields as an event: `data` as text when it is a string, else as
    /// JSON; nil for anything but an object with at least one of the fields.
    static func eventObject(_ value: JSONValue) -> ServerSentEvent? {
        guard case .object(let fields) = value, fields.keys.contains(where: { ["event", "data", "id", "retry"].contains($0) }) else { return nil }
        var event = ServerSentEvent()
        event.event = fields["event"].flatMap(fieldText)
        event.id = fields["id"].flatMap(fieldText)
        event.retry = fields["retry"]?.intValue
        switch fields["data"] {
        case nil, .null?: event.data = nil
        case .string(let text)?: event.data = .text(text)
        case let value?: event.data = .json(value)
        }
        return event
    }

    /// Text a field (`event`, `id`) can carry: a string or a number, without line breaks.
    private static func fieldText(_ value: JSONValue) -> String? {
        let text: String
        switch value {
        case .string(let string): text = string
        case .number: text = value.description
        default: return nil
        }
        return ServerSentEvent.fieldProblem(text) == nil ? text : nil
    }

    /// The events of text in the event stream format (WHATWG HTML, "Interpreting an event
    /// stream"): lines of `field: value` up to an empty line, `data` lines joined with LF,
    /// comments (`:`) and unknown fields left out. An event with no fields but a comment is
    /// left out; text that does not end with an empty line still ends its last event.
    static func parse(_ text: String) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        var current = ServerSentEvent()
        var data: [String] = []
        var started = false
        func dispatch() {
            if !data.isEmpty { current.data = .text(data.joined(separator: "\n")) }
            if started { events.append(current) }
            current = ServerSentEvent()
            data = []
            started = false
        }
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines {
            if line.isEmpty {
                dispatch()
                continue
            }
            if line.hasPrefix(":") { continue }
            let name: Substring
            var value: Substring
            if let colon = line.firstIndex(of: ":") {
                name = line[..<colon]
                value = line[line.index(after: colon)...]
                if value.hasPrefix(" ") { value = value.dropFirst() }
            } else {
                (name, value) = (line, "")
            }
            switch name {
            case "event": current.event = String(value)
            case "data": data.append(String(value))
            case "id" where !value.contains("\u{0}"): current.id = String(value)
            case "retry": if let milliseconds = Int(value), milliseconds >= 0 { current.retry = milliseconds } else { continue }
            default: continue
            }
            started = true
        }
        dispatch()
        return events
    }

    // MARK: From schemas

    private var sampler: SchemaSampler { SchemaSampler(document: document) }

    /// One event made from `shape`.
    private func made(_ shape: Shape, using random: inout SeededRandom) -> ServerSentEvent {
        switch shape {
        case .text:
            return ServerSentEvent(data: .text(sampler.sample(["type": "string"], using: &random).stringValue ?? ""))
        case .data(let schema):
            return Self.dataEvent(value(branch(of: schema, using: &random), whole: schema, using: &random))
        case .eventObject(let schema):
            let chosen = branch(of: schema, using: &random)
            let properties = Schemas.properties(chosen, validator: validator)
            var fields = value(chosen, whole: schema, using: &random).objectValue ?? [:]
            if let dataSchema = properties["data"].map(validator.resolved), let content = dataSchema["contentSchema"],
               dataSchema["contentMediaType"].map({ DocumentResponse.isJSON($0.stringValue ?? "") }) ?? true {
                fields["data"] = value(content, whole: content, using: &random)
            } else if fields["data"] == nil, let dataSchema = properties["data"] {
                // An event without data is not dispatched: a made one always has some.
                fields["data"] = sampler.sample(dataSchema, using: &random)
            }
            return Self.eventObject(.object(fields)) ?? ServerSentEvent(data: .text(""))
        }
    }

    /// One branch of a `oneOf`/`anyOf` schema, drawn, so a stream's events vary in kind;
    /// the schema itself when it has none.
    private func branch(of schema: JSONValue, using random: inout SeededRandom) -> JSONValue {
        let resolved = validator.resolved(schema)
        guard let branches = (resolved["oneOf"] ?? resolved["anyOf"])?.arrayValue, !branches.isEmpty else { return schema }
        let candidates = branches.filter { validator.resolved($0)["type"] != .string("null") }
        let pool = candidates.isEmpty ? branches : candidates
        return pool[Int(random.next() % UInt64(pool.count))]
    }

    /// A value of `part` that keeps `whole` (the schema it is a branch of), else one of `whole`.
    private func value(_ part: JSONValue, whole: JSONValue, using random: inout SeededRandom) -> JSONValue {
        let sampler = self.sampler
        let drawn = sampler.sample(part, using: &random)
        guard part != whole, !validator.conforms(drawn, to: whole) else { return drawn }
        return sampler.sample(whole, using: &random)
    }
}

extension DocumentEventStream {
    /// What is wrong with `event` by the event schema of `shape`, as the validator words it;
    /// empty when it keeps it. An event object is checked as the object of its fields
    /// (`data` as the text it carries), and JSON data also against its `contentSchema`.
    static func problems(of event: ServerSentEvent, shape: Shape, validator: SchemaValidator) -> [String] {
        switch shape {
        case .text:
            return []
        case .data(let schema):
            switch event.data {
            case nil: return ["the event has no data"]
            case .json(let value)?: return validator.problems(value, against: schema)
            case let payload?:
                let text = payload.content
                let isText = validator.resolved(schema)["type"].map { SchemaValidator.typeNames($0).contains("string") } ?? false
                return validator.problems(isText ? .string(text) : JSONValue(parsing: Data(text.utf8)) ?? .string(text), against: schema)
            }
        case .eventObject(let schema):
            var fields: [String: JSONValue] = [:]
            if let name = event.event { fields["event"] = .string(name) }
            if let id = event.id { fields["id"] = .string(id) }
            if let retry = event.retry { fields["retry"] = .number(Double(retry)) }
            if let data = event.data { fields["data"] = .string(data.content) }
            let object = JSONValue.object(fields)
            let found = validator.problems(object, against: schema)
            guard found.isEmpty else { return found }
            // The branch the event keeps names the schema of its data.
            let resolved = validator.resolved(schema)
            let branches = (resolved["oneOf"] ?? resolved["anyOf"])?.arrayValue ?? [schema]
            let kept = branches.first { validator.conforms(object, to: $0) } ?? schema
            guard let dataSchema = Schemas.properties(kept, validator: validator)["data"].map(validator.resolved),
                  let content = dataSchema["contentSchema"], let data = event.data,
                  dataSchema["contentMediaType"].map({ DocumentResponse.isJSON($0.stringValue ?? "") }) ?? true else { return [] }
            guard let value = JSONValue(parsing: Data(data.content.utf8)) else { return ["$.data: not JSON, where its contentSchema asks for JSON"] }
            return validator.problems(value, against: content, at: "$.data")
        }
    }
}

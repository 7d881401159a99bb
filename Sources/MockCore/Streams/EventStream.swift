import Foundation

/// A Server-Sent Events answer (`text/event-stream`): events, each after its delay,
/// played once, a number of times, or without end (a ticker) until the client goes.
/// A plain value: ``EventStreamPlayer`` turns it into timed writes, and a transport
/// carries them out.
public struct EventStream: Sendable, Hashable {
    /// How often the list of events is played.
    public enum Repetition: Sendable, Hashable {
        /// Once through the list.
        case once
        /// The list this many times in a row (1 is once).
        case times(Int)
        /// The list again and again until the client goes: a ticker.
        case forever

        /// Rounds through the list, nil for without end.
        public var rounds: Int? {
            switch self {
            case .once: return 1
            case .times(let count): return max(0, count)
            case .forever: return nil
            }
        }
    }

    /// The events of one round, in order.
    public var events: [ServerSentEvent]
    /// How often the list is played.
    public var repetition: Repetition
    /// Events without an `id` get their place in the played stream (1, 2, 3, … across
    /// rounds), so a client that reconnects with `Last-Event-ID` resumes after any of them.
    public var autoIDs: Bool
    /// After the last event the response stays open (no more events) until the client
    /// goes, as most live feeds do; otherwise it ends.
    public var keepOpen: Bool

    /// Makes a stream of `events` played `repetition` times; `autoIDs` numbers events without
    /// an `id`, and `keepOpen` keeps the response open after the last event.
    public init(_ events: [ServerSentEvent], repetition: Repetition = .once, autoIDs: Bool = false, keepOpen: Bool = false) {
        self.events = events
        self.repetition = repetition
        self.autoIDs = autoIDs
        self.keepOpen = keepOpen
    }

    /// The header fields an event stream answers with unless a stub gives its own.
    public static let defaultHeaders: [(name: String, value: String)] = [
        ("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-cache"),
    ]

    /// Events in all, nil for without end.
    public var count: Int? { repetition.rounds.map { $0 * events.count } }

    /// Seconds one round takes by its delays alone.
    public var roundDuration: TimeInterval { events.reduce(0) { $0 + max(0, $1.delay) } }

    /// The stream with every delay multiplied by `scale`.
    public func scaled(by scale: Double) -> EventStream {
        guard scale != 1 else { return self }
        var copy = self
        for index in copy.events.indices { copy.events[index].delay *= scale }
        return copy
    }

    /// Whether any event's data is a template (filled per request by ``rendered(_:)``).
    public var isTemplated: Bool { events.contains { if case .template = $0.data { return true } else { return false } } }

    /// The stream with every templated `data` filled from `context`, in event order.
    public func rendered(_ context: inout ResponseTemplate.Context) -> EventStream {
        guard isTemplated else { return self }
        var copy = self
        for index in copy.events.indices {
            if case .template(let template, let json) = copy.events[index].data {
                copy.events[index].data = .text(template.render(&context, escaping: json ? .json : .none))
            }
        }
        return copy
    }
}

/// One server-sent event, in the WHATWG HTML standard's fields.
public struct ServerSentEvent: Sendable, Hashable {
    /// What an event's `data` lines carry.
    public enum Payload: Sendable, Hashable {
        /// Text; each of its lines is a `data:` line (CR LF, CR and LF all end a line, and
        /// a client joins them with LF).
        case text(String)
        /// A JSON value, written compactly on one `data:` line.
        case json(JSONValue)
        /// Text with `{{…}}` holes filled per request (``ResponseTemplate``); `json`: the
        /// text is JSON, so filled-in values are escaped for it.
        case template(ResponseTemplate, json: Bool)

        /// The text the `data:` lines carry.
        public var content: String {
            switch self {
            case .text(let text): return text
            case .json(let value): return String(decoding: JSONCoding.encode(value), as: UTF8.self)
            case .template(let template, _): return template.source
            }
        }
    }

    /// The event type (`event:`); nil for the default, `message`.
    public var event: String?
    /// The data; an event without any is not dispatched by a client (it can still set the
    /// last event ID or the retry time).
    public var data: Payload?
    /// The event ID (`id:`) a client sends back as `Last-Event-ID` when it reconnects.
    public var id: String?
    /// The reconnection time a client should use, milliseconds (`retry:`).
    public var retry: Int?
    /// A comment line (`: …`), which clients ignore: a keep-alive.
    public var comment: String?
    /// Seconds to wait before this event, after the previous one (or the response head).
    public var delay: TimeInterval

    /// Makes an event; every field is optional, and `delay` is seconds after the previous event.
    public init(event: String? = nil, data: Payload? = nil, id: String? = nil, retry: Int? = nil, comment: String? = nil,
                delay: TimeInterval = 0) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
        self.comment = comment
        self.delay = delay
    }

    /// An event with text data.
    public static func text(_ text: String, event: String? = nil, id: String? = nil, delay: TimeInterval = 0) -> ServerSentEvent {
        ServerSentEvent(event: event, data: .text(text), id: id, delay: delay)
    }

    /// An event with JSON data.
    public static func json(_ value: JSONValue, event: String? = nil, id: String? = nil, delay: TimeInterval = 0) -> ServerSentEvent {
        ServerSentEvent(event: event, data: .json(value), id: id, delay: delay)
    }

    /// Why `text` cannot be an event's type or ID, nil when it can: a line break would end
    /// the field early, and a NUL makes a client ignore an ID.
    public static func fieldProblem(_ text: String) -> String? {
        if text.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) { return "holds a line break, which would end the field" }
        if text.unicodeScalars.contains("\u{0}") { return "holds a NUL character, which clients refuse in an ID" }
        return nil
    }
}

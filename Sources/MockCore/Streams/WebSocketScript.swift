import Foundation

/// A WebSocket's side of a conversation, written ahead: what the server sends once the
/// upgrade is done, how it answers the client's messages, what it pushes on a timer, and
/// when it closes. ``WebSocketConversation`` plays it; a transport carries out its actions.
/// Delays are seconds; in a list, each after the one before.
public struct WebSocketScript: Sendable, Hashable {
    /// The subprotocol the server agrees to (`Sec-WebSocket-Protocol`) when the client
    /// offers it.
    public var subprotocol: String?
    /// Sent once the connection is open, in order.
    public var onConnect: [WebSocketMessage]
    /// How the server answers a message: the first whose pattern matches answers.
    public var onMessage: [WebSocketReply]
    /// Messages sent on a timer.
    public var pushes: [WebSocketPush]
    /// The server closes the connection this long after it opened, if set.
    public var close: WebSocketClose?

    /// Makes a script; every part left out is empty: no subprotocol, nothing sent, no close of the server's own.
    public init(subprotocol: String? = nil, onConnect: [WebSocketMessage] = [], onMessage: [WebSocketReply] = [],
                pushes: [WebSocketPush] = [], close: WebSocketClose? = nil) {
        self.subprotocol = subprotocol
        self.onConnect = onConnect
        self.onMessage = onMessage
        self.pushes = pushes
        self.close = close
    }

    /// Whether any message is a template (its header fields are then templates too).
    public var isTemplated: Bool {
        let lists = [onConnect] + onMessage.map(\.messages) + pushes.map(\.messages)
        return lists.contains { $0.contains { if case .template = $0.payload { return true } else { return false } } }
    }

    /// The script with every delay multiplied by `scale`.
    public func scaled(by scale: Double) -> WebSocketScript {
        guard scale != 1 else { return self }
        var copy = self
        copy.onConnect = onConnect.map { $0.scaled(by: scale) }
        copy.onMessage = onMessage.map { reply in
            var reply = reply
            reply.messages = reply.messages.map { $0.scaled(by: scale) }
            reply.close?.delay *= scale
            return reply
        }
        copy.pushes = pushes.map { push in
            var push = push
            push.interval *= scale
            push.start *= scale
            return push
        }
        copy.close?.delay *= scale
        return copy
    }
}

/// One message the server sends, after its delay.
public struct WebSocketMessage: Sendable, Hashable {
    /// What the frame carries.
    public enum Payload: Sendable, Hashable {
        /// A text frame.
        case text(String)
        /// A text frame holding this JSON value.
        case json(JSONValue)
        /// A binary frame.
        case binary(Data)
        /// A ping (the client answers with a pong).
        case ping(Data)
        /// An unsolicited pong (RFC 6455 §5.5.3 allows it as a heartbeat).
        case pong(Data)
        /// A text frame from a template, filled from the upgrade request and the message
        /// answered (``ResponseTemplate``: `{{message}}`, `{{jsonPath message '$.a'}}`);
        /// `json`: the text is JSON, so filled-in values are escaped for it.
        case template(ResponseTemplate, json: Bool)
    }

    /// What the message carries and in which frame.
    public var payload: Payload
    /// Seconds to wait before sending it, after the previous message of its list (or the
    /// event that started the list).
    public var delay: TimeInterval

    /// Makes a message of `payload`, sent `delay` seconds after the one before.
    public init(_ payload: Payload, delay: TimeInterval = 0) {
        self.payload = payload
        self.delay = delay
    }

    /// A text frame of `text`, sent `delay` seconds after the one before.
    public static func text(_ text: String, delay: TimeInterval = 0) -> WebSocketMessage { WebSocketMessage(.text(text), delay: delay) }
    /// A text frame of `value` as JSON, sent `delay` seconds after the one before.
    public static func json(_ value: JSONValue, delay: TimeInterval = 0) -> WebSocketMessage { WebSocketMessage(.json(value), delay: delay) }
    /// A binary frame of `data`, sent `delay` seconds after the one before.
    public static func binary(_ data: Data, delay: TimeInterval = 0) -> WebSocketMessage { WebSocketMessage(.binary(data), delay: delay) }

    func scaled(by scale: Double) -> WebSocketMessage {
        var copy = self
        copy.delay *= scale
        return copy
    }
}

/// How the server answers a client message that matches `match`: its messages in order,
/// then, if set, a close.
public struct WebSocketReply: Sendable, Hashable {
    /// A name for journals and messages.
    public var name: String?
    /// Which client messages this reply answers.
    public var match: MessagePattern
    /// What the server sends back, in order.
    public var messages: [WebSocketMessage]
    /// After the messages, the server closes (its delay after the last message).
    public var close: WebSocketClose?

    /// Makes a reply to messages matching `match` (any message by default).
    public init(_ name: String? = nil, match: MessagePattern = MessagePattern(), messages: [WebSocketMessage], close: WebSocketClose? = nil) {
        self.name = name
        self.match = match
        self.messages = messages
        self.close = close
    }
}

/// Messages the server sends every `interval` seconds, `times` times (nil: until the
/// connection ends), the first `start` seconds after the connection opened plus one interval.
public struct WebSocketPush: Sendable, Hashable {
    /// Seconds between sends.
    public var interval: TimeInterval
    /// How many times it sends; nil until the connection ends.
    public var times: Int?
    /// Seconds after the connection opened that the first interval starts.
    public var start: TimeInterval
    /// Sent together each time (their own delays apart).
    public var messages: [WebSocketMessage]

    /// Makes a push of `messages` every `interval` seconds, `times` times (nil: until the
    /// connection ends), starting `start` seconds after the connection opened.
    public init(every interval: TimeInterval, times: Int? = nil, start: TimeInterval = 0, messages: [WebSocketMessage]) {
        self.interval = interval
        self.times = times
        self.start = start
        self.messages = messages
    }
}

/// The server closes the WebSocket: a close frame with `code` and `reason` (nil code: a
/// close frame without one), `delay` seconds after what comes before it.
public struct WebSocketClose: Sendable, Hashable {
    /// The close code; nil sends a close frame without one.
    public var code: UInt16?
    /// The close reason, UTF-8, empty for none.
    public var reason: String
    /// Seconds after what comes before it.
    public var delay: TimeInterval

    /// Makes a close; by default a normal close (1000) at once, without a reason.
    public init(code: UInt16? = WebSocketCloseCode.normal, reason: String = "", delay: TimeInterval = 0) {
        self.code = code
        self.reason = reason
        self.delay = delay
    }
}

/// Which client messages a ``WebSocketReply`` answers, in the words request matching uses:
/// the message's kind, a ``StringMatcher`` on its text (exact, regular expression, …),
/// and a ``BodyPattern`` on it as JSON (contains, equal to, a JSONPath's or JSON
/// Pointer's value). Every part given must hold; an empty pattern matches any message.
public struct MessagePattern: Sendable, Hashable, CustomStringConvertible {
    /// A text or a binary message.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A text message or a binary one.
        case text, binary
    }

    /// Whether the message is text or binary; nil matches both.
    public var kind: Kind?
    /// On the message's text (a binary message read as UTF-8).
    public var text: StringMatcher?
    /// On the message's bytes as a body.
    public var body: BodyPattern?

    /// Makes a pattern; every part left nil matches anything.
    public init(kind: Kind? = nil, text: StringMatcher? = nil, body: BodyPattern? = nil) {
        self.kind = kind
        self.text = text
        self.body = body
    }

    /// Any message.
    public static let any = MessagePattern()

    /// Whether a message of `kind` with `bytes` matches.
    public func matches(kind received: Kind, _ bytes: Data) -> Bool {
        matches(.init(kind: received, bytes: bytes))
    }

    /// Whether `message` matches: its text is read, or its bytes made, only for a part
    /// that asks for them.
    func matches(_ message: WebSocketConversation.Message) -> Bool {
        if let kind, kind != message.kind { return false }
        if let text, !text.matches(message.text) { return false }
        if let body, !body.matches(message.bytes) { return false }
        return true
    }

    /// The pattern for people, such as `text, text == "ping"`; `any message` when empty.
    public var description: String {
        var parts: [String] = []
        if let kind { parts.append(kind.rawValue) }
        if let text { parts.append("text \(text.description)") }
        if let body { parts.append("body \(body.description)") }
        return parts.isEmpty ? "any message" : parts.joined(separator: ", ")
    }
}

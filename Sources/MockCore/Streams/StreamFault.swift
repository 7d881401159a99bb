import Foundation

/// A fault in the middle of a stream (server-sent events or a WebSocket), carried out by
/// the transport that plays it: what a client sees from a real server or network that
/// breaks a stream after it started. A closed set, like ``Fault``: every player switches
/// over all of it.
///
/// Counts (`after`) are the events or data frames (text and binary) the server has sent
/// on this connection; `after: 0` is before the first. Times are seconds, already scaled
/// in a plan (``ResponsePlan/streamFault``).
public enum StreamFault: Sendable, Hashable {
    /// After `after` events or frames nothing more is sent for `duration` seconds, then the
    /// stream goes on; for ever when `duration` is nil (until the client gives up).
    case stall(after: Int, duration: TimeInterval?)
    /// After `after` events or frames the stream stops. `clean`: it ends as a finished
    /// stream does (the last chunk, END_STREAM, a WebSocket close frame with 1000), only
    /// early; otherwise the connection is reset (TCP RST) with no end at all.
    case drop(after: Int, clean: Bool)
    /// Each event or frame waits `interval` seconds more than the script says.
    case slowDrip(interval: TimeInterval)
    /// No event or frame waits: what the script spreads over time comes at once (an event
    /// stream's events in one write; a WebSocket's greeting, replies and counted pushes
    /// together).
    case burst
    /// The event or frame after `after` is sent malformed instead (``EventStreamPlayer``
    /// and ``WebSocketConversation`` say how).
    case malformed(after: Int)
    /// After `after` frames the server closes the WebSocket with this code and reason
    /// (1001 going away, 1011 internal error, …). WebSockets only.
    case close(after: Int, code: UInt16, reason: String)
    /// After `after` frames the server sends a close frame without a code (the client
    /// sees 1005, no status). WebSockets only.
    case closeWithoutCode(after: Int)
    /// After `after` events or frames the stream ends without its terminator: the
    /// connection closes (TCP FIN) with no last chunk, no END_STREAM, no close frame.
    case endEarly(after: Int)

    /// The number of events or frames sent before the fault, for the faults that count.
    public var after: Int? {
        switch self {
        case .stall(let after, _), .drop(let after, _), .malformed(let after), .close(let after, _, _),
             .closeWithoutCode(let after), .endEarly(let after):
            return after
        case .slowDrip, .burst:
            return nil
        }
    }

    /// Whether only a WebSocket can carry it (a close frame); an event stream has none.
    public var isWebSocketOnly: Bool {
        switch self {
        case .close, .closeWithoutCode: return true
        case .stall, .drop, .slowDrip, .burst, .malformed, .endEarly: return false
        }
    }

    /// The fault with its times multiplied by `scale` (``EngineConfiguration/timeScale``).
    public func scaled(by scale: Double) -> StreamFault {
        switch self {
        case .stall(let after, let duration?): return .stall(after: after, duration: duration * scale)
        case .slowDrip(let interval): return .slowDrip(interval: interval * scale)
        case .stall, .drop, .burst, .malformed, .close, .closeWithoutCode, .endEarly: return self
        }
    }

    /// The fault's name in scenario files (`stall`, `drop`, …).
    public var name: String {
        switch self {
        case .stall: return "stall"
        case .drop: return "drop"
        case .slowDrip: return "slowDrip"
        case .burst: return "burst"
        case .malformed: return "malformed"
        case .close: return "close"
        case .closeWithoutCode: return "closeWithoutCode"
        case .endEarly: return "endEarly"
        }
    }

    /// The fault as scenario files write it (milliseconds), for journals and messages.
    public var json: JSONValue {
        func ms(_ seconds: TimeInterval) -> JSONValue { .number((seconds * 1000).rounded()) }
        switch self {
        case .stall(let after, let duration):
            var members: [String: JSONValue] = ["after": .number(Double(after))]
            if let duration { members["for"] = ms(duration) }
            return ["stall": .object(members)]
        case .drop(let after, let clean):
            return ["drop": ["after": .number(Double(after)), "clean": .bool(clean)]]
        case .slowDrip(let interval):
            return ["slowDrip": ["interval": ms(interval)]]
        case .burst:
            return "burst"
        case .malformed(let after):
            return ["malformed": ["after": .number(Double(after))]]
        case .close(let after, let code, let reason):
            return ["close": ["after": .number(Double(after)), "code": .number(Double(code)), "reason": .string(reason)]]
        case .closeWithoutCode(let after):
            return ["closeWithoutCode": ["after": .number(Double(after))]]
        case .endEarly(let after):
            return ["endEarly": ["after": .number(Double(after))]]
        }
    }
}

/// WebSocket close codes (RFC 6455 §7.4) a server may put in a close frame.
public enum WebSocketCloseCode {
    /// Normal closure.
    public static let normal: UInt16 = 1000
    /// The server is going away (restarting, a page navigated away).
    public static let goingAway: UInt16 = 1001
    /// The endpoint received a frame it cannot accept as the protocol stands.
    public static let protocolError: UInt16 = 1002
    /// Policy violation.
    public static let policyViolation: UInt16 = 1008
    /// The server met a condition that kept it from fulfilling the request.
    public static let internalError: UInt16 = 1011
    /// Try again later (IANA registry): the server is overloaded.
    public static let tryAgainLater: UInt16 = 1013

    /// Whether `code` may be sent in a close frame: 1000–1003 and 1007–1014 of the
    /// protocol's own, and 3000–4999 (registered and private). 1004, 1005, 1006 and 1015
    /// are reserved for what an endpoint reports, never sends.
    public static func isSendable(_ code: Int) -> Bool {
        (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code)
    }
}

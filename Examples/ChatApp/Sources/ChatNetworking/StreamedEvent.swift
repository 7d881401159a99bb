import Foundation

/// One event of a `text/event-stream` answer, as a browser's `EventSource` dispatches it.
public struct StreamedEvent: Sendable, Hashable {
    /// The event's type: its `event:` field, `message` when it has none.
    public var type: String
    /// Its `data:` lines, joined with line feeds.
    public var data: String
    /// The last event ID the stream set, this event's `id:` or an earlier one's.
    public var lastEventID: String

    /// An event of `type` with `data`.
    public init(type: String = "message", data: String, lastEventID: String = "") {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }
}

/// Reads a `text/event-stream` body by the WHATWG HTML standard's rules, from chunks of any
/// size: a line may end with CR, LF or CR LF, and a line, an event or a character may be
/// split across chunks. An event is dispatched by the empty line after it; one the body
/// ends before is not (the stream broke in the middle of it). An event is at most
/// ``maximumEventBytes`` long, so a server that never ends one cannot grow the client
/// without bound.
public struct EventStreamParser: Sendable {
    /// The longest event read, its lines' bytes together.
    public static let maximumEventBytes = 1 << 20

    /// An event passed ``maximumEventBytes``.
    public struct EventTooLarge: Error, Equatable {
        /// The error.
        public init() {}
    }

    /// The bytes of the event being read so far.
    private var eventBytes = 0
    /// An event passed the limit (the chunk being read is the most it holds beyond it).
    private var overflowed = false
    /// The bytes of a line not ended yet.
    private var line: [UInt8] = []
    /// The last byte was a CR: an LF right after it ends no second line.
    private var afterCR = false
    /// The stream's first bytes are not all read yet (a byte order mark there is skipped).
    private var atStart = true
    private var data = ""
    private var hasData = false
    private var type = ""
    /// The ID the next event carries (`id:` lines persist across events).
    public private(set) var lastEventID = ""
    /// The reconnection time the stream asked for (`retry:`), in milliseconds.
    public private(set) var retry: Int?

    /// A parser at the start of a stream.
    public init() {}

    /// The events `chunk` completes, in order; throws ``EventTooLarge`` when an event
    /// passes the limit.
    public mutating func parse(_ chunk: Data) throws -> [StreamedEvent] {
        var events: [StreamedEvent] = []
        guard atStart else {
            for byte in chunk { consume(byte, into: &events) }
            if overflowed { throw EventTooLarge() }
            return events
        }
        // A byte order mark may open the stream: wait for three bytes before deciding.
        start.append(contentsOf: chunk)
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        if start.count < mark.count, mark.starts(with: start) { return events }
        atStart = false
        for byte in start.dropFirst(start.starts(with: mark) ? mark.count : 0) { consume(byte, into: &events) }
        start = []
        if overflowed { throw EventTooLarge() }
        return events
    }

    /// The stream's first bytes, held until a byte order mark is ruled in or out.
    private var start: [UInt8] = []

    private mutating func consume(_ byte: UInt8, into events: inout [StreamedEvent]) {
        switch byte {
        case 0x0A where afterCR:
            afterCR = false
        case 0x0A, 0x0D:
            afterCR = byte == 0x0D
            let text = String(decoding: line, as: UTF8.self)
            line.removeAll(keepingCapacity: true)
            if let event = process(text) { events.append(event) }
        default:
            afterCR = false
            eventBytes += 1
            if eventBytes > Self.maximumEventBytes { overflowed = true }
            line.append(byte)
        }
    }

    /// Takes one line; returns the event an empty line dispatches.
    private mutating func process(_ text: String) -> StreamedEvent? {
        if text.isEmpty {
            eventBytes = 0
            defer {
                data = ""
                hasData = false
                type = ""
            }
            guard hasData else { return nil }
            return StreamedEvent(type: type.isEmpty ? "message" : type, data: data, lastEventID: lastEventID)
        }
        if text.hasPrefix(":") { return nil }
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = text[...]
            value = ""
        }
        switch field {
        case "event":
            type = String(value)
        case "data":
            data += hasData ? "\n" + value : String(value)
            hasData = true
        case "id" where !value.contains("\0"):
            lastEventID = String(value)
        case "retry" where !value.isEmpty && value.allSatisfy({ $0.isASCII && $0.isNumber }):
            retry = Int(value)
        default:
            break
        }
        return nil
    }
}

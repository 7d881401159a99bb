import Foundation

/// A server-sent event as a client dispatches it: the WHATWG HTML standard's
/// `MessageEvent` of an `EventSource` (its `type`, `data` and `lastEventId`).
public struct ReceivedEvent: Sendable, Hashable, CustomStringConvertible {
    /// The event type: the stream's `event:` field, `message` without one.
    public var type: String
    /// The event's `data:` lines joined with LF (no trailing LF).
    public var data: String
    /// The last event ID the stream had set when the event was dispatched (it carries on
    /// to later events until an `id:` field changes it); empty for none.
    public var lastEventID: String

    /// An event of `type` carrying `data`, dispatched when the last event ID was `lastEventID`.
    public init(type: String = "message", data: String, lastEventID: String = "") {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }

    /// `message "a" (id 1)`, for reports.
    public var description: String {
        let data = self.data.replacingOccurrences(of: "\n", with: "\\n")
        return "\(type) \"\(data.count > 60 ? String(data.prefix(60)) + "…" : data)\"" + (lastEventID.isEmpty ? "" : " (id \(lastEventID))")
    }
}

/// The WHATWG HTML standard's "event stream" interpretation, fed the bytes as they come
/// in chunks of any size: a chunk may end in the middle of a line, of an event, or of a
/// UTF-8 character, and one chunk may hold many events.
///
/// Lines end with CR LF, LF or CR (a CR at the end of one chunk and an LF at the start of
/// the next are one line end); a leading byte order mark is dropped; each line is decoded
/// as UTF-8 with U+FFFD for bytes that are not. `field: value` (one space after the colon
/// removed), a line starting with a colon is a comment, and an empty line dispatches the
/// event: nothing when no `data` line came, else the data with its last LF removed. `id`
/// with a NUL is ignored; `retry` counts only when it is all ASCII digits. The bytes after
/// the last empty line are no event: at the stream's end they are dropped, never
/// dispatched.
///
/// Bounded: a line, or an event's data, longer than ``maximumEventBytes`` is refused
/// (``ServerSentEventParser/Failure``) rather than held without end.
public struct ServerSentEventParser: Sendable {
    /// Why the stream cannot be read further.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong with the stream.
        public let description: String
    }

    /// The most bytes one line, or one event's data, may hold.
    public let maximumEventBytes: Int
    /// The last event ID string: set from the last event ID buffer at each empty line
    /// (also one that dispatches nothing), and what `Last-Event-ID` carries on a reconnect.
    public private(set) var lastEventID = ""
    /// The reconnection time the stream asked for (`retry:`), milliseconds.
    public private(set) var retry: Int?

    private var line: [UInt8] = []
    private var data = ""
    private var dataBytes = 0
    private var hasData = false
    private var eventType = ""
    private var idBuffer = ""
    private var afterCR = false
    private var seenFirstLine = false

    /// A parser at the start of a stream, refusing lines and events over `maximumEventBytes`.
    public init(maximumEventBytes: Int = 1 << 20) {
        self.maximumEventBytes = max(1, maximumEventBytes)
    }

    /// Starts on a new connection's bytes: the buffers of the event being read are
    /// dropped; the last event ID and the reconnection time carry on, as the standard
    /// keeps them across reconnects.
    public mutating func restart() {
        idBuffer = lastEventID
        line.removeAll()
        data = ""
        dataBytes = 0
        hasData = false
        eventType = ""
        afterCR = false
        seenFirstLine = false
    }

    /// Whether bytes of an event not yet dispatched are held (a stream that ends now cuts
    /// an event short).
    public var holdsPartialEvent: Bool { !line.isEmpty || hasData || !eventType.isEmpty || idBuffer != lastEventID }

    /// The events `bytes` completes, in order.
    public mutating func parse(_ bytes: some Sequence<UInt8>) throws(Failure) -> [ReceivedEvent] {
        var events: [ReceivedEvent] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0D:
                afterCR = true
                try endLine(&events)
            case 0x0A:
                try endLine(&events)
            default:
                guard line.count < maximumEventBytes else {
                    throw Failure(description: "a line of the event stream is longer than \(maximumEventBytes) bytes")
                }
                line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine(_ events: inout [ReceivedEvent]) throws(Failure) {
        defer { line.removeAll(keepingCapacity: true) }
        if !seenFirstLine {
            seenFirstLine = true
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
        }
        guard !line.isEmpty else {
            dispatch(&events)
            return
        }
        guard line[0] != UInt8(ascii: ":") else { return }
        let text = String(decoding: line, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":") else {
            try apply(text, "")
            return
        }
        var value = text[text.index(after: colon)...]
        if value.first == " " { value = value.dropFirst() }
        try apply(String(text[..<colon]), String(value))
    }

    private mutating func apply(_ field: String, _ value: String) throws(Failure) {
        switch field {
        case "event":
            eventType = value
        case "data":
            dataBytes += value.utf8.count + 1
            guard dataBytes <= maximumEventBytes else {
                throw Failure(description: "an event's data is longer than \(maximumEventBytes) bytes")
            }
            data += value
            data += "\n"
            hasData = true
        case "id":
            if !value.unicodeScalars.contains("\u{0}") { idBuffer = value }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let milliseconds = Int(value) { retry = milliseconds }
        default:
            break
        }
    }

    private mutating func dispatch(_ events: inout [ReceivedEvent]) {
        defer {
            data = ""
            dataBytes = 0
            hasData = false
            eventType = ""
        }
        lastEventID = idBuffer
        guard hasData else { return }
        events.append(ReceivedEvent(type: eventType.isEmpty ? "message" : eventType, data: String(data.dropLast()), lastEventID: lastEventID))
    }
}

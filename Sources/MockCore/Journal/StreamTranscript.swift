import Foundation

/// What went over one stream (an event stream or a WebSocket), both ways, with times: the
/// journal entry of the request that opened it holds it. Bounded for streams without end:
/// the first ``capacity`` records are kept, each with at most ``payloadLimit`` bytes of
/// its payload; later ones are only counted. How the stream ended is kept apart, always.
public struct StreamTranscript: Sendable, Equatable {
    /// Which way a record went, seen from the server.
    public enum Direction: String, Sendable, Hashable {
        /// Server to client.
        case sent
        /// Client to server.
        case received
    }

    /// What a record is.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Bytes of an event stream (one event, or several written at once).
        case events
        /// A WebSocket text, binary, ping or pong frame.
        case text, binary, ping, pong
        /// A close frame (its code and reason in `note`).
        case close
        /// A frame or event sent malformed on purpose (a stream fault).
        case malformed
        /// Nothing was sent for a while (a stream fault; its end in `note`).
        case stall
    }

    /// How a stream ended.
    public enum Ending: String, Sendable, Hashable, CaseIterable {
        /// Its proper end: the last chunk or END_STREAM, or a WebSocket's close handshake.
        case finished
        /// The connection closed without the stream's end (no last chunk, no close frame).
        case closedWithoutEnd
        /// The connection was reset.
        case reset
        /// The client went away (closed or cancelled) while it was open.
        case clientClosed
        /// The client gave up waiting (its timeout).
        case clientTimedOut
    }

    /// One frame, event or stall, with its time.
    public struct Record: Sendable, Equatable {
        /// Which way it went.
        public var direction: Direction
        /// What it is.
        public var kind: Kind
        /// Seconds from the request's arrival.
        public var offset: TimeInterval
        /// The payload's whole size in bytes.
        public var size: Int
        /// The payload's first ``StreamTranscript/payloadLimit`` bytes.
        public var payload: Data
        /// A close's code and reason, a stall's end, a fault's name.
        public var note: String?

        /// Makes a record at `offset` seconds from the request's arrival; `payload` is cut to
        /// `payloadLimit` bytes, its whole size kept in `size`.
        public init(_ direction: Direction, _ kind: Kind, offset: TimeInterval, payload: Data = Data(), note: String? = nil) {
            self.init(direction, kind, offset: offset, size: payload.count, payload: payload, note: note)
        }

        /// A record of a payload of `size` bytes whose first bytes (at least the first
        /// `payloadLimit`, or all of them) are `payload`.
        init(_ direction: Direction, _ kind: Kind, offset: TimeInterval, size: Int, payload: Data, note: String?) {
            self.direction = direction
            self.kind = kind
            self.offset = offset
            self.size = size
            self.payload = payload.count > StreamTranscript.payloadLimit ? Data(payload.prefix(StreamTranscript.payloadLimit)) : payload
            self.note = note
        }
    }

    /// Which kind of stream it is.
    public enum Stream: String, Sendable, Hashable {
        /// Server-sent events or a WebSocket.
        case eventStream, webSocket
    }

    /// Records kept per stream by default.
    public static let defaultCapacity = 256
    /// Payload bytes kept per record.
    public static let payloadLimit = 512
    /// Bytes a record is charged besides its payload.
    static let recordOverhead = 64

    /// Which kind of stream it is.
    public let stream: Stream
    /// The stream fault the plan carried, if any.
    public let fault: StreamFault?
    /// The most records kept; later ones are counted in `notKept`.
    public let capacity: Int
    /// The records kept, in order.
    public private(set) var records: [Record] = []
    /// Records past ``capacity``: counted, not kept.
    public private(set) var notKept = 0
    /// The payload bytes of the records not kept.
    public private(set) var notKeptBytes = 0
    /// Records and payload bytes in all, each way.
    public private(set) var sentCount = 0
    /// Records received from the client, kept or not.
    public private(set) var receivedCount = 0
    /// Payload bytes sent to the client, kept or not.
    public private(set) var sentBytes = 0
    /// Payload bytes received from the client, kept or not.
    public private(set) var receivedBytes = 0
    /// How the stream ended and when (seconds from the request's arrival); nil while open.
    public private(set) var ending: (how: Ending, offset: TimeInterval)?

    /// Makes an empty transcript of `stream`, with the plan's `fault` and a limit of `capacity` records.
    public init(_ stream: Stream, fault: StreamFault? = nil, capacity: Int = StreamTranscript.defaultCapacity) {
        self.stream = stream
        self.fault = fault
        self.capacity = max(0, capacity)
    }

    /// The transcript a plan's stream starts with, nil for a plan that is no stream.
    init?(plan: ResponsePlan, capacity: Int) {
        guard let streaming = plan.streaming?.value else { return nil }
        if streaming.eventStream != nil {
            self.init(.eventStream, fault: streaming.fault, capacity: capacity)
        } else if streaming.webSocket != nil {
            self.init(.webSocket, fault: streaming.fault, capacity: capacity)
        } else {
            return nil
        }
    }

    /// Adds `record` (kept while there is room, else counted); returns the bytes it
    /// keeps, which the journal charges against its budget.
    @discardableResult
    public mutating func append(_ record: Record) -> Int {
        guard keepsMore else {
            countNotKept(record.direction, size: record.size)
            return 0
        }
        tally(record.direction, size: record.size)
        records.append(record)
        return Self.recordOverhead + record.payload.count + (record.note?.utf8.count ?? 0)
    }

    /// Whether the next record is kept (there is room for it).
    var keepsMore: Bool { records.count < capacity }

    /// Adds a record of `size` payload bytes as ``append(_:)`` does, making it (and
    /// calling `payload` for its first bytes) only when it is kept; returns the bytes it keeps.
    mutating func append(_ direction: Direction, _ kind: Kind, offset: TimeInterval, size: Int, payload: () -> Data, note: String?) -> Int {
        guard keepsMore else {
            countNotKept(direction, size: size)
            return 0
        }
        return append(Record(direction, kind, offset: offset, size: size, payload: payload(), note: note))
    }

    private mutating func countNotKept(_ direction: Direction, size: Int) {
        tally(direction, size: size)
        notKept += 1
        notKeptBytes += size
    }

    private mutating func tally(_ direction: Direction, size: Int) {
        switch direction {
        case .sent:
            sentCount += 1
            sentBytes += size
        case .received:
            receivedCount += 1
            receivedBytes += size
        }
    }

    /// Notes how the stream ended; the first ending counts.
    public mutating func end(_ how: Ending, offset: TimeInterval) {
        guard ending == nil else { return }
        ending = (how, offset)
    }

    /// Equal when every kept and counted figure and the ending are equal.
    public static func == (lhs: StreamTranscript, rhs: StreamTranscript) -> Bool {
        lhs.stream == rhs.stream && lhs.fault == rhs.fault && lhs.capacity == rhs.capacity && lhs.records == rhs.records && lhs.notKept == rhs.notKept && lhs.notKeptBytes == rhs.notKeptBytes
            && lhs.sentCount == rhs.sentCount && lhs.receivedCount == rhs.receivedCount && lhs.sentBytes == rhs.sentBytes
            && lhs.receivedBytes == rhs.receivedBytes && lhs.ending?.how == rhs.ending?.how && lhs.ending?.offset == rhs.ending?.offset
    }

    /// Counts and the ending, as the journal's lists show a stream.
    public var summaryJSON: JSONValue {
        var object: [String: JSONValue] = [
            "type": .string(stream.rawValue),
            "sent": .number(Double(sentCount)), "received": .number(Double(receivedCount)),
            "sentBytes": .number(Double(sentBytes)), "receivedBytes": .number(Double(receivedBytes)),
            "kept": .number(Double(records.count)), "notKept": .number(Double(notKept)),
        ]
        if let fault { object["streamFault"] = fault.json }
        if let ending {
            object["ended"] = .string(ending.how.rawValue)
            object["endedAtMs"] = .number(Self.milliseconds(ending.offset))
        }
        return .object(object)
    }

    /// The summary with every kept record, as a journal entry's detail shows it.
    public var json: JSONValue {
        guard case .object(var object) = summaryJSON else { return summaryJSON }
        object["records"] = .array(records.map { record in
            var item: [String: JSONValue] = [
                "direction": .string(record.direction.rawValue), "kind": .string(record.kind.rawValue),
                "atMs": .number(Self.milliseconds(record.offset)), "size": .number(Double(record.size)),
            ]
            if !record.payload.isEmpty {
                if record.kind != .binary, let text = String(data: record.payload, encoding: .utf8) {
                    item["text"] = .string(text)
                } else {
                    item["base64"] = .string(record.payload.base64EncodedString())
                }
                if record.payload.count < record.size { item["truncated"] = true }
            }
            if let note = record.note { item["note"] = .string(note) }
            return .object(item)
        })
        return .object(object)
    }

    private static func milliseconds(_ seconds: TimeInterval) -> Double { (seconds * 10_000).rounded() / 10 }
}

/// A transcript as read out of the journal, held by reference: entries are copied when
/// read, and a stream's records inline would be copied with each.
final class SharedTranscript: Sendable {
    let value: StreamTranscript
    init(_ value: StreamTranscript) { self.value = value }
}

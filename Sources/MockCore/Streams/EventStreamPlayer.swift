import Foundation

/// Plays an ``EventStream`` as timed steps for a transport to carry out: which bytes to
/// write when, and how the stream ends. No I/O and no clock of its own: every step says
/// its offset in seconds from the start of the stream (the response head), measured on
/// the caller's clock, and the caller asks for the next step once it carried one out.
///
/// Steps come in time order (equal offsets are one after another). After a step that
/// ends the stream (`end`, `endWithoutTerminator`, `drop`, or a `stall` for ever) there
/// are no more. A stream without end yields steps without end, each round of its events
/// taking their delays.
///
/// The stream's ``StreamFault`` strikes when the event after `after` would be due: a stall
/// delays it (or every later one, for ever), a drop or an early end ends the stream then,
/// `malformed` sends that event broken (half its data, then two bytes that are not
/// UTF-8: a client dispatches something that is not what was sent); a slow drip
/// adds its interval to every delay, and a burst writes the events (of a stream without
/// end, the rest of its first round) at once, in one write up to ``burstLimit`` bytes (more
/// in several, all at the same time), the rest at their pace. A close
/// code is a WebSocket's: an event stream ends cleanly for it. A stream without end whose
/// round has no delay plays one round: it would otherwise write without end at once.
public struct EventStreamPlayer: Sendable {
    /// One thing for the transport to do, at `at` seconds from the start.
    public enum Step: Sendable, Equatable {
        /// Write these bytes, and flush them: one whole event each (a burst, several).
        case write(Data, at: TimeInterval)
        /// Nothing is written from `at` until `until`; nil: never again, the response
        /// stays open until the client goes (a stall, or a stream kept open at its end).
        case stall(at: TimeInterval, until: TimeInterval?)
        /// The response ends as a finished one does: HTTP/1.1's last chunk, HTTP/2's
        /// END_STREAM; the connection serves on.
        case end(at: TimeInterval)
        /// The connection closes (TCP FIN) without the response's end: no last chunk, no
        /// END_STREAM. A client sees the body cut short.
        case endWithoutTerminator(at: TimeInterval)
        /// The connection is reset (TCP RST; on HTTP/2, the stream).
        case drop(at: TimeInterval)

        /// Seconds from the start of the stream.
        public var at: TimeInterval {
            switch self {
            case .write(_, let at), .stall(let at, _), .end(let at), .endWithoutTerminator(let at), .drop(let at): return at
            }
        }
    }

    /// The stream played.
    public let stream: EventStream
    /// The fault that breaks it, if any.
    public let fault: StreamFault?
    /// The index (in the played stream, across rounds) of the first event this player
    /// writes: 0, or the one after the event `Last-Event-ID` named.
    public let firstIndex: Int
    private let timeScale: Double
    private let total: Int?
    /// The next event to write, across rounds.
    private var index: Int
    /// The offset of the last step.
    private var time: TimeInterval = 0
    /// Events written on this connection, for the fault's count.
    private var written = 0
    private var faultDone = false
    /// The next event goes out at `time`, its delay already spent (after a stall).
    private var delaySpent = false
    private var malformNext = false
    private var finished = false
    /// Where a burst ends (the stream's end, or its round's for a stream without end).
    private var burstEnd: Int?

    /// The most bytes a burst's write holds before the next write takes the rest (one event
    /// larger than this is one write of its own).
    public static let burstLimit = 256 * 1024

    /// - Parameters:
    ///   - stream: the events, as a plan carries them (templates filled).
    ///   - fault: what breaks the stream, if anything.
    ///   - timeScale: every delay (the stream's and the fault's) is multiplied by it; 1 for
    ///     a plan's, which the engine scaled already.
    ///   - lastEventID: the request's `Last-Event-ID`: play resumes after the event with
    ///     that ID (``resumeIndex(of:in:)``).
    public init(stream: EventStream, fault: StreamFault? = nil, timeScale: Double = 1, lastEventID: String? = nil) {
        self.stream = stream
        self.fault = fault
        self.timeScale = timeScale
        // A round with no delay, played without end, would write without end at once: one round.
        self.total = stream.events.isEmpty ? 0 : stream.count ?? (stream.roundDuration * timeScale > 0 ? nil : stream.events.count)
        firstIndex = lastEventID.map { Self.resumeIndex(of: $0, in: stream) } ?? 0
        index = firstIndex
    }

    /// The player of `plan`'s event stream and stream fault (nil when it has none), for a
    /// request whose `Last-Event-ID` is `lastEventID`. A plan's times are scaled already.
    public init?(plan: ResponsePlan, lastEventID: String?) {
        guard let stream = plan.eventStream else { return nil }
        self.init(stream: stream, fault: plan.streamFault, lastEventID: lastEventID)
    }

    /// Where play resumes for a client that saw the event with ID `id`: after the first
    /// event of the first round that gives that ID, else (with ``EventStream/autoIDs``)
    /// after the event numbered `id`, else from the start (an ID this stream never sent).
    public static func resumeIndex(of id: String, in stream: EventStream) -> Int {
        guard !id.isEmpty, !stream.events.isEmpty else { return 0 }
        if let given = stream.events.firstIndex(where: { $0.id == id }) { return given + 1 }
        guard stream.autoIDs, let number = Int(id), number >= 1 else { return 0 }
        let index = number - 1
        if let total = stream.count, index >= total { return 0 }
        guard stream.events[index % stream.events.count].id == nil else { return 0 }
        return number
    }

    /// The ID the event at `index` of the played stream carries.
    public func id(at index: Int) -> String? {
        let event = stream.events[index % stream.events.count]
        return event.id ?? (stream.autoIDs ? String(index + 1) : nil)
    }

    /// Whether the stream has another event to write.
    private var hasNext: Bool { total.map { index < $0 } ?? true }

    /// The delay before event `index`, with the fault's.
    private func delay(_ index: Int) -> TimeInterval {
        var seconds = max(0, stream.events[index % stream.events.count].delay) * timeScale
        if case .slowDrip(let interval)? = fault { seconds += max(0, interval) * timeScale }
        return seconds
    }

    /// The next step, or nil after the last.
    public mutating func next() -> Step? {
        guard !finished else { return nil }
        if case .burst? = fault, !faultDone, hasNext {
            // Everything at once: the rest of the stream, or of this round of one without end,
            // in writes of at most `burstLimit` bytes (each at the same time), so that a
            // stream repeated a million times is not made whole in memory first.
            let count = stream.events.count
            let end = burstEnd ?? total ?? (index / count + 1) * count
            burstEnd = end
            var bytes = Data()
            while index < end, bytes.count < Self.burstLimit {
                bytes.append(stream.events[index % count].encoded(id: id(at: index)))
                index += 1
                written += 1
            }
            if index >= end { faultDone = true }
            return .write(bytes, at: time)
        }
        let due = hasNext && !delaySpent ? time + delay(index) : time
        if let fault, !faultDone, let after = fault.after, written == after {
            faultDone = true
            switch fault {
            case .stall(_, let duration):
                guard let duration else {
                    finished = true
                    return .stall(at: due, until: nil)
                }
                let until = due + max(0, duration) * timeScale
                time = until
                delaySpent = true
                return .stall(at: due, until: until)
            case .drop(_, let clean):
                finished = true
                return clean ? .end(at: due) : .drop(at: due)
            case .endEarly:
                finished = true
                return .endWithoutTerminator(at: due)
            case .close, .closeWithoutCode:
                finished = true
                return .end(at: due)
            case .malformed:
                malformNext = true
            case .slowDrip, .burst:
                break
            }
        }
        guard hasNext else {
            finished = true
            return stream.keepOpen ? .stall(at: time, until: nil) : .end(at: time)
        }
        let event = stream.events[index % stream.events.count]
        let bytes = malformNext ? event.malformed() : event.encoded(id: id(at: index))
        malformNext = false
        delaySpent = false
        index += 1
        written += 1
        time = due
        return .write(bytes, at: due)
    }
}

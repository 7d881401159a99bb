import Foundation
import MockCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Check builders for a client of a server-sent event stream, shared by
/// ``StreamingContract`` and the document suites: each check's server answers the stream's
/// requests (`patterns`) with a scenario stream of its own, the check opens it through
/// `open`, and judges what the client handed over, how it said the stream ended, and what
/// the server saw (the journal's requests and each stream's ending).
///
/// Every stream's first event sets a reconnection time of 10 ms (`retry: 10`), and a
/// request after the stream's last planned one is answered `204 No Content`, which tells
/// an `EventSource`-like client to stop: a client that resumes does so at once, and ends.
/// Times are short (events 10 to 50 ms apart), so the checks that do not wait for the
/// client's timeout take well under a second, in process or over the server's sockets.
public enum StreamingChecks {
    /// Opens the stream with the provider: the client's call, handing each event to
    /// `onEvent` and returning how the stream ended (``EventStreamProvider/stream(_:onEvent:)``).
    public typealias Open<P: Sendable> = @Sendable (CheckRun<P>, _ onEvent: @escaping @Sendable (ReceivedEvent) -> Void) async -> EventStreamEnding

    /// Every streaming check, ids `prefix.events.order`, `prefix.events.split`,
    /// `prefix.ending.drop`, `prefix.ending.no-terminator`, `prefix.stall`,
    /// `prefix.cancellation` and `prefix.resume`.
    /// - Parameters:
    ///   - prefix: The first part of every id (`stream`, `Chat.streamReply.stream`).
    ///   - stream: The stream's name in messages (`GET /events`).
    ///   - patterns: The requests that open the stream (one per path it may be served under).
    ///   - configuration: The suite's: its timeout and margin bound the waits. The checks
    ///     play the same over every transport: in process, and over the server's sockets
    ///     (`.sockets`, `.secureSockets`), where the server writes each event when it is due.
    ///   - resumes: Whether the provider claims to resume with `Last-Event-ID`.
    ///   - open: The call that opens the stream.
    public static func checks<P: Sendable>(_ prefix: String, stream: String, patterns: [RequestPattern], configuration: SuiteConfiguration,
                                           resumes: @escaping @Sendable (P) -> Bool, open: @escaping Open<P>) -> [ContractCheck<P>] {
        let limit = configuration.timeout + configuration.timeoutMargin
        return [
            eventsInOrder(prefix + ".events.order", stream: stream, patterns: patterns, limit: limit, open),
            splitEvents(prefix + ".events.split", stream: stream, patterns: patterns, limit: limit, open),
            dropIsFailure(prefix + ".ending.drop", stream: stream, patterns: patterns, limit: limit, open),
            missingTerminatorIsFailure(prefix + ".ending.no-terminator", stream: stream, patterns: patterns, limit: limit, open),
            stallGivesUp(prefix + ".stall", stream: stream, patterns: patterns, timeout: configuration.timeout,
                         margin: configuration.timeoutMargin, open),
            cancellationCloses(prefix + ".cancellation", stream: stream, patterns: patterns, limit: limit, open),
            resumesWithLastEventID(prefix + ".resume", stream: stream, patterns: patterns, limit: limit, resumes: resumes, open),
        ]
    }

    // MARK: The streams

    /// A scenario whose rules answer `patterns` with `outcomes` in turn, then `204 No Content`.
    static func scenario(_ patterns: [RequestPattern], _ outcomes: [Outcome]) -> [Scenario] {
        [Scenario(name: "stream", rules: patterns.map { Rule("stream", $0, .sequence(outcomes + [.status(204)], afterLast: .repeatLast)) })]
    }

    /// Events `one`, `two`, … with IDs `1`, `2`, …, 10 ms apart; the first sets `retry: 10`.
    static func numbered(_ names: [String]) -> [ServerSentEvent] {
        names.enumerated().map { index, name in
            ServerSentEvent(data: .text(name), id: String(index + 1), retry: index == 0 ? 10 : nil, delay: index == 0 ? 0 : 0.01)
        }
    }

    /// What a client dispatches of `numbered(names)`.
    static func dispatched(_ names: [String]) -> [ReceivedEvent] {
        names.enumerated().map { ReceivedEvent(data: $1, lastEventID: String($0 + 1)) }
    }

    /// A comment line (`: keep-alive`): no event, but bytes that come after an event.
    static let keepAlive = ServerSentEvent(comment: "keep-alive", delay: 0.01)

    // MARK: Running a stream

    /// Opens the stream and waits for its end, at most `limit` seconds.
    static func play<P: Sendable>(_ run: CheckRun<P>, within limit: TimeInterval, _ open: @escaping Open<P>)
        async -> (capture: StreamCapture, outcome: CallOutcome<EventStreamEnding>) {
        let capture = StreamCapture()
        let outcome = await run.outcome(within: limit) {
            let ending = await open(run, capture.sink)
            capture.returned()
            return ending
        }
        return (capture, outcome)
    }

    /// How the last stream `patterns` opened ended, as the server's journal has it, once
    /// it has ended (waiting at most `limit` seconds); nil when it is still open then.
    static func serverEnding<P: Sendable>(_ run: CheckRun<P>, _ patterns: [RequestPattern], within limit: TimeInterval) async -> StreamTranscript.Ending? {
        let deadline = Date().addingTimeInterval(limit)
        while true {
            let ending = run.expectations.requests(matchingAny: patterns).last(where: { $0.transcript != nil })?.transcript?.ending?.how
            if ending != nil || Date() >= deadline { return ending }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
    }

    /// `returned finished 0.05 s after it began`.
    static func said<P: Sendable>(_ outcome: CallOutcome<P>) -> String {
        switch outcome {
        case .returned(let value, let seconds): return "returned \(value) \(CallOutcome<Int>.format(seconds)) s after it began"
        case .threw(let error, let seconds): return "threw \(error) \(CallOutcome<Int>.format(seconds)) s after it began"
        case .stillRunning(let seconds): return "was still running \(CallOutcome<Int>.format(seconds)) s after it began"
        }
    }

    /// The differences between the events handed over and those sent, each one a line.
    static func differences(_ got: [ReceivedEvent], _ expected: [ReceivedEvent]) -> [String] {
        var lines: [String] = []
        for index in 0..<max(got.count, expected.count) {
            switch (index < got.count ? got[index] : nil, index < expected.count ? expected[index] : nil) {
            case (let have?, let want?) where have != want: lines.append("event \(index + 1): got \(have), want \(want)")
            case (let have?, nil): lines.append("event \(index + 1): got \(have), past the \(expected.count) events the stream has")
            case (nil, let want?): lines.append("event \(index + 1): missing \(want)")
            default: break
            }
        }
        return lines
    }
}

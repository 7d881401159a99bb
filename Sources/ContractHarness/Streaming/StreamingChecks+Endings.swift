import Foundation
import MockCore

extension StreamingChecks {
    /// A connection reset in the middle of the stream (after two of four events and a
    /// comment) ends it as ``EventStreamEnding/failed(_:)``, after the two events: never as
    /// a short success, which an app shows as a complete answer. A client that resumes
    /// reconnects, is told to stop (204), and fails then.
    public static func dropIsFailure<P: Sendable>(_ id: String, stream: String, patterns: [RequestPattern], limit: TimeInterval,
                                                  _ open: @escaping Open<P>) -> ContractCheck<P> {
        let names = ["one", "two", "three", "four"]
        var events = numbered(names)
        events.insert(keepAlive, at: 2)
        return brokenStream(id, stream: stream, patterns: patterns, limit: limit, open,
                            summary: "a connection reset in the middle of \(stream) ends it as failed, after the events before it — never as a short success",
                            fault: .drop(after: 3, clean: false), events: events, before: dispatched(Array(names.prefix(2))),
                            what: "the connection was reset after 2 of \(names.count) events")
    }

    /// A stream whose connection closes without the response's end (no last chunk, no
    /// END_STREAM), after all four events, ends as ``EventStreamEnding/failed(_:)``: the
    /// client cannot know no more were coming. URLSession reports it as it reports a
    /// reset (`URLError.networkConnectionLost`), so a client that swallows one swallows both.
    public static func missingTerminatorIsFailure<P: Sendable>(_ id: String, stream: String, patterns: [RequestPattern], limit: TimeInterval,
                                                               _ open: @escaping Open<P>) -> ContractCheck<P> {
        let names = ["one", "two", "three", "four"]
        let events = numbered(names) + [keepAlive]
        return brokenStream(id, stream: stream, patterns: patterns, limit: limit, open,
                            summary: "\(stream) closed without the response's end (no last chunk) ends as failed — never as a success",
                            fault: .endEarly(after: events.count), events: events, before: dispatched(names),
                            what: "the connection closed after every event without the response's end (no last chunk)")
    }

    /// A check of a stream broken by `fault`: the events `before` it, then a failure.
    static func brokenStream<P: Sendable>(_ id: String, stream: String, patterns: [RequestPattern], limit: TimeInterval, _ open: @escaping Open<P>,
                                          summary: String, fault: StreamFault, events: [ServerSentEvent], before: [ReceivedEvent],
                                          what: String) -> ContractCheck<P> {
        ContractCheck(id, .required, summary, scenarios: scenario(patterns, [Outcome.eventStream(EventStream(events)).streamFaulted(fault)])) { run in
            try run.use("stream")
            run.mark("the stream broken by \(fault.name)")
            let (capture, outcome) = await play(run, within: limit, open)
            let got = capture.events
            var problems: [String] = []
            switch outcome {
            case .returned(.failed, _):
                break
            case .returned(.finished, _):
                problems.append("\(what), and the client reported the stream finished: a short success, shown as a whole answer "
                                + "— a lost connection (URLError.networkConnectionLost) is no end")
            case .returned(.cancelled, _):
                problems.append("\(what), and the client reported a cancel, which nobody asked for")
            case .threw(let error, _):
                problems.append("\(what), and the call threw \(error) instead of returning .failed")
            case .stillRunning(let seconds):
                problems.append("\(what), and the call was still running after \(CallOutcome<Int>.format(seconds)) s")
            }
            if Array(got.prefix(before.count)) != before {
                problems.append("the events before the break were not all handed over: got \(got.listed), want \(before.listed) first")
            }
            guard problems.isEmpty else {
                var violation = run.expectations.violation("\(stream): \(before.listed), then the stream reported failed (\(what))",
                                                           actual: "it handed over \(got.listed); the call \(said(outcome))",
                                                           differences: problems)
                violation.isTimingOnly = outcome.isStillRunning && problems.count == 1
                throw violation
            }
        }
    }

    /// A stream that stalls (two events and a comment, then no byte ever) ends as
    /// ``EventStreamEnding/failed(_:)`` within the client's timeout (the one the harness
    /// hands the adapter, ``ProviderContext/timeout``) plus `margin`: a client without
    /// one waits for ever on a server that went silent.
    public static func stallGivesUp<P: Sendable>(_ id: String, stream: String, patterns: [RequestPattern], timeout: TimeInterval,
                                                 margin: TimeInterval, _ open: @escaping Open<P>) -> ContractCheck<P> {
        let names = ["one", "two"]
        let events = numbered(names) + [keepAlive]
        let limit = timeout + margin
        let seconds = String(format: "%g", timeout), extra = String(format: "%g", margin)
        let outcome = Outcome.eventStream(EventStream(events)).streamFaulted(.stall(after: events.count, duration: nil))
        return ContractCheck(id, .required, "\(stream) stalling (no byte) ends as failed within the client's timeout (\(seconds) s, +\(extra) s margin)",
                             scenarios: scenario(patterns, [outcome])) { run in
            try run.use("stream")
            run.mark("the stream that stalls after \(names.count) events")
            let (capture, outcome) = await play(run, within: limit, open)
            let got = capture.events
            var problems: [String] = []
            switch outcome {
            case .returned(.failed, _):
                break
            case .stillRunning:
                problems.append("no timeout? The server went silent after \(names.count) events and the client still waits "
                                + "(use ProviderContext.timeout, \(seconds) s, as the longest wait for a byte)")
            case .returned(let ending, _):
                problems.append("the client reported the silent stream \(ending)")
            case .threw(let error, _):
                problems.append("the call threw \(error) instead of returning .failed")
            }
            if Array(got.prefix(names.count)) != dispatched(names) {
                problems.append("the events before the stall were not all handed over: got \(got.listed), want \(dispatched(names).listed)")
            }
            guard problems.isEmpty else {
                let sent = run.expectations.requests(matchingAny: patterns).count
                var violation = run.expectations.violation("\(stream) to end as failed within \(seconds) s (+\(extra) s) once it stalls",
                                                           actual: "it handed over \(got.listed); the call \(said(outcome))",
                                                           differences: problems)
                // Sent once and not yet given up: a loaded machine looks the same as a
                // timeout too long, until the check runs again.
                violation.isTimingOnly = sent == 1 && outcome.isStillRunning && problems.count == 1
                throw violation
            }
        }
    }
}

import Foundation
import MockCore

extension StreamingChecks {
    /// A client that claims to resume (`resumes`) reconnects once the stream is reset after
    /// two of four events, with `Last-Event-ID: 2`, and hands over the rest: each event
    /// once, in order, and the stream then reported finished. A client that does not claim
    /// it reports the break and sends no second request.
    public static func resumesWithLastEventID<P: Sendable>(_ id: String, stream: String, patterns: [RequestPattern], limit: TimeInterval,
                                                           resumes: @escaping @Sendable (P) -> Bool, _ open: @escaping Open<P>) -> ContractCheck<P> {
        let names = ["one", "two", "three", "four"]
        var events = numbered(names)
        events.insert(keepAlive, at: 2)
        events.append(ServerSentEvent(comment: "end", delay: 0.01))
        let whole = Outcome.eventStream(EventStream(events))
        return ContractCheck(id, .required, "a client that resumes \(stream) reconnects with Last-Event-ID and gets the rest, each event once; "
                             + "one that does not, reports the break",
                             scenarios: scenario(patterns, [whole.streamFaulted(.drop(after: 3, clean: false)), whole])) { run in
            try run.use("stream")
            let claims = resumes(run.provider)
            run.mark(claims ? "the stream reset after 2 events, and its resumption" : "the stream reset after 2 events")
            let (capture, outcome) = await play(run, within: limit + 1, open)
            let got = capture.events
            let requests = run.expectations.requests(matchingAny: patterns)
            var problems: [String] = []
            if claims {
                if requests.count < 2 {
                    problems.append("the client claims to resume (resumesWithLastEventID) but never reconnected after the reset")
                } else {
                    let header = requests[1].request.headers["Last-Event-ID"]
                    if header != "2" {
                        problems.append(header.map { "the reconnect carried Last-Event-ID: \($0), not 2 (the ID of the last event handed over)" }
                                        ?? "the reconnect carried no Last-Event-ID, so the server started the stream over")
                    }
                }
                let expected = dispatched(names)
                problems += differences(got, expected)
                if got.count > expected.count { problems.append("events were handed over twice: the resumed stream repeated what came before the reset") }
                if case .returned(.finished, _) = outcome {} else {
                    problems.append("the call \(said(outcome)), where the resumed stream ended properly")
                }
            } else {
                if requests.count > 1 {
                    problems.append("the client reconnected \(requests.count - 1) times though it does not claim to resume: "
                                    + "set resumesWithLastEventID to true, or report the break")
                }
                if case .returned(.failed, _) = outcome {} else {
                    problems.append("the call \(said(outcome)), where the stream was reset after 2 of \(names.count) events")
                }
                if Array(got.prefix(2)) != dispatched(Array(names.prefix(2))) {
                    problems.append("the events before the reset were not all handed over: got \(got.listed)")
                }
            }
            guard problems.isEmpty else {
                let expected = "\(stream): " + (claims ? "a reconnect with Last-Event-ID: 2, then \(dispatched(names).listed), each once, and finished"
                    : "\(dispatched(Array(names.prefix(2))).listed), then failed, with no reconnect")
                var violation = run.expectations.violation(expected, actual: "it handed over \(got.listed); the call \(said(outcome))",
                                                           differences: problems)
                violation.isTimingOnly = outcome.isStillRunning && problems.count == 1
                throw violation
            }
        }
    }
}

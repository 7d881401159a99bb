import Foundation
import MockCore

extension StreamingChecks {
    /// Every event is handed over, once and in order, with its type, data and last event
    /// ID (which carries on to an event without an `id`), and a stream the server ends
    /// properly is reported ``EventStreamEnding/finished``. The stream ends on an event,
    /// so a client that dispatches an event only when the next one begins loses the last.
    public static func eventsInOrder<P: Sendable>(_ id: String, stream: String, patterns: [RequestPattern], limit: TimeInterval,
                                                  _ open: @escaping Open<P>) -> ContractCheck<P> {
        let events = [
            ServerSentEvent(data: .text("one"), id: "1", retry: 10),
            ServerSentEvent(event: "update", data: .text("two"), id: "2", delay: 0.01),
            ServerSentEvent(data: .text("{\"n\":3}"), id: "3", delay: 0.01),
            ServerSentEvent(data: .text("four"), delay: 0.01),
            ServerSentEvent(event: "done", data: .text("five"), id: "5", delay: 0.01),
        ]
        let expected = [
            ReceivedEvent(data: "one", lastEventID: "1"), ReceivedEvent(type: "update", data: "two", lastEventID: "2"),
            ReceivedEvent(data: "{\"n\":3}", lastEventID: "3"), ReceivedEvent(data: "four", lastEventID: "3"),
            ReceivedEvent(type: "done", data: "five", lastEventID: "5"),
        ]
        return ContractCheck(id, .required, "every event of \(stream) is handed over once and in order (type, data, last event ID), "
                             + "and a stream that ends properly is reported finished",
                             scenarios: scenario(patterns, [.eventStream(EventStream(events))])) { run in
            try run.use("stream")
            run.mark("the stream of \(events.count) events")
            let (capture, outcome) = await play(run, within: limit, open)
            let got = capture.events
            var problems = differences(got, expected)
            if got == Array(expected.dropLast()) {
                problems.append("the last event was never handed over: an event is dispatched at its own empty line, "
                                + "not when the next one begins, nor lost with the buffer at the stream's end")
            }
            guard case .returned(.finished, _) = outcome else {
                var violation = run.expectations.violation("\(stream)'s \(events.count) events, then the stream reported finished",
                                                           actual: "it handed over \(got.count) events; the call \(said(outcome))",
                                                           differences: problems)
                violation.isTimingOnly = outcome.isStillRunning && got == expected
                throw violation
            }
            try run.require(problems.isEmpty, "\(stream)'s events, in order: \(expected.listed)",
                            actual: "it handed over \(got.listed)", differences: problems)
        }
    }

    /// Events cut anywhere across the writes are put together whole: the server writes the
    /// stream at once and the link hands it over in pieces of 7 bytes, so an event's lines
    /// (and a UTF-8 character) span pieces and one piece holds the end of one event and the
    /// start of the next. The events hold multi-line data, JSON, a value that keeps a
    /// leading space, a comment line, and characters of two to four bytes.
    public static func splitEvents<P: Sendable>(_ id: String, stream: String, patterns: [RequestPattern], limit: TimeInterval,
                                                _ open: @escaping Open<P>) -> ContractCheck<P> {
        let events = [
            ServerSentEvent(event: "delta", data: .text("first line\nsecond line"), id: "a1", retry: 10),
            ServerSentEvent(data: .text("{\"token\":\"Hel\",\"index\":0}"), id: "a2"),
            ServerSentEvent(comment: "keep-alive"),
            ServerSentEvent(data: .text(" one leading space kept")),
            ServerSentEvent(data: .text("héllo ✓ 🌊")),
            ServerSentEvent(event: "done", data: .text("[DONE]"), id: "a6"),
            // Bytes after the last event: a client that dispatches late still gets it here.
            ServerSentEvent(comment: "end"),
        ]
        let expected = [
            ReceivedEvent(type: "delta", data: "first line\nsecond line", lastEventID: "a1"),
            ReceivedEvent(data: "{\"token\":\"Hel\",\"index\":0}", lastEventID: "a2"),
            ReceivedEvent(data: " one leading space kept", lastEventID: "a2"),
            ReceivedEvent(data: "héllo ✓ 🌊", lastEventID: "a2"),
            ReceivedEvent(type: "done", data: "[DONE]", lastEventID: "a6"),
        ]
        let pieces = Outcome.eventStream(EventStream(events)).streamFaulted(.burst).throttled(.bytesPerSecond(7_000, chunkSize: 7))
        return ContractCheck(id, .required, "events of \(stream) cut across writes (multi-line, several to a write, a UTF-8 character "
                             + "split) are put together whole, as the WHATWG rules parse them",
                             scenarios: scenario(patterns, [pieces])) { run in
            try run.use("stream")
            run.mark("the stream written in pieces of 7 bytes")
            let (capture, outcome) = await play(run, within: limit, open)
            let got = capture.events
            var problems = differences(got, expected)
            if !problems.isEmpty, got.count != expected.count {
                problems.append("the stream came in pieces of 7 bytes, cut inside events and lines: keep the bytes after the last "
                                + "empty line for the next piece, and dispatch an event only at its empty line")
            }
            if case .returned(.finished, _) = outcome {} else {
                problems.append("the call \(said(outcome)), where the server ended the stream properly")
            }
            try run.require(problems.isEmpty, "\(stream)'s events whole, in order: \(expected.listed)",
                            actual: "it handed over \(got.listed)", differences: problems)
        }
    }
}

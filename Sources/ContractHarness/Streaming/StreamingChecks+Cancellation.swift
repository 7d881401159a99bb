import Foundation
import MockCore

extension StreamingChecks {
    /// Cancelling the call once two events came stops the client reading: the call returns
    /// ``EventStreamEnding/cancelled``, hands nothing over after it returned, and the server
    /// sees the client close the stream (the journal's stream ends `clientClosed`) before
    /// it wrote every event. The stream has 60 events 50 ms apart and then stays open, so a
    /// client that reads on after the cancel shows it in the journal: the server writes
    /// every event and then waits until the client's timeout, which in process ends the
    /// stream `clientTimedOut` and over sockets is a close that comes only after the last
    /// event (the cancel has almost three seconds to reach the server). A stream that had ended before
    /// the check could cancel (a machine that held the check that long) says nothing of the
    /// client, and the check runs again.
    public static func cancellationCloses<P: Sendable>(_ id: String, stream: String, patterns: [RequestPattern], limit: TimeInterval,
                                                       _ open: @escaping Open<P>) -> ContractCheck<P> {
        let events = numbered((1...60).map { "tick \($0)" }).enumerated().map { index, event in
            var paced = event
            if index > 0 { paced.delay = 0.05 }
            return paced
        }
        let length = events.reduce(0) { $0 + $1.delay }
        return ContractCheck(id, .required, "a cancelled \(stream) stops reading: the call returns cancelled, hands nothing more over, "
                             + "and the server sees the client close the stream",
                             scenarios: scenario(patterns, [.eventStream(EventStream(events, keepOpen: true))])) { run in
            try run.use("stream")
            run.mark("the stream cancelled after 2 events")
            let capture = StreamCapture()
            let outcome = await run.cancelling({ () -> EventStreamEnding in
                let ending = await open(run, capture.sink)
                capture.returned()
                return ending
            }, once: {
                await capture.wait(for: 2)
                capture.noteCancel()
            }, within: limit)
            // The server's view: how the stream it was writing ended (at the latest once a
            // client that read on has timed out after the last event).
            let ending = await serverEnding(run, patterns, within: length + run.timeout + limit)
            var problems: [String] = []
            let cancelledAfter = capture.cancelledAfter ?? 0
            // Whether the stream ended before the check cancelled (or the call ended before
            // the check could): then this run says nothing of the client's cancel.
            let opened = run.expectations.requests(matchingAny: patterns).last(where: { $0.transcript != nil })
            let endedAt = opened.flatMap { event in event.transcript?.ending.map { event.receivedAt.addingTimeInterval($0.offset) } }
            var endedBeforeTheCancel = false
            if ending != .clientClosed, let endedAt { endedBeforeTheCancel = capture.cancelledAt.map { endedAt <= $0 } ?? true }
            if capture.cancelledAt == nil {
                problems.append("the call ended after handing over \(capture.events.count) events, before the check could cancel it")
            }
            // Over sockets a client's timeout is a close too: one that came only once every
            // event was written is a client that read on.
            let last = Data("data: tick \(events.count)\n".utf8)
            let wroteAll = opened?.transcript?.records.contains { $0.direction == .sent && $0.kind == .events && $0.payload.range(of: last) != nil } ?? false
            switch ending {
            case .clientClosed? where wroteAll:
                problems.append("the server wrote every event (\(events.count)) before the client closed the stream: "
                                + "the client read on after the cancel — cancel the request (URLSessionTask.cancel()) when the calling task is cancelled")
            case .clientClosed?:
                break
            case .clientTimedOut?:
                problems.append("the server wrote every event (\(events.count)) and then held the stream open until the client's timeout: "
                                + "the client read on after the cancel — cancel the request (URLSessionTask.cancel()) when the calling task is cancelled")
            case let other?:
                problems.append("the server's stream ended \(other.rawValue), not closed by the client")
            case nil:
                problems.append("the server's stream was still open \(CallOutcome<Int>.format(length + run.timeout + limit)) s after the cancel: "
                                + "the client never closed it")
            }
            switch outcome {
            case .returned(.cancelled, _):
                break
            case .returned(let other, _):
                problems.append("the call returned \(other) where it was cancelled")
            case .threw(let error, _):
                problems.append("the call threw \(error) instead of returning .cancelled")
            case .stillRunning(let seconds):
                problems.append("the call was still running \(CallOutcome<Int>.format(seconds)) s after it started, though cancelled")
            }
            let late = capture.late
            if !late.isEmpty {
                problems.append("\(late.count) events were handed over after the call returned: \(late.listed)")
            }
            guard problems.isEmpty else {
                var violation = run.expectations.violation("\(stream), cancelled after 2 events, to stop: the call returns cancelled and the server sees the close",
                                                           actual: "the call \(said(outcome)); it handed over \(capture.events.count) events "
                                                           + "(\(cancelledAfter) before the cancel)", differences: problems)
                // Still open, or ended before the cancel was made: this run says nothing of
                // the client's cancel, which the next attempt sees.
                violation.isTimingOnly = endedBeforeTheCancel
                throw violation
            }
        }
    }
}

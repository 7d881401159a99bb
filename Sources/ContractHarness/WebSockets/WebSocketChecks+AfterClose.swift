import Foundation
import MockCore

extension WebSocketChecks {
    /// No data frame from the client follows a close frame, each on a server of its own:
    /// - the client's own close: after the greeting the client closes, then is asked to
    ///   send a message. The server holds its answer to the close for two seconds (a stall),
    ///   so a frame the client sends after its close reaches it and is in the transcript;
    /// - the server's close: the server closes (4000) after the greeting, and once the
    ///   client's receive has failed it is asked to send a message.
    ///
    /// A send after a close should throw; the check judges by the wire only: no text or
    /// binary frame from the client after the first close frame either way (RFC 6455 §5.5.1).
    public static func sendsNothingAfterClose(_ id: String, path: String, limit: TimeInterval) -> WebSocketContract.Check {
        let hold: TimeInterval = 2
        let own = scenario("own-close", path: path, WebSocketScript(onConnect: [.text("welcome")]), fault: .stall(after: 1, duration: hold))
        let servers = scenario("server-close", path: path, WebSocketScript(onConnect: [.text("welcome")],
                                                                         close: WebSocketClose(code: 4000, reason: "closing")))
        return ContractCheck(id, .required, "no message is sent after a close frame, the client's own or the server's",
                             scenarios: [own, servers]) { run in
            _ = try await run.inParallel(2) { run, index in
                let clientCloses = index == 0
                try run.use(clientCloses ? "own-close" : "server-close")
                run.mark(clientCloses ? "a send after the client's close" : "a send after the server's close")
                let connection = try await open(run, path, within: limit)
                var problems = expect(await receive(run, connection, within: limit), .text("welcome"), "the greeting")
                if clientCloses {
                    let closed = await run.outcome(within: limit) { await connection.close(code: WebSocketCloseCode.normal, reason: "done") }
                    if case .returned = closed {} else { problems.append("the client's close \(said(closed))") }
                } else if case .returned(let message, _) = await receive(run, connection, within: limit) {
                    problems.append("a receive after the server's close returned \(message), where the connection is closed")
                }
                let sent = await run.outcome(within: limit) { try await connection.send(.text("after the close")) }
                let transcript = await transcript(run, path, within: hold + limit) { $0.ending != nil }
                let records = transcript?.records ?? []
                if let close = records.firstIndex(where: { $0.kind == .close }) {
                    let late = records[(close + 1)...].filter { $0.direction == .received && ($0.kind == .text || $0.kind == .binary) }
                    if !late.isEmpty {
                        let first = late[late.startIndex]
                        let whose = records[close].direction == .received ? "its own close frame" : "the server's close frame"
                        problems.append("the client sent \(late.count) data frame\(late.count == 1 ? "" : "s") after \(whose) "
                                        + "(\(first.kind.rawValue) \"\(String(decoding: first.payload, as: UTF8.self))\"; \(refusal(sent))): "
                                        + "after a close frame a client sends no data (RFC 6455 §5.5.1) — refuse a send on a closing connection")
                    }
                } else {
                    problems.append(clientCloses ? "the client's close never reached the server: no close frame in the transcript"
                                                 : "the server's close is not in the transcript")
                }
                guard problems.isEmpty else {
                    let expected = "GET \(path): no data frame from the client after " + (clientCloses ? "its own close" : "the server's close (4000)")
                    throw run.expectations.violation(expected, actual: "the socket: \(listed(transcript))", differences: problems)
                }
            }
        }
    }

    /// How the send after the close ended: `the send did not refuse it`, `the send threw …`.
    static func refusal(_ outcome: CallOutcome<Void>) -> String {
        switch outcome {
        case .returned: return "the send did not refuse it"
        case .threw(let error, _): return "the send threw \(error), but the frame went out"
        case .stillRunning(let seconds): return "the send was still running \(CallOutcome<Int>.format(seconds)) s later"
        }
    }
}

import Foundation
import MockCore

extension WebSocketChecks {
    /// The server closes right after a greeting, once with 1001 (going away) and once with
    /// 4000 (a code of the application's range), each on a server of its own. The client
    /// hands the greeting over, then fails its next receive, reports the server's code
    /// (``WebSocketConnection/closeCode``), answers with a close frame echoing the code
    /// (RFC 6455 §5.5.1), and the TCP connection ends with the handshake done: the
    /// transcript's ending is `finished` well before the server's wait for an answer
    /// (`WebSocketConversation.closeHandshakeTimeout`, 5 s) runs out.
    public static func answersServerClose(_ id: String, path: String, limit: TimeInterval) -> WebSocketContract.Check {
        let codes: [UInt16] = [WebSocketCloseCode.goingAway, 4000]
        let scenarios = codes.map { code in
            scenario("close-\(code)", path: path, WebSocketScript(onConnect: [.text("welcome")],
                                                                 close: WebSocketClose(code: code, reason: "closing with \(code)")))
        }
        return ContractCheck(id, .required, "a server's close (1001, 4000) is answered with a close frame echoing its code, "
                             + "reported with that code, and the connection ends with the handshake done", scenarios: scenarios) { run in
            _ = try await run.inParallel(codes.count) { run, index in
                let code = codes[index]
                try run.use("close-\(code)")
                run.mark("the server's close \(code)")
                let connection = try await open(run, path, within: limit)
                var problems = expect(await receive(run, connection, within: limit), .text("welcome"), "the greeting before the close")
                let after = await receive(run, connection, within: limit)
                switch after {
                case .threw: break
                case .returned(let message, _):
                    problems.append("a receive after the server's close returned \(message), where the connection is closed")
                case .stillRunning(let seconds):
                    problems.append("a receive after the server's close was still waiting \(CallOutcome<Int>.format(seconds)) s later: "
                                    + "the client never saw the close")
                }
                let seen = await run.outcome(within: limit) { await connection.closeCode }
                if case .returned(let reported, _) = seen, reported == code {} else {
                    let reported: String
                    if case .returned(let value, _) = seen { reported = value.map(String.init) ?? "none" } else { reported = "nothing (\(said(seen)))" }
                    problems.append("the client reports close code \(reported), where the server closed with \(code)")
                }
                let transcript = await transcript(run, path, within: limit) { $0.ending != nil }
                let answer = transcript?.records.first { $0.direction == .received && $0.kind == .close }
                if let answer {
                    if let echoed = Self.code(answer), echoed != code {
                        problems.append("the client answered the server's close (\(code)) with code \(echoed): echo the code it got (RFC 6455 §5.5.1)")
                    } else if Self.code(answer) == nil {
                        problems.append("the client answered the server's close (\(code)) with a close frame without a code: echo the code it got (RFC 6455 §5.5.1)")
                    }
                } else {
                    problems.append("the client never answered the server's close (\(code)) with a close frame of its own within "
                                    + "\(CallOutcome<Int>.format(limit)) s (RFC 6455 §5.5.1): the server waits for it before it ends the connection")
                }
                switch transcript?.ending?.how {
                case .finished?:
                    break
                case nil where answer == nil:
                    break
                case nil:
                    problems.append("the connection was still open \(CallOutcome<Int>.format(limit)) s after the close handshake")
                case let how?:
                    problems.append("the connection ended \(how.rawValue), not with the close handshake")
                }
                guard problems.isEmpty else {
                    throw run.expectations.violation("GET \(path): the server's close \(code) answered with a close \(code), reported as \(code), and the connection ended finished",
                                                     actual: "the socket: \(listed(transcript))", differences: problems)
                }
            }
        }
    }
}

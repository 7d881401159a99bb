import Foundation
import MockCore

extension WebSocketChecks {
    /// The server pings between two messages (`one`, a ping of `heartbeat 1`, `two`) and
    /// echoes text messages. The client answers the ping with a pong of the same payload
    /// (RFC 6455 §5.5.2, the transcript's received pong), hands over both messages, and the
    /// conversation goes on: a message sent after the ping is echoed, and the connection is
    /// still open then.
    public static func survivesPing(_ id: String, path: String, limit: TimeInterval) -> WebSocketContract.Check {
        let heartbeat = Data("heartbeat 1".utf8)
        let script = WebSocketScript(onConnect: [.text("one"), WebSocketMessage(.ping(heartbeat)), .text("two")],
                                     onMessage: [WebSocketReply("echo", match: MessagePattern(kind: .text),
                                                                messages: [WebSocketMessage(.template(try! ResponseTemplate("echo: {{message}}"), json: false))])])
        return ContractCheck(id, .required, "a server's ping mid-conversation is answered with a pong of its payload, "
                             + "and the conversation goes on", scenarios: [scenario("ping", path: path, script)]) { run in
            try run.use("ping")
            run.mark("the conversation with a ping")
            let connection = try await open(run, path, within: limit)
            var problems = expect(await receive(run, connection, within: limit), .text("one"), "the message before the ping")
            problems += expect(await receive(run, connection, within: limit), .text("two"), "the message after the ping")
            let sent = await run.outcome(within: limit) { try await connection.send(.text("after the ping")) }
            if case .returned = sent {} else { problems.append("sending a message after the ping \(said(sent))") }
            problems += expect(await receive(run, connection, within: limit), .text("echo: after the ping"), "the echo of a message sent after the ping")
            let transcript = await transcript(run, path, within: limit) { transcript in
                transcript.ending != nil || transcript.records.contains { $0.direction == .received && $0.kind == .pong }
            }
            let pongs = transcript?.records.filter { $0.direction == .received && $0.kind == .pong } ?? []
            if pongs.isEmpty {
                problems.append("no pong answered the server's ping (\"heartbeat 1\") within \(CallOutcome<Int>.format(limit)) s: "
                                + "answer every ping with a pong of its payload (RFC 6455 §5.5.2)")
            } else if !pongs.contains(where: { $0.payload == heartbeat }) {
                problems.append("the pong carried \(pongs.map { "\"\(String(decoding: $0.payload, as: UTF8.self))\"" }.joined(separator: ", ")), "
                                + "not the ping's payload \"heartbeat 1\" (RFC 6455 §5.5.3)")
            }
            if let ending = transcript?.ending {
                problems.append("the connection ended \(ending.how.rawValue) after the server's ping: the conversation did not go on")
            }
            await connection.close(code: WebSocketCloseCode.normal, reason: "")
            guard problems.isEmpty else {
                throw run.expectations.violation("GET \(path): one, a ping answered with a pong \"heartbeat 1\", two, then an echo",
                                                 actual: "the socket: \(listed(transcript))", differences: problems)
            }
        }
    }
}

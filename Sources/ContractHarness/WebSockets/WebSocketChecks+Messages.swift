import Foundation
import MockCore

extension WebSocketChecks {
    /// Messages go through whole and in order, both ways: the server sends text, binary
    /// (bytes that are no UTF-8), JSON text and text of two- to four-byte characters; the
    /// client hands each over as it came, kind and content. The client's own text and
    /// binary messages reach the server intact (the transcript's received frames), and the
    /// text is echoed.
    public static func messagesIntact(_ id: String, path: String, limit: TimeInterval) -> WebSocketContract.Check {
        let bytes = Data([0x00, 0xFF, 0x80, 0x7F, 0x0A, 0xC3])
        let sent: [WebSocketContract.Message] = [.text("one"), .binary(bytes), .text("{\"n\":3}"), .text("héllo ✓ 🌊")]
        let script = WebSocketScript(onConnect: [.text("one"), .binary(bytes), .text("{\"n\":3}"), .text("héllo ✓ 🌊")],
                                     onMessage: [WebSocketReply("echo", match: MessagePattern(kind: .text),
                                                                messages: [WebSocketMessage(.template(try! ResponseTemplate("echo: {{message}}"), json: false))])])
        let mine: [WebSocketContract.Message] = [.binary(Data([0xDE, 0xAD, 0xBE, 0xEF, 0x00, 0xFF])), .text("ünïcode 🌊")]
        return ContractCheck(id, .required, "text and binary messages go through whole and in order, both ways",
                             scenarios: [scenario("messages", path: path, script)]) { run in
            try run.use("messages")
            run.mark("the messages both ways")
            let connection = try await open(run, path, within: limit)
            var problems: [String] = []
            for (index, message) in sent.enumerated() {
                problems += expect(await receive(run, connection, within: limit), message, "message \(index + 1) of \(sent.count)")
            }
            for message in mine {
                let outcome = await run.outcome(within: limit) { try await connection.send(message) }
                if case .returned = outcome {} else { problems.append("sending \(message) \(said(outcome))") }
            }
            problems += expect(await receive(run, connection, within: limit), .text("echo: ünïcode 🌊"), "the echo of the client's text")
            let transcript = await transcript(run, path, within: limit) { transcript in
                transcript.ending != nil || transcript.records.filter { $0.direction == .received && ($0.kind == .text || $0.kind == .binary) }.count >= mine.count
            }
            let received = (transcript?.records ?? []).compactMap { record -> WebSocketContract.Message? in
                guard record.direction == .received else { return nil }
                switch record.kind {
                case .text: return .text(String(decoding: record.payload, as: UTF8.self))
                case .binary: return .binary(record.payload)
                default: return nil
                }
            }
            if received != mine {
                problems.append("the server received \(received.isEmpty ? "no message" : received.map(\.description).joined(separator: ", ")), "
                                + "where the client sent \(mine.map(\.description).joined(separator: ", "))")
            }
            await connection.close(code: WebSocketCloseCode.normal, reason: "")
            guard problems.isEmpty else {
                throw run.expectations.violation("GET \(path): \(sent.map(\.description).joined(separator: ", ")) handed over as sent, "
                                                 + "and the client's messages received intact",
                                                 actual: "the socket: \(listed(transcript))", differences: problems)
            }
        }
    }
}

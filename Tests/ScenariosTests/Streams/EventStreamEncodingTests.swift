import Foundation
import Testing
@testable import MockCore

/// Events on the wire as the WHATWG standard reads them: each test decodes what the
/// writer wrote with a parser written from the standard (`EventStreamParser`).
@Suite struct EventStreamEncodingTests {
    @Test func aTextEventIsItsFieldsAndAnEmptyLine() {
        let event = ServerSentEvent(event: "token", data: .text("Hel"), id: "7", retry: 3000, comment: "keep-alive")
        #expect(String(decoding: event.encoded, as: UTF8.self) == ": keep-alive\nid: 7\nevent: token\nretry: 3000\ndata: Hel\n\n")
        let parsed = EventStreamParser.parse(event.encoded)
        #expect(parsed.dispatched == [.init(type: "token", data: "Hel", lastEventID: "7")])
        #expect(parsed.retry == 3000)
    }

    @Test func everyLineEndOfTheDataIsADataLineAndTheClientJoinsThemWithLF() {
        let event = ServerSentEvent.text("one\ntwo\r\nthree\rfour")
        #expect(String(decoding: event.encoded, as: UTF8.self) == "data: one\ndata: two\ndata: three\ndata: four\n\n")
        #expect(EventStreamParser.parse(event.encoded).dispatched.map(\.data) == ["one\ntwo\nthree\nfour"])
    }

    @Test func leadingSpacesEmptyLinesAndColonsInDataSurvive() {
        for text in ["  indented", "", "\n", "a:b: c", ":starts with a colon", "trailing\n", "\u{1F600} 東京"] {
            let parsed = EventStreamParser.parse(ServerSentEvent.text(text).encoded)
            let expected = text.replacingOccurrences(of: "\r\n", with: "\n")
            #expect(parsed.dispatched.map(\.data) == [expected], "data \(text.debugDescription)")
        }
    }

    @Test func jsonDataIsOneCompactLine() {
        let event = ServerSentEvent.json(["text": "line\nbreak", "n": 1], event: "delta")
        #expect(String(decoding: event.encoded, as: UTF8.self) == #"event: delta"# + "\n" + #"data: {"n":1,"text":"line\nbreak"}"# + "\n\n")
        let data = EventStreamParser.parse(event.encoded).dispatched.first?.data ?? ""
        #expect(JSONValue(parsing: Data(data.utf8)) == ["text": "line\nbreak", "n": 1])
    }

    @Test func anEventWithoutDataIsNotDispatchedButSetsTheIDAndRetry() {
        let bytes = ServerSentEvent(id: "42", retry: 10, comment: "ping\nagain").encoded
        #expect(String(decoding: bytes, as: UTF8.self) == ": ping\n: again\nid: 42\nretry: 10\n\n")
        let parsed = EventStreamParser.parse(bytes)
        #expect(parsed.dispatched.isEmpty)
        #expect(parsed.lastEventID == "42")
        #expect(parsed.retry == 10)
    }

    /// A Swift-built type or ID with a line break cannot end its field early.
    @Test func lineBreaksInTheTypeOrIDAreDropped() {
        let event = ServerSentEvent(event: "a\nb", data: .text("x"), id: "1\r\n2\u{0}")
        #expect(EventStreamParser.parse(event.encoded).dispatched == [.init(type: "ab", data: "x", lastEventID: "12")])
        #expect(ServerSentEvent.fieldProblem("a\nb") != nil)
        #expect(ServerSentEvent.fieldProblem("a\u{0}") != nil)
        #expect(ServerSentEvent.fieldProblem("ok") == nil)
    }

    /// Any text written is what the client dispatches (line ends made LF): seeded inputs
    /// drawn from characters that matter to the format.
    @Test func whateverTheTextTheClientGetsItBack() {
        var random = SeededRandom(seed: 44)
        let alphabet: [String] = ["a", " ", ":", "\n", "\r", "\r\n", "data: ", "é", "\u{1F600}", "\u{FEFF}", "id", "\t"]
        for _ in 0..<500 {
            let text = (0..<Int(random.next() % 12)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
            let type = Bool.random(using: &random) ? "t\(random.next() % 9)" : nil
            let parsed = EventStreamParser.parse(ServerSentEvent(event: type, data: .text(text), id: "x").encoded)
            let expected = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            #expect(parsed.dispatched == [.init(type: type ?? "message", data: expected, lastEventID: "x")], "text \(text.debugDescription)")
        }
    }

    /// The malformed form: half the data, then two bytes that are not UTF-8; a client
    /// dispatches something that is not what was sent.
    @Test func theMalformedFormIsNotTheEventAnyMore() {
        let event = ServerSentEvent.json(["token": "hello"])
        let bytes = event.malformed()
        #expect(bytes.suffix(4) == Data([0xFF, 0xFE, 0x0A, 0x0A]))
        let data = EventStreamParser.parse(bytes).dispatched.first?.data ?? ""
        #expect(data.hasSuffix("\u{FFFD}\u{FFFD}"))
        #expect(JSONValue(parsing: Data(data.utf8)) == nil)
    }
}

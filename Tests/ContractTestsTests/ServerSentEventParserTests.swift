import ContractTests
import Foundation
import MockCore
import Testing

/// The reference client's parser against the WHATWG rules, whatever the chunks.
@Suite struct ServerSentEventParserTests {
    static let stream = Data(("\u{FEFF}: a comment\r\nevent: delta\r\ndata: first\r\ndata:second\r\nid: 7\r\n\r\n"
        + "data:  two spaces\rretry: 250\r\rdata: héllo ✓ 🌊\nid: bad\u{0}id\n\n"
        + "data\nevent: empty\n\ndata: tail without its empty line\n").utf8)

    static let expected = [
        ReceivedEvent(type: "delta", data: "first\nsecond", lastEventID: "7"),
        ReceivedEvent(data: " two spaces", lastEventID: "7"),
        ReceivedEvent(data: "héllo ✓ 🌊", lastEventID: "7"),
        ReceivedEvent(type: "empty", data: "", lastEventID: "7"),
    ]

    static func parse(_ chunks: [Data]) throws -> (events: [ReceivedEvent], parser: ServerSentEventParser) {
        var parser = ServerSentEventParser()
        var events: [ReceivedEvent] = []
        for chunk in chunks { events += try parser.parse(chunk) }
        return (events, parser)
    }

    @Test func wholeStreamFollowsTheStandard() throws {
        let (events, parser) = try Self.parse([Self.stream])
        #expect(events == Self.expected)
        #expect(parser.retry == 250)
        #expect(parser.lastEventID == "7")
        // The last line has no empty line after it: never dispatched, still held.
        #expect(parser.holdsPartialEvent)
    }

    /// Cut in two at every byte (inside CR LF, inside a UTF-8 character), and byte by byte.
    @Test func everyCutGivesTheSameEvents() throws {
        let bytes = [UInt8](Self.stream)
        for cut in 0...bytes.count {
            let (events, _) = try Self.parse([Data(bytes[..<cut]), Data(bytes[cut...])])
            #expect(events == Self.expected, "cut at byte \(cut)")
        }
        let (events, _) = try Self.parse(bytes.map { Data([$0]) })
        #expect(events == Self.expected)
    }

    @Test func whatTheWriterSendsIsWhatTheParserDispatches() throws {
        let sent = [ServerSentEvent(event: "a", data: .text("x\r\ny\rz"), id: "1"), ServerSentEvent(comment: "c"), .json(["k": "v"], id: "2")]
        let (events, _) = try Self.parse(sent.map(\.encoded))
        #expect(events == [ReceivedEvent(type: "a", data: "x\ny\nz", lastEventID: "1"), ReceivedEvent(data: "{\"k\":\"v\"}", lastEventID: "2")])
    }

    /// The ID counts from the empty line that ends its event: a stream cut before then
    /// resumes after the previous event.
    @Test func anIDCountsOnlyOnceItsEventEnds() throws {
        var parser = ServerSentEventParser()
        _ = try parser.parse(Data("id: 1\ndata: a\n\nid: 2\ndata: b\n".utf8))
        #expect(parser.lastEventID == "1")
        parser.restart()
        #expect(!parser.holdsPartialEvent)
        #expect(try parser.parse(Data("data: c\n\n".utf8)) == [ReceivedEvent(data: "c", lastEventID: "1")])
    }

    @Test func aLineLongerThanTheBoundIsRefused() throws {
        var parser = ServerSentEventParser(maximumEventBytes: 64)
        #expect(throws: ServerSentEventParser.Failure.self) { try parser.parse(Data(("data: " + String(repeating: "x", count: 100)).utf8)) }
        var many = ServerSentEventParser(maximumEventBytes: 64)
        #expect(throws: ServerSentEventParser.Failure.self) { try many.parse(Data(String(repeating: "data: 0123456789\n", count: 10).utf8)) }
        var fits = ServerSentEventParser(maximumEventBytes: 64)
        #expect(try fits.parse(Data((String(repeating: "data: 01234\n", count: 3) + "\n").utf8)).count == 1)
    }
}

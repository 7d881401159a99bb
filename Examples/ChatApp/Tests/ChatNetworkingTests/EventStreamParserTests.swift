import ChatNetworking
import Foundation
import Testing

/// The parser reads the WHATWG rules from chunks of any size.
@Suite struct EventStreamParserTests {
    static let body = "\u{FEFF}: a comment\r\nevent: token\r\nid: 7\r\ndata: {\"text\":\"é\"}\r\n\r\ndata: one\ndata:two\n\nretry: 15\rdata\r\rdata: cut"

    /// Whole, and fed a byte at a time (a CR LF, a BOM and a two-byte character split), the
    /// same events; the last event, which the body ends inside, is never dispatched.
    @Test(arguments: [Int.max, 1, 2, 5])
    func theSameEventsFromChunksOfAnySize(size: Int) throws {
        var parser = EventStreamParser()
        let bytes = Array(Self.body.utf8)
        var events: [StreamedEvent] = []
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + min(size, bytes.count))
            events += try parser.parse(Data(bytes[index..<end]))
            index = end
        }
        #expect(events == [
            StreamedEvent(type: "token", data: #"{"text":"é"}"#, lastEventID: "7"),
            StreamedEvent(data: "one\ntwo", lastEventID: "7"),
            StreamedEvent(data: "", lastEventID: "7"),
        ])
        #expect(parser.retry == 15)
    }

    /// A server that never ends an event is cut off at the limit, not buffered without end.
    @Test func anEventOverTheLimitIsRefused() throws {
        var parser = EventStreamParser()
        let line = Data(("data: " + String(repeating: "x", count: 64 * 1024)).utf8)
        #expect(throws: EventStreamParser.EventTooLarge()) {
            for _ in 0..<17 { _ = try parser.parse(line) }
        }
    }
}

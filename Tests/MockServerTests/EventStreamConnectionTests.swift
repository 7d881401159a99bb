import Foundation
import MockFixtures
import NIOCore
import NIOEmbedded
import NIOHTTP1
import MockCore
import Testing
@_spi(Fuzzing) @testable import MockServer

/// A scripted event stream on an HTTP/1.1 connection (`EmbeddedChannel`, the loop's clock):
/// each event is written as its own chunk when it is due, and each end shows on the wire as
/// it does from a real server.
@Suite struct EventStreamConnectionTests {
    typealias Connection = ConnectionHandlerTests.Connection

    static let three = EventStream([.text("a", id: "1"), .text("b", id: "2", delay: 1), .text("c", id: "3", delay: 1)])

    static func connection(_ outcome: Outcome, limits: ConnectionLimits = ConnectionLimits()) throws -> Connection {
        try Connection(scenarios: [Scenario(name: "stream", rules: [Rule("events", .get("/events"), always: outcome)])], limits: limits)
    }

    /// The chunks' payloads in `text` (an HTTP/1.1 chunked body after its head).
    static func chunks(_ text: String) -> [String] {
        let bytes = Array(text.utf8)
        let crlf: [UInt8] = [13, 10]
        func find(_ from: Int) -> Int? {
            guard from + 1 < bytes.count else { return nil }
            return (from..<(bytes.count - 1)).first { bytes[$0] == crlf[0] && bytes[$0 + 1] == crlf[1] }
        }
        var index = 0
        while let line = find(index) {   // past the head: the first empty line
            index = line + 2
            if line + 3 < bytes.count, bytes[line + 2] == 13, bytes[line + 3] == 10 { index = line + 4; break }
        }
        var chunks: [String] = []
        while let line = find(index), let size = Int(String(decoding: bytes[index..<line], as: UTF8.self), radix: 16),
              line + 2 + size <= bytes.count {
            chunks.append(String(decoding: bytes[(line + 2)..<(line + 2 + size)], as: UTF8.self))
            index = line + 2 + size + 2
        }
        return chunks
    }

    @Test func eachEventIsAChunkWrittenWhenItIsDue() throws {
        let connection = try Self.connection(.eventStream(Self.three))
        try connection.send(ConnectionHandlerTests.get("/events"))
        let head = try connection.written()
        #expect(head.hasPrefix("HTTP/1.1 200"))
        #expect(head.lowercased().contains("transfer-encoding: chunked"))
        #expect(head.lowercased().contains("content-type: text/event-stream"))
        #expect(!head.lowercased().contains("content-length"))
        #expect(Self.chunks(head) == ["id: 1\ndata: a\n\n"])
        connection.advance(0.9)
        #expect(try connection.written().isEmpty)
        connection.advance(0.1)
        #expect(try connection.written() == "f\r\nid: 2\ndata: b\n\n\r\n")
        connection.advance(1)
        // The last event, then the body's end: the connection serves on.
        #expect(try connection.written() == "f\r\nid: 3\ndata: c\n\n\r\n0\r\n\r\n")
        #expect(connection.isOpen)
        let entry = try #require(connection.engine.journal.entries().first)
        let transcript = try #require(entry.transcript)
        #expect(transcript.records.map(\.payload) == Self.three.events.map(\.encoded))
        #expect(transcript.ending?.how == .finished)
        try connection.send(ConnectionHandlerTests.get("/events"))
        #expect(try connection.written().hasPrefix("HTTP/1.1 200"))
    }

    @Test func lastEventIDResumesAfterThatEvent() throws {
        let connection = try Self.connection(.eventStream(Self.three))
        try connection.send(ConnectionHandlerTests.get("/events", "Last-Event-ID: 2\r\n"))
        connection.advance(1)
        #expect(Self.chunks(try connection.written()) == ["id: 3\ndata: c\n\n", ""])
    }

    @Test func aDropResetsTheConnectionMidStream() throws {
        let connection = try Self.connection(Outcome.eventStream(Self.three).streamFaulted(.drop(after: 1, clean: false)))
        try connection.send(ConnectionHandlerTests.get("/events"))
        connection.advance(1)
        #expect(Self.chunks(try connection.written()) == ["id: 1\ndata: a\n\n"])
        #expect(!connection.isOpen)
        #expect(connection.engine.journal.entries().first?.transcript?.ending?.how == .reset)
    }

    @Test func anEndWithoutTerminatorClosesWithoutTheLastChunk() throws {
        let connection = try Self.connection(Outcome.eventStream(Self.three).streamFaulted(.endEarly(after: 2)))
        try connection.send(ConnectionHandlerTests.get("/events"))
        connection.advance(2)
        let written = try connection.written()
        #expect(Self.chunks(written) == ["id: 1\ndata: a\n\n", "id: 2\ndata: b\n\n"])
        #expect(!written.hasSuffix("0\r\n\r\n"))
        #expect(!connection.isOpen)
        #expect(connection.engine.journal.entries().first?.transcript?.ending?.how == .closedWithoutEnd)
    }

    @Test func aStallForEverKeepsTheStreamOpenUntilTheClientGoes() throws {
        let connection = try Self.connection(Outcome.eventStream(Self.three).streamFaulted(.stall(after: 1, duration: nil)))
        try connection.send(ConnectionHandlerTests.get("/events"))
        _ = try connection.written()
        connection.advance(3600)
        #expect(try connection.written().isEmpty)
        #expect(connection.isOpen)
        try connection.channel.close().wait()
        let entries = connection.engine.journal.entries()
        #expect(entries.count == 1)
        #expect(entries.first?.transcript?.ending?.how == .clientClosed)
        #expect(entries.first?.transcript?.records.map(\.kind) == [.events, .stall])
    }

    @Test func aTickerWritesUntilTheClientGoes() throws {
        let ticker = EventStream([.text("tick", delay: 1)], repetition: .forever, autoIDs: true)
        let connection = try Self.connection(.eventStream(ticker))
        try connection.send(ConnectionHandlerTests.get("/events"))
        _ = try connection.written()
        connection.advance(100)
        let text = try connection.written()
        let chunks = Self.chunks("\r\n\r\n" + text)
        #expect(chunks.count == 100)
        #expect(chunks.last == "id: 100\ndata: tick\n\n")
        try connection.channel.close().wait()
        #expect(connection.engine.journal.entries().first?.transcript?.ending?.how == .clientClosed)
        // Nothing is scheduled for a closed connection.
        connection.advance(100)
        #expect(try connection.written().isEmpty)
    }

    /// Events already due are written in a loop, not by recursion: fifty thousand at once
    /// would overflow an event loop thread's stack (512 KiB on Apple platforms) otherwise.
    @Test func aLongRunOfEventsDueAtOnceIsWrittenWithoutRecursion() throws {
        let burst = EventStream([.text("x")], repetition: .times(50_000))
        let connection = try Self.connection(.eventStream(burst))
        try connection.send(ConnectionHandlerTests.get("/events"))
        let chunks = Self.chunks(try connection.written())
        #expect(chunks.count == 50_001)
        #expect(chunks.last == "")
    }

    @Test func aClientThatStopsReadingHoldsTheNextEvent() throws {
        let connection = try Self.connection(.eventStream(Self.three))
        try connection.send(ConnectionHandlerTests.get("/events"))
        _ = try connection.written()
        connection.channel.isWritable = false
        connection.channel.pipeline.fireChannelWritabilityChanged()
        connection.advance(5)
        #expect(try connection.written().isEmpty)
        connection.channel.isWritable = true
        connection.channel.pipeline.fireChannelWritabilityChanged()
        #expect(Self.chunks("\r\n\r\n" + (try connection.written())) == ["id: 2\ndata: b\n\n", "id: 3\ndata: c\n\n", ""])
    }

    @Test func aHeadRequestGetsTheHeadAloneAndTheConnectionServesOn() throws {
        let connection = try Self.connection(.eventStream(Self.three))
        try connection.send("HEAD /events HTTP/1.1\r\nHost: x\r\n\r\n")
        let written = try connection.written()
        #expect(written.hasPrefix("HTTP/1.1 200"))
        #expect(written.hasSuffix("\r\n\r\n") && Self.chunks(written).isEmpty, "a HEAD answer has no body: \(written)")
        #expect(connection.engine.journal.entries().first?.transcript?.ending?.how == .finished)
        try connection.send(ConnectionHandlerTests.get("/events"))
        #expect(Self.chunks(try connection.written()) == ["id: 1\ndata: a\n\n"])
    }
}

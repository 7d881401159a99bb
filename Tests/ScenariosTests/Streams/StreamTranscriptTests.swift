import Foundation
import MockFixtures
import Testing
@testable import MockCore

/// The journal's view of a stream: bounded per stream, charged to the journal's budget,
/// gone with its entry, and shown by the admin API's JSON.
@Suite struct StreamTranscriptTests {
    static func record(_ index: Int, size: Int = 10) -> StreamTranscript.Record {
        StreamTranscript.Record(.sent, .events, offset: Double(index), payload: Data(repeating: 0x61, count: size))
    }

    @Test func theFirstRecordsAreKeptAndTheRestCounted() {
        var transcript = StreamTranscript(.eventStream, capacity: 3)
        for index in 0..<10 { transcript.append(Self.record(index)) }
        transcript.append(StreamTranscript.Record(.received, .text, offset: 11, payload: Data("hi".utf8)))
        #expect(transcript.records.count == 3)
        #expect(transcript.notKept == 8 && transcript.notKeptBytes == 72)
        #expect(transcript.sentCount == 10 && transcript.sentBytes == 100)
        #expect(transcript.receivedCount == 1 && transcript.receivedBytes == 2)
        transcript.end(.clientClosed, offset: 12)
        transcript.end(.reset, offset: 13)
        #expect(transcript.ending?.how == .clientClosed && transcript.ending?.offset == 12)
    }

    @Test func aRecordKeepsAtMostItsPayloadLimit() {
        let record = Self.record(0, size: StreamTranscript.payloadLimit * 3)
        #expect(record.size == StreamTranscript.payloadLimit * 3)
        #expect(record.payload.count == StreamTranscript.payloadLimit)
        var transcript = StreamTranscript(.webSocket)
        transcript.append(record)
        guard case .object(let json) = transcript.json, case .array(let records)? = json["records"], case .object(let first)? = records.first else {
            Issue.record("no records in \(transcript.json)")
            return
        }
        #expect(first["truncated"] == true)
        #expect(first["size"] == .number(Double(StreamTranscript.payloadLimit * 3)))
    }

    @Test func binaryPayloadsAreBase64AndTextIsText() {
        var transcript = StreamTranscript(.webSocket, fault: .closeWithoutCode(after: 1))
        transcript.append(StreamTranscript.Record(.received, .binary, offset: 0.0015, payload: Data([0, 1])))
        transcript.append(StreamTranscript.Record(.sent, .close, offset: 0.5, note: "1000 bye"))
        transcript.end(.finished, offset: 0.75)
        #expect(transcript.json == [
            "type": "webSocket", "sent": 1, "received": 1, "sentBytes": 0, "receivedBytes": 2, "kept": 2, "notKept": 0,
            "streamFault": ["closeWithoutCode": ["after": 1]], "ended": "finished", "endedAtMs": 750,
            "records": [
                ["direction": "received", "kind": "binary", "atMs": 1.5, "size": 2, "base64": "AAE="],
                ["direction": "sent", "kind": "close", "atMs": 500, "size": 0, "note": "1000 bye"],
            ],
        ])
    }

    static let streamPlan: ResponsePlan = {
        var plan = ResponsePlan(status: 200, headers: ["Content-Type": "text/event-stream"])
        plan.eventStream = EventStream([.text("a")])
        return plan
    }()

    /// A transport that holds a frame's bytes in another form passes how to make them: the
    /// journal makes them only for a record it keeps, and counts the rest by their size.
    @Test func aPayloadIsMadeOnlyForARecordTheTranscriptKeeps() {
        let journal = Journal(capacity: 10, transcriptCapacity: 2)
        let stream = journal.record(MockRequest(method: "GET", uri: "/events"), plan: Self.streamPlan).id
        var made = 0
        for index in 0..<5 {
            #expect(journal.append(.received, .text, offset: Double(index), size: 3, payload: {
                made += 1
                return Data("abc".utf8)
            }, to: stream))
        }
        #expect(made == 2)
        let transcript = journal.entry(stream)?.transcript
        #expect(transcript?.records.map(\.payload) == [Data("abc".utf8), Data("abc".utf8)])
        #expect(transcript?.notKept == 3 && transcript?.notKeptBytes == 9)
        #expect(transcript?.receivedCount == 5 && transcript?.receivedBytes == 15)
        #expect(journal.keptBytes > 0)
        // A record over the payload limit keeps its whole size, through either way in.
        #expect(journal.append(Self.record(9, size: 2000), to: stream))
        let other = journal.record(MockRequest(method: "GET", uri: "/events"), plan: Self.streamPlan).id
        #expect(journal.append(Self.record(0, size: 2000), to: other))
        #expect(journal.append(.sent, .events, offset: 1, size: 3000, payload: { Data(repeating: 0x61, count: StreamTranscript.payloadLimit) }, to: other))
        let kept = journal.entry(other)?.transcript
        #expect(kept?.records.map(\.size) == [2000, 3000])
        #expect(kept?.records.map(\.payload.count) == [StreamTranscript.payloadLimit, StreamTranscript.payloadLimit])
        #expect(kept?.sentBytes == 5000)
    }

    @Test func theJournalKeepsATranscriptForAStreamsEntryOnly() {
        let journal = Journal(capacity: 10, transcriptCapacity: 2)
        let plain = journal.record(MockRequest(method: "GET", uri: "/a"), plan: .json(200, Data("{}".utf8))).id
        let stream = journal.record(MockRequest(method: "GET", uri: "/events"), plan: Self.streamPlan).id
        #expect(!journal.append(Self.record(0), to: plain))
        #expect(journal.entry(plain)?.transcript == nil)
        for index in 0..<5 { #expect(journal.append(Self.record(index), to: stream)) }
        #expect(journal.endStream(stream, .finished, offset: 5))
        let transcript = journal.entry(stream)?.transcript
        #expect(transcript?.stream == .eventStream)
        #expect(transcript?.records.count == 2 && transcript?.notKept == 3)
        #expect(transcript?.ending?.how == .finished)
        #expect(journal.entries().last?.transcript == transcript)
        // What the admin API lists, and the single entry with its records.
        #expect(journal.entry(stream)?.json["stream"]?["sent"] == 5)
        #expect(journal.entry(stream)?.json["stream"]?["records"] == nil)
        #expect(journal.entry(stream)?.detailJSON["stream"]?["records"]?.arrayValue?.count == 2)
        #expect(journal.entry(plain)?.json["stream"] == nil)
    }

    @Test func keptRecordsAreChargedToTheBudgetAndGoWithTheirEntry() {
        let journal = Journal(capacity: 10, byteBudget: 4000, transcriptCapacity: 1000)
        let stream = journal.record(MockRequest(method: "GET", uri: "/events"), plan: Self.streamPlan).id
        let other = journal.record(MockRequest(method: "GET", uri: "/b"), plan: .json(200, Data()))
        let before = journal.keptBytes
        journal.append(Self.record(0, size: 100), to: stream)
        #expect(journal.keptBytes == before + 100 + StreamTranscript.recordOverhead)
        // A stream cannot grow the journal past its budget: its entry goes, and with it
        // its transcript.
        for index in 0..<100 { journal.append(Self.record(index, size: 100), to: stream) }
        #expect(journal.keptBytes <= 4000)
        #expect(journal.entry(stream) == nil)
        #expect(!journal.append(Self.record(0), to: stream))
        #expect(journal.entry(other.id) != nil)
    }

    @Test func clearingForgetsTranscripts() {
        let journal = Journal(capacity: 10)
        let stream = journal.record(MockRequest(method: "GET", uri: "/events"), plan: Self.streamPlan).id
        journal.clear()
        #expect(!journal.append(Self.record(0), to: stream))
        #expect(!journal.endStream(stream, .finished, offset: 0))
    }

    @Test func evictedByCountTheTranscriptGoesToo() {
        let journal = Journal(capacity: 2)
        let stream = journal.record(MockRequest(method: "GET", uri: "/events"), plan: Self.streamPlan).id
        for _ in 0..<2 { journal.record(MockRequest(method: "GET", uri: "/x"), plan: .json(200, Data())) }
        #expect(!journal.append(Self.record(0), to: stream))
    }

    /// The exchange journals a stream with the time of each record from the request's
    /// arrival, on the engine's clock, and finishes the entry when it ends.
    @Test func theExchangeRecordsOnTheEnginesClock() throws {
        let clock = ManualTimeSource()
        let scenario = Scenario(name: "s", rules: [Rule("e", .get("/events"), always: .eventStream(EventStream([.text("a")])))])
        let engine = try MockEngine(scenarios: [scenario], current: "s", source: ClosureResponder { _ in .error(404, "none") }, timeSource: clock)
        let (plan, exchange) = Pipeline(engine: engine).answer(MockRequest(method: "GET", uri: "/events", receivedAt: clock.now()))
        #expect(plan.eventStream != nil)
        clock.advance(by: 0.25)
        exchange.record(.sent, .events, payload: Data("data: a\n\n".utf8))
        clock.advance(by: 1)
        exchange.endStream(.finished)
        let entry = try #require(engine.journal.entry(exchange.id))
        #expect(entry.transcript?.records.map(\.offset) == [0.25])
        #expect(entry.transcript?.ending?.offset == 1.25)
        #expect(entry.duration == 1.25)
    }
}

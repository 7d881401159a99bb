@testable import ContractHarness
import Foundation
import MockFixtures
import BuiltInMockAPIs
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a URLSession data delegate sees of each chunk and of the end, with times.
final class StreamRecorder: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var received: [(at: Date, data: Data)] = []
    private var head: HTTPURLResponse?
    private var ended: (any Error)??
    private var waiter: CheckedContinuation<(any Error)?, Never>?
    /// Called with the count of chunks after each one, on the delegate queue.
    var onChunk: (@Sendable (Int) -> Void)?

    var chunks: [(at: Date, data: Data)] { lock.withLock { received } }
    var response: HTTPURLResponse? { lock.withLock { head } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let count = lock.withLock { () -> Int in
            received.append((Date(), data))
            return received.count
        }
        onChunk?(count)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        // The head, read here: the response callback's completion handler is `@Sendable`
        // in some SDKs and not in others, and a near miss is never called.
        let waiting = lock.withLock { () -> CheckedContinuation<(any Error)?, Never>? in
            head = task.response as? HTTPURLResponse
            ended = .some(error)
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume(returning: error)
    }

    /// The task's end: nil for a finished load, else its error.
    func end() async -> (any Error)? {
        await withCheckedContinuation { continuation in
            let done = lock.withLock { () -> (any Error)?? in
                if ended == nil { waiter = continuation }
                return ended
            }
            if let done { continuation.resume(returning: done) }
        }
    }
}

/// An event stream through the in-process transport: one `didReceive` per event, when it
/// is due, and each stream fault as URLSession shows it over a socket.
@Suite struct InProcessStreamTests {
    struct Played {
        let chunks: [(at: Date, data: Data)]
        let error: URLError.Code?
        let response: HTTPURLResponse?
        let started: Date
        let engine: MockEngine

        /// What a client dispatches from the chunks.
        var events: [String] {
            String(decoding: chunks.reduce(into: Data()) { $0.append($1.data) }, as: UTF8.self)
                .components(separatedBy: "\n\n").filter { !$0.isEmpty }
                .map { $0.split(separator: "\n").filter { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) }.joined(separator: "\n") }
        }
    }

    static let three = EventStream([.text("a", id: "1"), .text("b", id: "2", delay: 0.4), .text("c", id: "3", delay: 0.4)])

    static func engine(_ outcome: Outcome, timeScale: Double) throws -> MockEngine {
        let scenario = Scenario(name: "stream", rules: [Rule("events", .get("/events"), always: outcome)])
        return try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory, extraScenarios: [scenario],
                                                                 scenario: scenario.name, timeScale: timeScale))
    }

    /// GETs `/events` with a data delegate and waits for the end (bounded).
    static func play(_ outcome: Outcome, timeScale: Double = 1, timeout: TimeInterval = 60, headers: [String: String] = [:],
                     method: String = "GET", recorder: StreamRecorder = StreamRecorder(),
                     whileOpen: (@Sendable (URLSessionTask) -> Void)? = nil) async throws -> Played {
        let engine = try engine(outcome, timeScale: timeScale)
        let registration = try await MockURLProtocol.register(engine)
        let session = URLSession(configuration: registration.sessionConfiguration(timeout: timeout), delegate: recorder, delegateQueue: nil)
        var request = URLRequest(url: registration.baseURL.appendingPathComponent("events"))
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let task = session.dataTask(with: request)
        let started = Date()
        task.resume()
        whileOpen?(task)
        let error = try await bounded("the stream's end") { await recorder.end() }
        session.finishTasksAndInvalidate()
        await registration.unregister()
        return Played(chunks: recorder.chunks, error: (error as? URLError)?.code, response: recorder.response, started: started, engine: engine)
    }

    @Test func aDataDelegateGetsOneChunkPerEventAtItsDelay() async throws {
        let played = try await Self.play(.eventStream(Self.three))
        #expect(played.error == nil)
        #expect(played.chunks.map(\.data) == Self.three.events.map(\.encoded))
        #expect(played.events == ["a", "b", "c"])
        // Never early: each event comes no sooner than its time from the request (0.4 s,
        // 0.8 s; a loaded machine can only make it later). Delivered at once, all would
        // come at about 0.
        let times = played.chunks.map { $0.at.timeIntervalSince(played.started) }
        #expect(times.count == 3)
        if times.count == 3 {
            #expect(times[1] >= 0.39 && times[2] >= 0.79, "arrivals \(times)")
            #expect(times[2] < 30, "arrivals \(times)")
        }
        #expect(played.response?.value(forHTTPHeaderField: "Content-Type") == "text/event-stream; charset=utf-8")
        #expect(played.response?.value(forHTTPHeaderField: "Content-Length") == nil)
    }

    @Test func theJournalHoldsTheStreamsTranscriptAndEnd() async throws {
        let played = try await Self.play(.eventStream(Self.three), timeScale: 0.01)
        let entry = try #require(played.engine.journal.entries().last)
        let transcript = try #require(entry.transcript)
        #expect(transcript.records.map(\.payload) == Self.three.events.map(\.encoded))
        #expect(transcript.records.allSatisfy { $0.direction == .sent && $0.kind == .events })
        #expect(transcript.ending?.how == .finished)
        #expect(entry.duration != nil)
        // The admin API shows it: counts in the list, the records in the entry.
        let registration = try await MockURLProtocol.register(played.engine)
        let session = URLSession(configuration: registration.sessionConfiguration(timeout: 30))
        let list = try await session.data(from: registration.baseURL.appendingPathComponent("__admin/requests"))
        let detail = try await session.data(from: registration.baseURL.appendingPathComponent("__admin/requests/\(entry.id)"))
        await registration.unregister()
        let listed = JSONValue(parsing: list.0)?["requests"]?.arrayValue?.first { $0["id"] == .number(Double(entry.id)) }
        #expect(listed?["stream"]?["sent"] == 3)
        #expect(listed?["stream"]?["ended"] == "finished")
        let records = JSONValue(parsing: detail.0)?["stream"]?["records"]?.arrayValue ?? []
        #expect(records.map { $0["text"] } == ["id: 1\ndata: a\n\n", "id: 2\ndata: b\n\n", "id: 3\ndata: c\n\n"])
    }

    @Test func lastEventIDResumesAfterThatEvent() async throws {
        let played = try await Self.play(.eventStream(Self.three), timeScale: 0.01, headers: ["Last-Event-ID": "1"])
        #expect(played.events == ["b", "c"])
        #expect(played.error == nil)
    }

    @Test func aHeadRequestGetsTheHeadAlone() async throws {
        let played = try await Self.play(.eventStream(Self.three), timeScale: 0.01, method: "HEAD")
        #expect(played.error == nil)
        #expect(played.chunks.isEmpty)
        #expect(played.response?.statusCode == 200)
    }

    @Test func aDropIsALostConnectionAfterTheEventsBeforeIt() async throws {
        let played = try await Self.play(Outcome.eventStream(Self.three).streamFaulted(.drop(after: 1, clean: false)), timeScale: 0.01)
        #expect(played.events == ["a"])
        #expect(played.error == .networkConnectionLost)
        #expect(played.engine.journal.entries().last?.transcript?.ending?.how == .reset)
    }

    @Test func anEndWithoutTheTerminatorIsALostConnection() async throws {
        let played = try await Self.play(Outcome.eventStream(Self.three).streamFaulted(.endEarly(after: 2)), timeScale: 0.01)
        #expect(played.events == ["a", "b"])
        #expect(played.error == .networkConnectionLost)
        #expect(played.engine.journal.entries().last?.transcript?.ending?.how == .closedWithoutEnd)
    }

    @Test func aCleanDropLooksLikeAShortFinishedStream() async throws {
        let played = try await Self.play(Outcome.eventStream(Self.three).streamFaulted(.drop(after: 2, clean: true)), timeScale: 0.01)
        #expect(played.events == ["a", "b"])
        #expect(played.error == nil)
    }

    @Test func aBurstIsOneChunk() async throws {
        let played = try await Self.play(Outcome.eventStream(Self.three).streamFaulted(.burst), timeScale: 0.01)
        #expect(played.chunks.count == 1)
        #expect(played.events == ["a", "b", "c"])
    }

    @Test func aMalformedEventArrivesBroken() async throws {
        let played = try await Self.play(Outcome.eventStream(Self.three).streamFaulted(.malformed(after: 1)), timeScale: 0.01)
        #expect(played.chunks.count == 3)
        #expect(played.chunks.dropFirst().first?.data.contains(0xFF) == true)
        #expect(played.error == nil)
    }

    /// A stall longer than the request's timeout: URLSession's timeout between bytes.
    @Test func aStallTimesOutAtTheClientsTimeout() async throws {
        let played = try await Self.play(Outcome.eventStream(Self.three).streamFaulted(.stall(after: 1, duration: nil)), timeout: 1)
        #expect(played.events == ["a"])
        #expect(played.error == .timedOut)
        let waited = Date().timeIntervalSince(played.started)
        #expect(waited >= 0.99, "timed out \(waited) s after the request, not the request's 1 s after its last event")
        #expect(played.engine.journal.entries().last?.transcript?.ending?.how == .clientTimedOut)
        #expect(played.engine.journal.entries().last?.transcript?.records.last?.kind == .stall)
    }

    @Test func aShortStallIsOnlyAPause() async throws {
        let played = try await Self.play(Outcome.eventStream(Self.three).streamFaulted(.stall(after: 1, duration: 0.5)), timeout: 30)
        #expect(played.events == ["a", "b", "c"])
        #expect(played.error == nil)
        let times = played.chunks.map { $0.at.timeIntervalSince(played.started) }
        #expect(times.count == 3 && times[1] >= 0.89, "arrivals \(times): b waits its 0.4 s and the stall's 0.5 s")
    }

    /// A client that cancels a stream without end: the transport stops, and the journal
    /// says the client went.
    @Test func aCancelledTickerStopsAndIsJournaledAsClosedByTheClient() async throws {
        let ticker = EventStream([.text("tick", delay: 0.05)], repetition: .forever, autoIDs: true)
        let recorder = StreamRecorder()
        let holder = Locked<URLSessionTask?>(nil)
        recorder.onChunk = { count in if count == 3 { holder.current?.cancel() } }
        let played = try await Self.play(.eventStream(ticker), recorder: recorder, whileOpen: { task in holder.withLock { $0 = task } })
        #expect(played.error == .cancelled)
        #expect(played.chunks.count >= 3)
        let transcript = try await bounded("the stream's end in the journal") { () -> StreamTranscript? in
            while played.engine.journal.entries().last?.transcript?.ending == nil { try await Task.sleep(nanoseconds: 10_000_000) }
            return played.engine.journal.entries().last?.transcript
        }
        #expect(transcript?.ending?.how == .clientClosed)
    }

    /// A WebSocket cannot be carried by a data task: the upgrade is refused as no server
    /// switching protocols could answer one, and a plain request gets the 426.
    @Test func aWebSocketIsNotCarriedInProcess() async throws {
        let outcome = Outcome.webSocket(WebSocketScript(onConnect: [.text("hi")]))
        let plain = try await Self.play(outcome)
        #expect(plain.response?.statusCode == 426)
        #if canImport(FoundationNetworking)
        // (Apple's loading system reserves the Connection header for itself.)
        let upgrade = try await Self.play(outcome, headers: ["Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                                                             "Sec-WebSocket-Version": "13"])
        #expect(upgrade.error == .badServerResponse)
        #endif
    }

    #if canImport(Darwin)
    /// `URLSession.bytes(for:)` reads the events as they come, line by line.
    @Test func bytesForRequestReadsEachEventsLinesAsTheyCome() async throws {
        let engine = try Self.engine(.eventStream(Self.three), timeScale: 1)
        let registration = try await MockURLProtocol.register(engine)
        let session = URLSession(configuration: registration.sessionConfiguration(timeout: 30))
        let started = Date()
        let (bytes, response) = try await session.bytes(for: URLRequest(url: registration.baseURL.appendingPathComponent("events")))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        var lines: [(String, TimeInterval)] = []
        for try await line in bytes.lines { lines.append((line, Date().timeIntervalSince(started))) }
        await registration.unregister()
        #expect(lines.map { $0.0 }.filter { $0.hasPrefix("data: ") } == ["data: a", "data: b", "data: c"])
        let dataTimes = lines.filter { $0.0.hasPrefix("data: ") }.map { $0.1 }
        #expect(dataTimes.count == 3 && dataTimes[1] >= 0.39 && dataTimes[2] >= 0.79, "lines at \(dataTimes)")
    }
    #endif
}

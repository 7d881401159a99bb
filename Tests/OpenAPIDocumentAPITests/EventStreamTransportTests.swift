import ContractTests
import ContractTestsTesting
import Foundation
import MockFixtures
@testable import OpenAPIDocumentAPI
import OpenAPIDocumentAPITesting
import OpenAPIDocumentContract
import MockCore
import Testing
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A document's stream as clients read it: curl (`-N`) over the trait's loopback server,
/// and a URLSession data delegate through the in-process transport. Each gets the events
/// the plan holds, valid against the chunk schema, and the journal keeps the stream.
@Suite struct EventStreamTransportTests {
    static let chunkProblems: @Sendable (String) throws -> [String] = { data in
        let json = try Documents.api(EventStreamTests.chat).document().json
        let value = try #require(JSONValue(parsing: Data(data.utf8)), "not JSON: \(data)")
        return SchemaValidator(document: json).problems(value, against: ["$ref": "#/components/schemas/ChatCompletionChunk"])
    }

    @Test(.requires(.curl), .mockServer(api: Documents.url(EventStreamTests.chat)))
    func curlReadsAChatCompletionsEventsOverLoopback() async throws {
        let result = try await Tool.run("curl", ["-sS", "-N", "-m", "30", "-X", "POST", "-H", "Content-Type: application/json",
                                                 "-D", "/dev/stderr", "--data", EventStreamTests.chatRequest,
                                                 MockServer.current.url("/v1/chat/completions").absoluteString])
        #expect(result.status == 0, "curl: \(result.stderr)")
        #expect(result.stderr.lowercased().contains("content-type: text/event-stream"), "\(result.stderr)")
        #expect(result.stderr.lowercased().contains("transfer-encoding: chunked"), "\(result.stderr)")
        let events = SSEText.events(result.stdout)
        #expect(DocumentEventStream.eventCounts.contains(events.count), "\(result.stdout)")
        for event in events { #expect(try Self.chunkProblems(event.data).isEmpty, "\(event.data)") }
        // The journal keeps the request and what went over the stream, to its clean end.
        let entry = try #require(MockServer.current.engine.journal.entries().last)
        #expect(entry.request.path == "/v1/chat/completions")
        #expect(entry.transcript?.records.count == events.count)
        #expect(entry.transcript?.ending?.how == .finished)
    }

    @Test func aURLSessionDataDelegateGetsTheEventsInProcess() async throws {
        let engine = try EventStreamTests.engine(EventStreamTests.chat)
        let expected = try #require(engine.send("POST", "/v1/chat/completions", json: EventStreamTests.chatRequest).plan.eventStream)
        let registration = try await MockURLProtocol.register(engine)
        let recorder = ChunkRecorder()
        let session = URLSession(configuration: registration.sessionConfiguration(timeout: 60), delegate: recorder, delegateQueue: nil)
        var request = URLRequest(url: registration.baseURL.appendingPathComponent("v1/chat/completions"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(EventStreamTests.chatRequest.utf8)
        session.dataTask(with: request).resume()
        let error = await recorder.end()
        session.finishTasksAndInvalidate()
        await registration.unregister()
        #expect(error == nil)
        #expect(recorder.response?.statusCode == 200)
        #expect(recorder.response?.value(forHTTPHeaderField: "Content-Type") == "text/event-stream; charset=utf-8")
        // One didReceive per event, as over a socket; the same seed, the same events.
        #expect(recorder.chunks == expected.events.map(\.encoded))
        let events = SSEText.events(String(decoding: recorder.chunks.reduce(Data(), +), as: UTF8.self))
        #expect(events.count == expected.events.count)
        for event in events { #expect(try Self.chunkProblems(event.data).isEmpty, "\(event.data)") }
        let entry = try #require(engine.journal.entries().last)
        #expect(entry.transcript?.records.count == expected.events.count)
        #expect(entry.transcript?.ending?.how == .finished)
    }
}

/// What a URLSession data delegate receives, chunk by chunk, and how the task ended.
final class ChunkRecorder: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var received: [Data] = []
    private var head: HTTPURLResponse?
    private var ended: (any Error)??
    private var waiter: CheckedContinuation<(any Error)?, Never>?

    var chunks: [Data] { lock.withLock { received } }
    var response: HTTPURLResponse? { lock.withLock { head } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { received.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
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

/// A streaming chat client (`generated/chat.yaml`): asks for `stream: true` and returns the
/// text of the chunks it read; throws on an error status and on a stream with no chunk.
struct ChatStreamClient: Sendable {
    struct Chunk: Decodable {
        struct Choice: Decodable {
            struct Delta: Decodable { var content: String? }
            var delta: Delta
        }
        var object: String
        var choices: [Choice]
    }

    enum ChatError: Error {
        case status(Int)
        case noChunks
    }

    let base: URL
    let session: URLSession

    init(context: ProviderContext) {
        base = context.baseURL.appendingPathComponent("v1")
        session = URLSession(configuration: context.sessionConfiguration)
    }

    func complete(_ prompt: String) async throws -> String {
        var request = URLRequest(url: base.appendingPathComponent("chat/completions"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: [
            "model": "gpt-mock", "stream": true, "messages": [["role": "user", "content": prompt]]])
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200...299).contains(status) else { throw ChatError.status(status) }
        let chunks = try SSEText.events(String(decoding: data, as: UTF8.self))
            .map { try JSONDecoder().decode(Chunk.self, from: Data($0.data.utf8)) }
        guard !chunks.isEmpty else { throw ChatError.noChunks }
        return chunks.compactMap { $0.choices.first?.delta.content }.joined()
    }
}

@Suite struct EventStreamContractTests {
    static let calls: [String: OpenAPIContract.Call<ChatStreamClient>] = ["createChatCompletion": { try await $0.complete("Hi") }]

    /// The suite gives a client that asks for the stream the documented stream as events,
    /// and the documented 400 as JSON: a streaming client meets each answer as it would.
    @Test func theAnswersCheckGivesAStreamingClientTheDocumentedStream() async throws {
        let suite = try OpenAPIContract.suite(
            document: Documents.url(EventStreamTests.chat),
            configuration: SuiteConfiguration(timeout: 10, transport: .inProcess, timingAttempts: 1),
            calls: Self.calls)
            .only(["chat.createChatCompletion.request", "chat.createChatCompletion.answers"])
        let report = await suite.run { ChatStreamClient(context: $0) }
        #expect(report.results.count == 2, "\(report)")
        #expect(report.passed, "\(report)")
    }
}

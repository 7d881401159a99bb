import ContractTests
import Foundation
import OpenAPIDocumentContract
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client of `chat.yaml`'s streamed reply (`POST /api/chats/{chatId}/reply`, answered
/// with `text/event-stream`), reading it with the reference SSE client; `swallowsLostConnection`
/// takes a lost connection for the stream's end (and so never resumes).
struct ChatClient: Sendable {
    let context: ProviderContext
    var swallowsLostConnection = false

    func streamReply(chat: Int, onEvent: @escaping @Sendable (ReceivedEvent) -> Void) async -> EventStreamEnding {
        var request = URLRequest(url: context.baseURL.appendingPathComponent("api/chats/\(chat)/reply"))
        request.httpMethod = "POST"
        let ending = await ReferenceEventStreamClient(context: context, resumes: !swallowsLostConnection).stream(request, onEvent: onEvent)
        if swallowsLostConnection, case .failed(let why) = ending, why.contains("networkConnectionLost") { return .finished }
        return ending
    }
}

@Suite(.serialized) struct StreamingSuiteTests {
    static let streams: [String: OpenAPIContract.StreamCall<ChatClient>] = [
        "streamReply": .init(resumes: true) { client, onEvent in await client.streamReply(chat: 7, onEvent: onEvent) },
    ]

    static let configuration = SuiteConfiguration(timeout: 2, timeoutMargin: 2, transport: .inProcess, parallelism: 4)

    @Test func aCorrectClientPassesEveryStreamingCheckOfTheDocumentedStream() async throws {
        let suite = try OpenAPIContract.streamingSuite(document: Documents.url("chat.yaml"), configuration: Self.configuration, streams: Self.streams)
        let report = await suite.run { ChatClient(context: $0) }
        #expect(report.passed, "\(report)")
        #expect(report.results.map(\.id) == ["events.order", "events.split", "ending.drop", "ending.no-terminator", "stall", "cancellation", "resume"]
            .map { "chat.streamReply.stream." + $0 } + ["chat.stream-coverage"])
    }

    @Test func aClientThatSwallowsALostConnectionFailsTheEndingAndResumeChecks() async throws {
        let suite = try OpenAPIContract.streamingSuite(document: Documents.url("chat.yaml"), configuration: Self.configuration, streams: Self.streams)
        let report = await suite.run { ChatClient(context: $0, swallowsLostConnection: true) }
        #expect(Set(report.failures.map(\.id)) == ["chat.streamReply.stream.ending.drop", "chat.streamReply.stream.ending.no-terminator",
                                                   "chat.streamReply.stream.resume"], "\(report)")
        let messages = report.failures.compactMap(\.message).joined(separator: "\n")
        #expect(messages.contains("streamReply (POST /api/chats/{chatId}/reply)"), "\(messages)")
        #expect(messages.contains("a short success"), "\(messages)")
    }

    @Test func aStreamCallForAnOperationThatDoesNotStreamIsRefused() throws {
        let call = OpenAPIContract.StreamCall<ChatClient> { _, _ in .finished }
        #expect {
            try OpenAPIContract.streamingSuite(document: Documents.url("chat.yaml"), streams: ["listChats": call])
        } throws: { error in
            "\(error)".contains("listChats") && "\(error)".contains("it streams streamReply")
        }
        #expect {
            try OpenAPIContract.streamingSuite(document: Documents.url("chat.yaml"), streams: ["chatter": call])
        } throws: { error in
            "\(error)".contains("calls for operations the document does not have: chatter")
        }
    }

    @Test func aStreamingOperationWithoutACallIsNamed() async throws {
        let suite = try OpenAPIContract.streamingSuite(document: Documents.url("chat.yaml"), configuration: Self.configuration,
                                                       streams: [String: OpenAPIContract.StreamCall<ChatClient>]())
        let report = await suite.run { ChatClient(context: $0) }
        #expect(report.results.map(\.id) == ["chat.stream-coverage"])
        #expect(report.failures.first?.message?.contains("streamReply (POST /api/chats/{chatId}/reply) has no stream call") == true, "\(report)")
    }
}

import ChatNetworking
import ContractTests
import ContractTestsTesting
import Foundation
import OpenAPIDocumentContract
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The streaming contract checks for the document's stream (`sendMessage`), run against
/// the client's event layer: every event whole and in order, a reset or a missing end
/// reported as a failure, a stall given up on within the timeout, a cancel that closes the
/// request, and no reconnect from a client that does not resume. Each check plays a stream
/// of its own in place of the document's example, so a failing one names what broke.
@Suite struct ChatStreamContractTests {
    /// How the client opens the document's one stream, and hands over its events.
    static let streams: [String: OpenAPIContract.StreamCall<ChatClient>] = [
        "sendMessage": .init(resumes: false) { client, onEvent in
            await client.readEvents(client.messageRequest(chat: 1, text: "Hi"), onEvent: onEvent)
        },
    ]

    @Test func theChatStreamKeepsTheContract() async throws {
        let suite = try OpenAPIContract.streamingSuite(document: ChatDocument.url, client: ChatClient.self, streams: Self.streams)
        let report = await suite.run { context in
            ChatClient(baseURL: context.baseURL.appendingPathComponent("v1"),
                       session: URLSession(configuration: context.sessionConfiguration))
        }
        expectContract(report)
    }
}

extension ChatClient {
    /// The adapter the checks drive: each event the client parses goes to `onEvent`, and
    /// how its stream ended is reported in the checks' words.
    func readEvents(_ request: URLRequest, onEvent: @escaping @Sendable (ReceivedEvent) -> Void) async -> EventStreamEnding {
        do {
            for try await event in events(for: request) {
                onEvent(ReceivedEvent(type: event.type, data: event.data, lastEventID: event.lastEventID))
            }
            return Task.isCancelled ? .cancelled : .finished
        } catch is CancellationError {
            return .cancelled
        } catch {
            return Task.isCancelled ? .cancelled : .failed("\(error)")
        }
    }
}

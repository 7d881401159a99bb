import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A chat of the user's.
public struct Chat: Codable, Sendable, Hashable {
    /// The chat's id.
    public var id: Int
    /// Its title.
    public var title: String
}

/// What went wrong with a call.
public enum ChatError: Error, Sendable, Equatable {
    /// The server answered with an error status; `detail` is what its body said.
    case status(Int, detail: String)
    /// A reply answered with something other than `text/event-stream` (its `Content-Type`).
    case notAnEventStream(String)
    /// The reply's stream broke: the connection was lost, the body was cut short, or no
    /// byte came within the session's request timeout.
    case interrupted(String)
    /// The reply's stream ended before its `done` event: part of an answer, not all of it.
    case incomplete(received: String)
    /// An event's data was not what the API documents.
    case malformedEvent(type: String, data: String)

    func with(detail: String) -> ChatError {
        guard case .status(let status, _) = self else { return self }
        return .status(status, detail: detail)
    }
}

/// A client of the chat API (`chat.yaml`): the chats, and a message's reply streamed token
/// by token over Server-Sent Events.
public struct ChatClient: Sendable {
    /// The API's base URL, its `/v1` included.
    public let baseURL: URL
    /// The session for plain calls; a reply's stream uses a session of its own with the
    /// same configuration (its data delegate reads each event as it arrives).
    public let session: URLSession

    /// A client of the API at `baseURL`.
    public init(baseURL: URL, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.session = session
    }

    /// The user's chats.
    public func chats() async throws -> [Chat] {
        let (data, response) = try await session.data(from: baseURL.appendingPathComponent("chats"))
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw ChatError.status(status, detail: String(decoding: data, as: UTF8.self)) }
        return try JSONDecoder().decode([Chat].self, from: data)
    }

    /// The request that sends `text` to chat `chat` and asks for the reply as a stream.
    public func messageRequest(chat: Int, text: String) -> URLRequest {
        var request = URLRequest(url: baseURL.appendingPathComponent("chats/\(chat)/messages"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try? JSONEncoder().encode(["text": text])
        return request
    }

    /// The events of the stream `request` opens, as they arrive (see `EventSource`'s rules).
    public func events(for request: URLRequest) -> AsyncThrowingStream<StreamedEvent, any Error> {
        EventSource.events(for: request, configuration: session.configuration)
    }

    /// Sends `text` to chat `chat`; the reply's text comes token by token, and the sequence
    /// ends with the reply's `done` event. It throws ``ChatError/incomplete(received:)`` when
    /// the stream ends before `done`, ``ChatError/interrupted(_:)`` when it breaks, and
    /// `CancellationError` when the reading task is cancelled.
    public func reply(chat: Int, to text: String) -> AsyncThrowingStream<String, any Error> {
        let events = events(for: messageRequest(chat: chat, text: text))
        return AsyncThrowingStream { continuation in
            let reading = Task {
                var received = ""
                do {
                    for try await event in events {
                        switch event.type {
                        case "token":
                            guard let token = try? JSONDecoder().decode(Token.self, from: Data(event.data.utf8)) else {
                                throw ChatError.malformedEvent(type: event.type, data: event.data)
                            }
                            received += token.text
                            continuation.yield(token.text)
                        case "done":
                            continuation.finish()
                            return
                        case "message":
                            // The API names every event's type: one without is not the API's.
                            throw ChatError.malformedEvent(type: event.type, data: event.data)
                        default:
                            continue   // Types a later version of the API adds are skipped.
                        }
                    }
                    try Task.checkCancellation()
                    continuation.finish(throwing: ChatError.incomplete(received: received))
                } catch {
                    continuation.finish(throwing: Task.isCancelled ? CancellationError() : error)
                }
            }
            continuation.onTermination = { _ in reading.cancel() }
        }
    }

    private struct Token: Decodable {
        let text: String
    }
}

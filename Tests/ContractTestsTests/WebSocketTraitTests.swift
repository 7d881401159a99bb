import ContractTests
import ContractTestsTesting
import Foundation
import MockCore
import Testing

/// The trait's server answers `URLSessionWebSocketTask`, and the test drives the socket
/// through `MockServer.current.sockets`: what a user's test of a WebSocket client does.
/// Apple platforms only: Linux's URLSession cannot open WebSockets (its libcurl has no
/// ws/wss), so these run in the macOS workflow; Linux holds the same conversations with
/// SwiftNIO's client and Python's (MockServerTests' `WebSocketEndToEndTests`).
#if canImport(Darwin)
@Suite struct WebSocketTraitTests {
    static let chat = Scenario(name: "chat", rules: [
        Rule("chat", .get("/chat"), always: .webSocket(WebSocketScript(
            onConnect: [.text("welcome")],
            onMessage: [WebSocketReply("echo", match: MessagePattern(kind: .text),
                                       messages: [WebSocketMessage(.template(try! ResponseTemplate("you said {{message}}"), json: false))])]))),
    ])

    @Test(.mockServer(scenario: "chat", scenarios: [chat]))
    func urlSessionsWebSocketTaskHoldsTheConversation() async throws {
        let task = URLSession.shared.webSocketTask(with: MockServer.current.webSocketURL("/chat"))
        task.resume()
        defer { task.cancel(with: .normalClosure, reason: nil) }
        guard case .string(let greeting) = try await task.receive() else { Issue.record("not a text message"); return }
        #expect(greeting == "welcome")
        try await task.send(.string("hello"))
        guard case .string(let reply) = try await task.receive() else { Issue.record("not a text message"); return }
        #expect(reply == "you said hello")
        let socket = try await MockServer.current.sockets.opened(path: "/chat")
        #expect(try await MockServer.current.sockets.nextMessage(from: socket.id) == .text("hello"))
        MockServer.current.sockets.send(.text("pushed by the test"), to: socket.id)
        guard case .string(let pushed) = try await task.receive() else { Issue.record("not a text message"); return }
        #expect(pushed == "pushed by the test")
    }

    @Test(.mockServer(scenario: "chat", scenarios: [chat]), .timeLimit(.minutes(1)))
    func aServerCloseReachesTheTaskWithItsCode() async throws {
        // The close's code and reason as URLSession promises to report them: to the
        // session's delegate (`didCloseWith`), not by a failed receive's timing.
        let watcher = CloseWatcher()
        let session = URLSession(configuration: .ephemeral, delegate: watcher, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.webSocketTask(with: MockServer.current.webSocketURL("/chat"))
        task.resume()
        _ = try await task.receive()
        let socket = try await MockServer.current.sockets.opened(path: "/chat")
        MockServer.current.sockets.close(socket.id, code: 4001, reason: "over")
        await #expect(throws: (any Error).self) { _ = try await task.receive() }
        let closed = await watcher.closed()
        #expect(closed.code == 4001 && closed.reason == "over", "\(closed)")
    }
}

/// The close a WebSocket task's delegate is told of, awaited once.
final class CloseWatcher: NSObject, URLSessionWebSocketDelegate, @unchecked Sendable {
    private let state = Locked<(close: (code: Int, reason: String)?, waiter: CheckedContinuation<(code: Int, reason: String), Never>?)>((nil, nil))

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                    didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        let close = (code: closeCode.rawValue, reason: reason.map { String(decoding: $0, as: UTF8.self) } ?? "")
        let waiter = state.withLock { state in
            state.close = close
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: close)
    }

    func closed() async -> (code: Int, reason: String) {
        await withCheckedContinuation { continuation in
            let close = state.withLock { state in
                if state.close == nil { state.waiter = continuation }
                return state.close
            }
            if let close { continuation.resume(returning: close) }
        }
    }
}
#endif

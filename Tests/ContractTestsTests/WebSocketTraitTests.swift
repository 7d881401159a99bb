import ContractTests
import ContractTestsTesting
import Foundation
import Scenarios
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

    @Test(.mockServer(scenario: "chat", scenarios: [chat]))
    func aServerCloseReachesTheTaskWithItsCode() async throws {
        let task = URLSession.shared.webSocketTask(with: MockServer.current.webSocketURL("/chat"))
        task.resume()
        _ = try await task.receive()
        let socket = try await MockServer.current.sockets.opened(path: "/chat")
        MockServer.current.sockets.close(socket.id, code: 4001, reason: "over")
        await #expect(throws: (any Error).self) { _ = try await task.receive() }
        #expect(task.closeCode.rawValue == 4001)
    }
}
#endif

import ChatNetworking
import ContractTests
import ContractTestsTesting
import Foundation
import Scenarios
import Testing

/// The room's scenario file, as the tests' resource.
enum RoomScenario {
    static let room = try! ScenarioFile.load(Bundle.module.url(forResource: "room", withExtension: "json")!)
    /// The room, closed by the server with 1011 after its greeting.
    static let overloaded = Scenario(name: "room-overloaded", rules: [
        Rule("overloaded", .get("/v1/rooms/{room}"), always: Outcome.webSocket(WebSocketScript(
            onConnect: [.text(#"{"type":"welcome","room":"kitchen"}"#)]))
            .streamFaulted(.close(after: 1, code: 1011, reason: "overloaded"))),
    ])
}

// The room's client is `URLSessionWebSocketTask`, which Linux's URLSession cannot open (its
// libcurl has no ws/wss): these tests run on Apple platforms, in the macOS workflow.
#if canImport(Darwin)
/// The room client against the trait's server, which plays `room.json`'s script; the test
/// pushes into the client's socket and closes it through `MockServer.current.sockets`.
@Suite struct RoomTests {
    @Test(.mockServer(scenario: "room", scenarios: [RoomScenario.room]))
    func aRoomGreetsEchoesPushesAndCloses() async throws {
        let room = RoomConnection(url: MockServer.current.webSocketURL("/v1/rooms/kitchen"))
        var events = room.events().makeAsyncIterator()
        #expect(try await events.next() == .welcome(room: "kitchen"))

        try await room.say("hi")
        #expect(try await events.next() == .said(by: "you", text: "hi"))
        let sockets = MockServer.current.sockets
        let socket = try await sockets.opened(path: "/v1/rooms/kitchen")
        guard case .text(let sent) = try await sockets.nextMessage(from: socket.id) else {
            Issue.record("the client sent no text message")
            return
        }
        let said = try JSONSerialization.jsonObject(with: Data(sent.utf8)) as? [String: String]
        #expect(said == ["type": "say", "text": "hi"])

        #expect(sockets.send(.text(#"{"type":"typing","by":"Ana"}"#), to: socket.id))
        #expect(try await events.next() == .typing("Ana"))

        #expect(sockets.close(socket.id, code: 1001, reason: "restarting"))
        #expect(try await events.next() == .closed(code: 1001, reason: "restarting"))
        #expect(try await events.next() == nil)
    }

    /// A stream fault closes the socket with 1011 after the greeting: the client reports
    /// the close with its code and reason, not an error.
    @Test(.mockServer(scenario: "room-overloaded", scenarios: [RoomScenario.overloaded]))
    func aServerCloseIsReportedWithItsCode() async throws {
        let room = RoomConnection(url: MockServer.current.webSocketURL("/v1/rooms/kitchen"))
        var events = room.events().makeAsyncIterator()
        #expect(try await events.next() == .welcome(room: "kitchen"))
        #expect(try await events.next() == .closed(code: 1011, reason: "overloaded"))
    }
}
#endif

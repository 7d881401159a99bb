import Foundation
import MockCore
import MockServer

extension TestMockServer {
    /// The WebSockets the code under test holds open on this server: push messages into
    /// them and await what the client sent, while the scenario's script plays too.
    ///
    ///     let task = URLSession.shared.webSocketTask(with: MockServer.current.webSocketURL("/chat"))
    ///     task.resume()
    ///     let socket = try await MockServer.current.sockets.opened(path: "/chat")
    ///     MockServer.current.sockets.send(.text("hello from the test"), to: socket.id)
    ///     try await task.send(.string("hi"))
    ///     #expect(try await MockServer.current.sockets.nextMessage(from: socket.id) == .text("hi"))
    ///
    /// Waits take a timeout (5 s unless given) and throw `LiveSocketError` when it passes.
    public var sockets: LiveSockets { engine.sockets }

    /// The `ws://` URL of `path` on this server (`wss://` when it serves HTTPS).
    public func webSocketURL(_ path: String) -> URL {
        var components = URLComponents(url: url(path), resolvingAgainstBaseURL: false)!
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        return components.url!
    }
}

import Foundation

/// What the engine reads of a WebSocket opening handshake (RFC 6455 §4.2.1), and its
/// answer to a request that is not one. The `Sec-WebSocket-Accept` key and the 101 itself
/// are the transport's (SwiftNIO's `NIOWebSocket` makes them).
public enum WebSocketHandshake {
    /// The only protocol version there is.
    public static let version = "13"

    /// Whether `request` asks to open a WebSocket: a GET with `Upgrade: websocket`,
    /// `Connection: Upgrade`, a `Sec-WebSocket-Key` and version 13.
    public static func isUpgrade(_ request: MockRequest) -> Bool {
        guard request.method == "GET", request.headers["Sec-WebSocket-Key"] != nil,
              request.headers["Sec-WebSocket-Version"]?.trimmingCharacters(in: .whitespaces) == version else { return false }
        return tokens(request, "Upgrade").contains("websocket") && tokens(request, "Connection").contains("upgrade")
    }

    /// The subprotocols the client offers, in its order of preference.
    public static func offeredSubprotocols(_ request: MockRequest) -> [String] {
        request.headers.values("Sec-WebSocket-Protocol")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// The answer to a request that a WebSocket's rule matched but that asks for no
    /// upgrade (or another version): `426 Upgrade Required` naming the protocol, as a
    /// WebSocket server answers a plain request.
    public static func refusal(_ request: MockRequest) -> ResponsePlan {
        var plan = ResponsePlan.error(426, "This is a WebSocket: open it with a GET carrying Upgrade: websocket, Connection: Upgrade, "
                                      + "Sec-WebSocket-Key and Sec-WebSocket-Version: 13")
        plan.headers.add("Upgrade", "websocket")
        plan.headers.add("Connection", "Upgrade")
        plan.headers.add("Sec-WebSocket-Version", version)
        return plan
    }

    /// The comma-separated tokens of every `name` field, lowercased.
    private static func tokens(_ request: MockRequest, _ name: String) -> [String] {
        request.headers.values(name).flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }
}

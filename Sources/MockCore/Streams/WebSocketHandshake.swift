import Foundation

/// What the engine reads of a WebSocket opening handshake (RFC 6455 §4.2.1), and its
/// answer to a request that is not one. The `Sec-WebSocket-Accept` key and the 101 itself
/// are the transport's (SwiftNIO's `NIOWebSocket` makes them).
public enum WebSocketHandshake {
    /// The only protocol version there is.
    public static let version = "13"

    /// What a request is, as the opening handshake of a WebSocket.
    public enum Verdict: Sendable, Equatable {
        /// A well-formed opening handshake: a GET with `Upgrade: websocket`,
        /// `Connection: Upgrade`, one `Sec-WebSocket-Key` (16 bytes in base64) and version 13.
        case upgrade
        /// No WebSocket handshake at all, or one of another version: answered with
        /// ``refusal(_:)`` (426 naming version 13).
        case notAnUpgrade
        /// It asks for a WebSocket (`Upgrade: websocket`, version 13) but breaks the
        /// handshake's rules: answered 400 with this reason (``malformed(_:)``).
        case malformed(String)
    }

    /// Whether `request` asks to open a WebSocket: a GET with `Upgrade: websocket`,
    /// `Connection: Upgrade`, a `Sec-WebSocket-Key` and version 13.
    public static func isUpgrade(_ request: MockRequest) -> Bool {
        check(request) == .upgrade
    }

    /// Reads `request` as an opening handshake (RFC 6455 §4.2.1).
    public static func check(_ request: MockRequest) -> Verdict {
        guard tokens(request, "Upgrade").contains("websocket"),
              request.headers.values("Sec-WebSocket-Version").map({ $0.trimmingCharacters(in: .whitespaces) }) == [version] else {
            return .notAnUpgrade
        }
        guard request.method == "GET" else { return .malformed("A WebSocket opens with a GET, not a \(request.method)") }
        guard tokens(request, "Connection").contains("upgrade") else {
            return .malformed("A WebSocket's opening handshake needs Connection: Upgrade")
        }
        let keys = request.headers.values("Sec-WebSocket-Key")
        guard keys.count == 1, let key = keys.first else {
            return .malformed(keys.isEmpty ? "A WebSocket's opening handshake needs a Sec-WebSocket-Key"
                                           : "A WebSocket's opening handshake has one Sec-WebSocket-Key, not \(keys.count)")
        }
        guard Data(base64Encoded: key.trimmingCharacters(in: .whitespaces))?.count == 16 else {
            return .malformed("Sec-WebSocket-Key must be 16 random bytes in base64 (24 characters), not \"\(key.prefix(64))\"")
        }
        return .upgrade
    }

    /// The answer to a malformed opening handshake: `400 Bad Request` with `reason`.
    public static func malformed(_ reason: String) -> ResponsePlan {
        var plan = ResponsePlan.error(400, reason)
        plan.headers.add("Sec-WebSocket-Version", version)
        return plan
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

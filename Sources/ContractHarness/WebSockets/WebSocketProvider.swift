import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A WebSocket client, as the WebSocket checks (``WebSocketContract``) drive it: open a
/// connection, then send, receive and close through it, as an app's code calls its client.
/// Adopt it with a thin adapter over your own client; on Apple platforms
/// `URLSessionWebSocketProvider` adapts `URLSessionWebSocketTask`.
///
///     struct ChatSocketAdapter: WebSocketProvider {
///         let client: ChatClient
///         func connect(_ request: URLRequest) async throws -> any WebSocketConnection {
///             ChatConnectionAdapter(connection: try await client.open(request))
///         }
///     }
///
/// The client keeps the protocol's rules itself (RFC 6455), as the checks see them on the
/// wire: it answers a ping with a pong of the same payload, answers the server's close with
/// a close frame echoing its code, and sends no data frame after a close frame, its own or
/// the server's.
public protocol WebSocketProvider: Sendable {
    /// Opens a WebSocket to `request`'s URL (`ws://` or `wss://`) and returns the open
    /// connection; throws when it cannot open. The connection may finish its handshake after
    /// this returns (as `URLSessionWebSocketTask.resume()` does): messages sent before are
    /// sent once it is open.
    func connect(_ request: URLRequest) async throws -> any WebSocketConnection
}

/// One open WebSocket of the client under test, as an app uses it.
public protocol WebSocketConnection: Sendable {
    /// Sends a message as the app asks its client to; throws when the connection cannot
    /// send it (a closed connection sends nothing and throws).
    func send(_ message: WebSocketContract.Message) async throws
    /// The next message the server sent, in order, once it has come; throws once the
    /// connection is closed (by the server's close frame, the client's own, or a lost
    /// connection) and no message is left.
    func receive() async throws -> WebSocketContract.Message
    /// Closes the connection as the app asks its client to: a close frame with `code` and
    /// `reason`, then the server's answer is awaited (or the connection ends) in the background.
    func close(code: UInt16, reason: String) async
    /// The close code of the close frame that ended the connection, as the client saw it:
    /// the server's code after the server closed, the client's own after it closed first;
    /// nil while open, and after a close without a code.
    var closeCode: UInt16? { get async }
}

/// The WebSocket checks: ``suite(_:path:)`` and its ``Message``.
public enum WebSocketContract {
    /// A WebSocket message: a text frame's text or a binary frame's bytes.
    public enum Message: Sendable, Hashable, CustomStringConvertible {
        /// A text message.
        case text(String)
        /// A binary message.
        case binary(Data)

        /// `text "hi"` (escaped as a Swift string literal) or `binary 3 bytes 01 02 03`.
        public var description: String {
            switch self {
            case .text(let text): return "text \(text.debugDescription)"
            case .binary(let bytes):
                let hex = bytes.prefix(16).map { String(format: "%02x", $0) }.joined(separator: " ")
                return "binary \(bytes.count) bytes \(hex)\(bytes.count > 16 ? " …" : "")"
            }
        }
    }
}

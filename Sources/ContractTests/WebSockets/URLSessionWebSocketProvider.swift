#if canImport(Darwin)
import Foundation

/// The WebSocket checks' provider for `URLSessionWebSocketTask`, Apple platforms' own
/// WebSocket client, in a session built as a provider's is (``ProviderContext``: its
/// configuration and, over `.secureSockets`, the delegate that trusts the local CA).
/// The task answers pings and the server's close itself; this adapter maps its calls:
/// `send`, `receive`, `cancel(with:reason:)` and `closeCode`.
///
///     let report = await WebSocketContract.suite().run { URLSessionWebSocketProvider(context: $0) }
public struct URLSessionWebSocketProvider: WebSocketProvider {
    /// The session the tasks run in.
    public let session: URLSession

    /// A provider whose tasks run in a session of `context`'s configuration and delegate.
    public init(context: ProviderContext) {
        session = URLSession(configuration: context.sessionConfiguration, delegate: context.sessionDelegate, delegateQueue: nil)
    }

    /// A provider whose tasks run in `session`.
    public init(session: URLSession) {
        self.session = session
    }

    /// Starts a `URLSessionWebSocketTask` for `request`; its handshake goes on after this returns.
    public func connect(_ request: URLRequest) async throws -> any WebSocketConnection {
        let task = session.webSocketTask(with: request)
        task.resume()
        return Connection(task: task)
    }

    /// One `URLSessionWebSocketTask`.
    struct Connection: WebSocketConnection, @unchecked Sendable {
        // URLSessionTask is thread-safe: its calls may come from any thread.
        let task: URLSessionWebSocketTask

        func send(_ message: WebSocketContract.Message) async throws {
            switch message {
            case .text(let text): try await task.send(.string(text))
            case .binary(let bytes): try await task.send(.data(bytes))
            }
        }

        func receive() async throws -> WebSocketContract.Message {
            switch try await task.receive() {
            case .string(let text): return .text(text)
            case .data(let bytes): return .binary(bytes)
            @unknown default: throw URLError(.cannotDecodeContentData)
            }
        }

        func close(code: UInt16, reason: String) async {
            let closeCode = URLSessionWebSocketTask.CloseCode(rawValue: Int(code)) ?? .normalClosure
            task.cancel(with: closeCode, reason: reason.isEmpty ? nil : Data(reason.utf8))
        }

        var closeCode: UInt16? {
            get async {
                let raw = task.closeCode.rawValue
                // 0: still open; 1005: a close without a code (RFC 6455 §7.1.5).
                return raw == 0 || raw == 1005 || raw > Int(UInt16.max) ? nil : UInt16(raw)
            }
        }
    }
}
#endif

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What happens in a live room.
public enum RoomEvent: Sendable, Equatable {
    /// The server's greeting on joining.
    case welcome(room: String)
    /// Someone said something (the server echoes what this client says, too).
    case said(by: String, text: String)
    /// Someone is typing.
    case typing(String)
    /// The server closed the room's socket with this code and reason.
    case closed(code: Int, reason: String)
}

/// A live room over a WebSocket (`URLSessionWebSocketTask`): messages are JSON objects with
/// a `type`. URLSession answers the server's pings and its close by itself; the close's code
/// and reason come from the session's delegate (`urlSession(_:webSocketTask:didCloseWith:reason:)`),
/// the one place URLSession promises to report a close the server sent.
///
/// Linux's URLSession cannot open WebSockets (its libcurl has no ws/wss); this client is
/// for Apple platforms, where the example's tests run it.
public final class RoomConnection: Sendable {
    private let task: URLSessionWebSocketTask
    private let ending = Ending()

    /// Opens the room's socket at `url` (`ws://…/v1/rooms/NAME`), in a session of its own
    /// made from `configuration`.
    public init(url: URL, configuration: URLSessionConfiguration = .default) {
        let session = URLSession(configuration: configuration, delegate: ending, delegateQueue: nil)
        task = session.webSocketTask(with: url)
        // The session goes once its one task has ended.
        session.finishTasksAndInvalidate()
        task.resume()
    }

    /// The room's events, in order, until the server closes the socket (the last event is
    /// then ``RoomEvent/closed(code:reason:)``) or the app leaves (no event); throws when
    /// the connection breaks without a close. Iterate it once.
    public func events() -> AsyncThrowingStream<RoomEvent, any Error> {
        let task = task
        let ending = ending
        return AsyncThrowingStream {
            guard !ending.isOver else { return nil }
            do {
                let message = try await task.receive()
                let text: String
                switch message {
                case .string(let string): text = string
                case .data(let data): text = String(decoding: data, as: UTF8.self)
                @unknown default: return nil
                }
                return try Self.event(from: text)
            } catch {
                // A receive fails when the socket closes; the delegate says how it closed.
                switch await ending.outcome() {
                case .left:
                    return nil
                case .closed(let code, let reason):
                    ending.markOver()
                    return .closed(code: code, reason: reason)
                case .broken:
                    ending.markOver()
                    throw error
                }
            }
        }
    }

    /// Says `text` in the room.
    public func say(_ text: String) async throws {
        let data = try JSONSerialization.data(withJSONObject: ["type": "say", "text": text])
        try await task.send(.string(String(decoding: data, as: UTF8.self)))
    }

    /// Leaves the room: a close with 1000, normal closure. The events end without one more.
    public func leave() {
        ending.leave()
        task.cancel(with: .normalClosure, reason: nil)
    }

    static func event(from text: String) throws -> RoomEvent {
        struct Wire: Decodable {
            let type: String
            let room: String?
            let by: String?
            let text: String?
        }
        let wire = try JSONDecoder().decode(Wire.self, from: Data(text.utf8))
        switch wire.type {
        case "welcome": return .welcome(room: wire.room ?? "")
        case "said": return .said(by: wire.by ?? "", text: wire.text ?? "")
        case "typing": return .typing(wire.by ?? "")
        default: throw ChatError.malformedEvent(type: wire.type, data: text)
        }
    }

    /// How the socket ended, as the session's delegate learns it: the server's close frame
    /// (`didCloseWith`), or the task's end without one (`didCompleteWithError`), whichever
    /// comes first; or the app left.
    final class Ending: NSObject, URLSessionWebSocketDelegate, @unchecked Sendable {
        enum Outcome: Sendable {
            case closed(code: Int, reason: String)
            case broken
            case left
        }

        private let lock = NSLock()
        private var outcome: Outcome?
        private var waiters: [CheckedContinuation<Outcome, Never>] = []
        private var over = false

        /// The outcome, once there is one.
        func outcome() async -> Outcome {
            await withCheckedContinuation { continuation in
                lock.lock()
                guard let outcome else {
                    waiters.append(continuation)
                    lock.unlock()
                    return
                }
                lock.unlock()
                continuation.resume(returning: outcome)
            }
        }

        var isOver: Bool {
            lock.lock()
            defer { lock.unlock() }
            return over
        }

        func markOver() {
            lock.lock()
            over = true
            lock.unlock()
        }

        func leave() { settle(.left) }

        // Optional on Apple platforms, required by Linux's Foundation: nothing to do.
        func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?) {}

        func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                        didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {
            settle(.closed(code: closeCode.rawValue, reason: reason.map { String(decoding: $0, as: UTF8.self) } ?? ""))
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            settle(.broken)
        }

        /// The first outcome stays.
        private func settle(_ settled: Outcome) {
            lock.lock()
            guard outcome == nil else {
                lock.unlock()
                return
            }
            outcome = settled
            let waiting = waiters
            waiters = []
            lock.unlock()
            for waiter in waiting { waiter.resume(returning: settled) }
        }
    }
}

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
/// a `type`. URLSession answers the server's pings and its close by itself.
///
/// Linux's URLSession cannot open WebSockets (its libcurl has no ws/wss); this client is
/// for Apple platforms, where the example's tests run it.
public final class RoomConnection: Sendable {
    private let task: URLSessionWebSocketTask

    /// Opens the room's socket at `url` (`ws://…/v1/rooms/NAME`).
    public init(url: URL, session: URLSession = .shared) {
        task = session.webSocketTask(with: url)
        task.resume()
    }

    /// The room's events, in order, until the server closes the socket (the last event is
    /// then ``RoomEvent/closed(code:reason:)``); throws when the connection breaks without
    /// a close. Iterate it once.
    public func events() -> AsyncThrowingStream<RoomEvent, any Error> {
        let task = task
        let closed = ClosedFlag()
        return AsyncThrowingStream {
            guard !closed.isSet else { return nil }
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
                // A close the server sent ends the room; anything else is a broken connection.
                guard task.closeCode != .invalid else { throw error }
                let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? ""
                closed.set()
                task.cancel()
                return .closed(code: task.closeCode.rawValue, reason: reason)
            }
        }
    }

    /// Says `text` in the room.
    public func say(_ text: String) async throws {
        let data = try JSONSerialization.data(withJSONObject: ["type": "say", "text": text])
        try await task.send(.string(String(decoding: data, as: UTF8.self)))
    }

    /// Leaves the room: a close with 1000, normal closure.
    public func leave() {
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
}

/// Set once the room's close was handed over: the events end there.
private final class ClosedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    // `NSLocking.withLock` is macOS 14 and iOS 17: lock and unlock by hand.
    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
}

import Foundation

/// The WebSockets open on an engine's server, by id: what the admin API lists, sends into
/// and closes, and what a test pushes into and reads from (`TestMockServer.sockets`).
/// The transport that holds each socket registers it with a ``LiveSockets/Connection`` (its
/// way to send and close, on its own event loop) and reports every message the client
/// sends; waiting callers get them in order.
///
/// Bounded: at most ``capacity`` sockets at once (a transport closes a socket it cannot
/// register with 1013, try again later), and per socket the first ``messageCapacity``
/// client messages not yet taken by ``nextMessage(from:timeout:)`` (later ones are counted
/// in ``LiveSockets/Socket/messagesNotKept``); the journal keeps every frame's record either way.
public final class LiveSockets: Sendable {
    /// What the transport that holds a socket does when asked. Each call returns at once;
    /// the frame goes out on the socket's event loop, unless the socket is closing by then.
    public protocol Connection: Sendable {
        /// A text or binary frame with `message`, unless the socket is closing.
        func send(_ message: Message)
        /// A close frame with `code` (none when nil) and `reason`; the transport then waits
        /// for the client's close, as when its script closes.
        func close(code: UInt16?, reason: String)
    }

    /// A data message, either way.
    public enum Message: Sendable, Hashable, CustomStringConvertible {
        /// A text message.
        case text(String)
        /// A binary message.
        case binary(Data)

        /// Its text (a binary message's bytes read as UTF-8).
        public var text: String {
            switch self {
            case .text(let text): return text
            case .binary(let bytes): return String(decoding: bytes, as: UTF8.self)
            }
        }

        /// The kind and the start of the text, or the size of the bytes.
        public var description: String {
            switch self {
            case .text(let text): return "text \"\(text.prefix(200))\""
            case .binary(let bytes): return "binary (\(bytes.count) bytes)"
            }
        }
    }

    /// One open socket, as listed.
    public struct Socket: Sendable, Hashable, Identifiable {
        /// The journal entry of its upgrade request (`GET /__admin/requests/{id}` has its
        /// transcript), which is also its id here.
        public let id: UInt64
        /// The upgrade request's target (path and query).
        public let uri: String
        /// The subprotocol agreed, if any.
        public let subprotocol: String?
        /// When the upgrade was done, on the engine's clock.
        public let openedAt: Date
        /// Client messages received past ``LiveSockets/messageCapacity`` while none was taken.
        public internal(set) var messagesNotKept = 0

        /// A socket as its transport registers it.
        public init(id: UInt64, uri: String, subprotocol: String? = nil, openedAt: Date) {
            self.id = id
            self.uri = uri
            self.subprotocol = subprotocol
            self.openedAt = openedAt
        }

        /// Its path, without the query.
        public var path: String { String(uri.prefix { $0 != "?" }) }

        /// The socket as `GET /__admin/sockets` lists it.
        public var json: JSONValue {
            var object: [String: JSONValue] = [
                "id": .number(Double(id)), "uri": .string(uri), "path": .string(path),
                "openedAt": .string(ISO8601.format(openedAt)), "messagesNotKept": .number(Double(messagesNotKept)),
                "journal": .string("/__admin/requests/\(id)"),
            ]
            if let subprotocol { object["subprotocol"] = .string(subprotocol) }
            return .object(object)
        }
    }

    /// Sockets open at once by default.
    public static let defaultCapacity = 1024
    /// Client messages kept per socket for ``nextMessage(from:timeout:)``.
    public static let messageCapacity = 256

    /// The most sockets open at once.
    public let capacity: Int

    private struct Entry {
        var socket: Socket
        let connection: any Connection
        var messages: [Message] = []

        /// Keeps `message` for a later taker while there is room, else counts it.
        mutating func keep(_ message: Message) {
            if messages.count < LiveSockets.messageCapacity {
                messages.append(message)
            } else {
                socket.messagesNotKept += 1
            }
        }
    }

    private struct Waiter {
        /// The socket whose message it waits for; nil: it waits for a socket to open.
        let socket: UInt64?
        let path: String?
        let continuation: CheckedContinuation<Taken, any Error>
    }

    private enum Taken: Sendable {
        case socket(Socket)
        case message(Message)
    }

    private struct State {
        var open: [UInt64: Entry] = [:]
        /// Sockets opened and not yet handed to an `opened(path:timeout:)` caller, in order.
        var unclaimed: [UInt64] = []
        var waiters: [UUID: Waiter] = [:]
    }

    private let state = Locked(State())

    /// An empty list holding at most `capacity` sockets.
    public init(capacity: Int = LiveSockets.defaultCapacity) {
        self.capacity = max(0, capacity)
    }

    // MARK: The transport's side

    /// Registers an open socket; false when ``capacity`` sockets are open already.
    public func register(_ socket: Socket, connection: any Connection) -> Bool {
        var resumed: (CheckedContinuation<Taken, any Error>, Socket)?
        let added = state.withLock { state -> Bool in
            guard state.open.count < capacity else { return false }
            state.open[socket.id] = Entry(socket: socket, connection: connection)
            if let (key, waiter) = state.waiters.first(where: { $0.value.socket == nil && ($0.value.path.map { $0 == socket.path } ?? true) }) {
                state.waiters[key] = nil
                resumed = (waiter.continuation, socket)
            } else {
                state.unclaimed.append(socket.id)
            }
            return true
        }
        if let (continuation, socket) = resumed { continuation.resume(returning: .socket(socket)) }
        return added
    }

    /// A message the client sent on socket `id`: handed to a caller waiting for it, or kept.
    public func received(_ message: Message, on id: UInt64) {
        let waiting = state.withLock { state -> CheckedContinuation<Taken, any Error>? in
            // One lookup of the socket; the waiters are searched only when there are any.
            guard let index = state.open.index(forKey: id) else { return nil }
            if !state.waiters.isEmpty, let (key, waiter) = state.waiters.first(where: { $0.value.socket == id }) {
                state.waiters[key] = nil
                return waiter.continuation
            }
            // In place: reading the entry through `values` copies it.
            state.open.values[index].keep(message)
            return nil
        }
        waiting?.resume(returning: .message(message))
    }

    /// Socket `id` closed: it leaves the list, and callers waiting for its messages get
    /// ``LiveSocketError/closed(_:)``.
    public func closed(_ id: UInt64) {
        let waiting = state.withLock { state -> [CheckedContinuation<Taken, any Error>] in
            guard state.open.removeValue(forKey: id) != nil else { return [] }
            state.unclaimed.removeAll { $0 == id }
            let keys = state.waiters.filter { $0.value.socket == id }.map(\.key)
            return keys.compactMap { state.waiters.removeValue(forKey: $0)?.continuation }
        }
        waiting.forEach { $0.resume(throwing: LiveSocketError.closed(id)) }
    }

    // MARK: Reading and driving them

    /// The open sockets, oldest first.
    public var open: [Socket] {
        state.withLock { $0.open.values.map(\.socket) }.sorted { $0.id < $1.id }
    }

    /// Callers waiting for a socket or a message.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Open socket `id`, if it is.
    public func socket(_ id: UInt64) -> Socket? {
        state.withLock { $0.open[id]?.socket }
    }

    /// Sends `message` into socket `id`; false when no such socket is open.
    @discardableResult
    public func send(_ message: Message, to id: UInt64) -> Bool {
        guard let connection = state.withLock({ $0.open[id]?.connection }) else { return false }
        connection.send(message)
        return true
    }

    /// Closes socket `id` with a close frame (`code` nil: none); false when no such socket
    /// is open.
    @discardableResult
    public func close(_ id: UInt64, code: UInt16? = WebSocketCloseCode.normal, reason: String = "") -> Bool {
        guard let connection = state.withLock({ $0.open[id]?.connection }) else { return false }
        connection.close(code: code, reason: reason)
        return true
    }

    /// The next socket to open (on `path`, when given) that no earlier call returned: one
    /// open already, or the next to open within `timeout` seconds.
    /// - Throws: ``LiveSocketError/timedOut(_:)`` when none opens in time.
    public func opened(path: String? = nil, timeout: TimeInterval = 5) async throws -> Socket {
        let taken = try await wait(timeout: timeout, what: "a WebSocket to open" + (path.map { " on \($0)" } ?? "")) { state in
            if let index = state.unclaimed.firstIndex(where: { id in path.map { state.open[id]?.socket.path == $0 } ?? true }) {
                let id = state.unclaimed.remove(at: index)
                return state.open[id].map { .socket($0.socket) }
            }
            return nil
        } waiter: { continuation in
            Waiter(socket: nil, path: path, continuation: continuation)
        }
        guard case .socket(let socket) = taken else { throw LiveSocketError.timedOut("a WebSocket to open") }
        return socket
    }

    /// The next message the client sent on socket `id`, in order: one received already, or
    /// the next within `timeout` seconds.
    /// - Throws: ``LiveSocketError/unknown(_:)`` for a socket not open,
    ///   ``LiveSocketError/closed(_:)`` when it closes first, ``LiveSocketError/timedOut(_:)``.
    public func nextMessage(from id: UInt64, timeout: TimeInterval = 5) async throws -> Message {
        let taken = try await wait(timeout: timeout, what: "a message on WebSocket \(id)") { state in
            guard state.open[id] != nil else { throw LiveSocketError.unknown(id) }
            guard !state.open[id]!.messages.isEmpty else { return nil }
            return .message(state.open[id]!.messages.removeFirst())
        } waiter: { continuation in
            Waiter(socket: id, path: nil, continuation: continuation)
        }
        guard case .message(let message) = taken else { throw LiveSocketError.timedOut("a message on WebSocket \(id)") }
        return message
    }

    /// Takes what `ready` finds at once, or registers a waiter that the transport's next
    /// report resumes, a timer fails after `timeout`, and cancellation fails at once.
    private func wait(timeout: TimeInterval, what: String,
                      ready: @escaping @Sendable (inout State) throws -> Taken?,
                      waiter: @escaping @Sendable (CheckedContinuation<Taken, any Error>) -> Waiter) async throws -> Taken {
        let key = UUID()
        // The timer goes when the wait ends, however it ends: no task sleeps on for a
        // waiter already served.
        let timer = Locked<(task: Task<Void, Never>?, ended: Bool)>((nil, false))
        defer {
            timer.withLock { timer in
                timer.ended = true
                timer.task?.cancel()
            }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Taken, any Error>) in
                let outcome: Result<Taken, any Error>? = state.withLock { state in
                    do {
                        if let taken = try ready(&state) { return .success(taken) }
                    } catch {
                        return .failure(error)
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[key] = waiter(continuation)
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                    return
                }
                let sleeper = Task { [state] in
                    guard (try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1_000_000_000))) != nil else { return }
                    state.withLock { $0.waiters.removeValue(forKey: key) }?.continuation
                        .resume(throwing: LiveSocketError.timedOut("\(what) within \(timeout) s"))
                }
                timer.withLock { timer in
                    if timer.ended { sleeper.cancel() } else { timer.task = sleeper }
                }
            }
        } onCancel: { [state] in
            state.withLock { $0.waiters.removeValue(forKey: key) }?.continuation.resume(throwing: CancellationError())
        }
    }
}

/// Why a ``LiveSockets`` call found no socket or message.
public enum LiveSocketError: Error, Equatable, CustomStringConvertible {
    /// No socket with this id is open.
    case unknown(UInt64)
    /// The socket closed before a message came.
    case closed(UInt64)
    /// Nothing came in time: what was awaited, and for how long.
    case timedOut(String)

    /// What went wrong, in a sentence.
    public var description: String {
        switch self {
        case .unknown(let id): return "No WebSocket \(id) is open"
        case .closed(let id): return "WebSocket \(id) closed before the client sent another message"
        case .timedOut(let what): return "Waited in vain for \(what)"
        }
    }
}

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
        let inbox: Inbox
    }

    /// One open socket's messages, for its transport to report into without looking the
    /// socket up (``add(_:connection:)`` returns it) and for callers waiting on them. It
    /// has its own lock, so the client's messages on different sockets do not contend.
    public final class Inbox: Sendable {
        /// The socket's id.
        public let id: UInt64

        struct State {
            /// At most ``LiveSockets/messageCapacity``, oldest first.
            var messages: [Message] = []
            var notKept = 0
            /// Callers waiting for the next message, first come first served.
            var waiters: [(key: UUID, continuation: CheckedContinuation<Message, any Error>)] = []
            /// The socket closed: nothing more comes.
            var closed = false

            /// Keeps `message` while there is room, else counts it; after the close, neither.
            mutating func keep(_ message: Message) {
                guard !closed else { return }
                if messages.count < LiveSockets.messageCapacity {
                    messages.append(message)
                } else {
                    notKept += 1
                }
            }
        }

        let state = Locked(State())

        init(id: UInt64) {
            self.id = id
        }

        /// A message the client sent: handed to the caller waiting longest for it, or kept
        /// while there is room (else counted).
        public func received(_ message: Message) {
            // Kept at once unless a caller waits (rare): then taken with the message in hand.
            let kept = state.withLock { state -> Bool in
                guard state.waiters.isEmpty else { return false }
                state.keep(message)
                return true
            }
            guard !kept else { return }
            let waiting = state.withLock { state -> CheckedContinuation<Message, any Error>? in
                guard state.waiters.isEmpty else { return state.waiters.removeFirst().continuation }
                state.keep(message)
                return nil
            }
            waiting?.resume(returning: message)
        }

        /// Messages received past ``LiveSockets/messageCapacity`` while none was taken.
        var notKept: Int { state.withLock { $0.notKept } }

        /// The socket closed: waiting callers get ``LiveSocketError/closed(_:)``, and the
        /// messages kept go.
        func close() {
            let waiting = state.withLock { state -> [CheckedContinuation<Message, any Error>] in
                state.closed = true
                state.messages = []
                defer { state.waiters.removeAll() }
                return state.waiters.map(\.continuation)
            }
            waiting.forEach { $0.resume(throwing: LiveSocketError.closed(id)) }
        }
    }

    /// A caller waiting for a socket to open (on `path`, when given).
    private struct Waiter {
        let path: String?
        let continuation: CheckedContinuation<Socket, any Error>
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

    /// Registers an open socket, and returns its inbox, where the transport reports the
    /// client's messages; nil when ``capacity`` sockets are open already.
    public func add(_ socket: Socket, connection: any Connection) -> Inbox? {
        var resumed: (CheckedContinuation<Socket, any Error>, Socket)?
        let inbox = state.withLock { state -> Inbox? in
            guard state.open.count < capacity else { return nil }
            let inbox = Inbox(id: socket.id)
            state.open[socket.id] = Entry(socket: socket, connection: connection, inbox: inbox)
            if let (key, waiter) = state.waiters.first(where: { $0.value.path.map { $0 == socket.path } ?? true }) {
                state.waiters[key] = nil
                resumed = (waiter.continuation, socket)
            } else {
                state.unclaimed.append(socket.id)
            }
            return inbox
        }
        if let (continuation, socket) = resumed { continuation.resume(returning: socket) }
        return inbox
    }

    /// Registers an open socket; false when ``capacity`` sockets are open already.
    public func register(_ socket: Socket, connection: any Connection) -> Bool {
        add(socket, connection: connection) != nil
    }

    /// A message the client sent on socket `id`: handed to a caller waiting for it, or
    /// kept. A transport that holds the socket's ``Inbox`` reports there, with no lookup.
    public func received(_ message: Message, on id: UInt64) {
        state.withLock { $0.open[id]?.inbox }?.received(message)
    }

    /// Socket `id` closed: it leaves the list, and callers waiting for its messages get
    /// ``LiveSocketError/closed(_:)``.
    public func closed(_ id: UInt64) {
        let inbox = state.withLock { state -> Inbox? in
            guard let entry = state.open.removeValue(forKey: id) else { return nil }
            state.unclaimed.removeAll { $0 == id }
            return entry.inbox
        }
        inbox?.close()
    }

    // MARK: Reading and driving them

    /// The open sockets, oldest first.
    public var open: [Socket] {
        // The inboxes are read after the registry's lock is let go: a long list does not
        // hold up sockets opening and closing.
        state.withLock { $0.open.values.map { ($0.socket, $0.inbox) } }.map(Self.listed).sorted { $0.id < $1.id }
    }

    /// A socket with its inbox's count of messages not kept.
    private static func listed(_ socket: Socket, _ inbox: Inbox) -> Socket {
        var socket = socket
        socket.messagesNotKept = inbox.notKept
        return socket
    }

    /// Callers waiting for a socket or a message.
    var waiting: Int {
        let (waiters, inboxes) = state.withLock { ($0.waiters.count, $0.open.values.map(\.inbox)) }
        return waiters + inboxes.reduce(0) { $0 + $1.state.withLock { $0.waiters.count } }
    }

    /// Open socket `id`, if it is.
    public func socket(_ id: UInt64) -> Socket? {
        state.withLock { $0.open[id].map { ($0.socket, $0.inbox) } }.map(Self.listed)
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
        try await Self.wait(on: state, timeout: timeout, what: "a WebSocket to open" + (path.map { " on \($0)" } ?? "")) { state in
            if let index = state.unclaimed.firstIndex(where: { id in path.map { state.open[id]?.socket.path == $0 } ?? true }) {
                let id = state.unclaimed.remove(at: index)
                return state.open[id].map { Self.listed($0.socket, $0.inbox) }
            }
            return nil
        } enqueue: { state, key, continuation in
            state.waiters[key] = Waiter(path: path, continuation: continuation)
        } dequeue: { state, key in
            state.waiters.removeValue(forKey: key)?.continuation
        }
    }

    /// The next message the client sent on socket `id`, in order: one received already, or
    /// the next within `timeout` seconds.
    /// - Throws: ``LiveSocketError/unknown(_:)`` for a socket not open,
    ///   ``LiveSocketError/closed(_:)`` when it closes first, ``LiveSocketError/timedOut(_:)``.
    public func nextMessage(from id: UInt64, timeout: TimeInterval = 5) async throws -> Message {
        guard let inbox = state.withLock({ $0.open[id]?.inbox }) else { throw LiveSocketError.unknown(id) }
        return try await Self.wait(on: inbox.state, timeout: timeout, what: "a message on WebSocket \(id)") { state in
            guard state.messages.isEmpty else { return state.messages.removeFirst() }
            if state.closed { throw LiveSocketError.closed(id) }
            return nil
        } enqueue: { state, key, continuation in
            state.waiters.append((key, continuation))
        } dequeue: { state, key in
            state.waiters.firstIndex { $0.key == key }.map { state.waiters.remove(at: $0).continuation }
        }
    }

    /// Takes what `ready` finds at once under `lock`, or enqueues a waiter that the
    /// transport's next report resumes, a timer fails after `timeout`, and cancellation
    /// fails at once.
    private static func wait<S, T: Sendable>(on lock: Locked<S>, timeout: TimeInterval, what: String,
                                             ready: @escaping @Sendable (inout S) throws -> T?,
                                             enqueue: @escaping @Sendable (inout S, UUID, CheckedContinuation<T, any Error>) -> Void,
                                             dequeue: @escaping @Sendable (inout S, UUID) -> CheckedContinuation<T, any Error>?) async throws -> T {
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
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let outcome: Result<T, any Error>? = lock.withLock { state in
                    do {
                        if let taken = try ready(&state) { return .success(taken) }
                    } catch {
                        return .failure(error)
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    enqueue(&state, key, continuation)
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                    return
                }
                let sleeper = Task {
                    guard (try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1_000_000_000))) != nil else { return }
                    lock.withLock { dequeue(&$0, key) }?.resume(throwing: LiveSocketError.timedOut("\(what) within \(timeout) s"))
                }
                timer.withLock { timer in
                    if timer.ended { sleeper.cancel() } else { timer.task = sleeper }
                }
            }
        } onCancel: {
            lock.withLock { dequeue(&$0, key) }?.resume(throwing: CancellationError())
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

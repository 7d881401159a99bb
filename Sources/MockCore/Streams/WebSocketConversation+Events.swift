import Foundation

/// What goes into a ``WebSocketConversation`` and what comes out: a transport maps its
/// frames and timers to these and carries out the actions, in order.
extension WebSocketConversation {
    /// A timer the caller runs: it calls back with `.timerFired` when it is due.
    public struct Timer: Sendable, Hashable {
        /// Tells the caller's timers apart: `.timerFired` brings it back.
        public let id: Int
    }

    /// A frame to send.
    public enum Frame: Sendable, Equatable {
        /// A text frame.
        case text(String)
        /// A binary frame.
        case binary(Data)
        /// A ping frame with this payload.
        case ping(Data)
        /// A pong frame with this payload.
        case pong(Data)

        /// Whether it is a data frame (counted for faults) rather than a control frame.
        public var isData: Bool {
            switch self {
            case .text, .binary: return true
            case .ping, .pong: return false
            }
        }
    }

    /// A client's data message as the conversation matches and templates it: a text
    /// message keeps its text and a binary one its bytes, and each is read the other way
    /// only when a pattern or a template asks for it.
    struct Message: Sendable {
        let kind: MessagePattern.Kind
        private let storage: Storage

        private enum Storage: Sendable {
            case text(String)
            case bytes(Data)
        }

        init(text: String) {
            kind = .text
            storage = .text(text)
        }

        init(kind: MessagePattern.Kind, bytes: Data) {
            self.kind = kind
            storage = .bytes(bytes)
        }

        /// Its text (bytes read as UTF-8).
        var text: String {
            switch storage {
            case .text(let text): return text
            case .bytes(let bytes): return String(decoding: bytes, as: UTF8.self)
            }
        }

        /// Its bytes (text as UTF-8).
        var bytes: Data {
            switch storage {
            case .text(let text): return Data(text.utf8)
            case .bytes(let bytes): return bytes
            }
        }
    }

    /// What happened, at the time given to ``handle(_:at:)``.
    public enum Event: Sendable, Equatable {
        /// The upgrade is done: the connection is open.
        case opened
        /// The peer sent a text message.
        case text(String)
        /// The peer sent a binary message.
        case binary(Data)
        /// The peer sent a ping.
        case ping(Data)
        /// The peer sent a pong.
        case pong(Data)
        /// A timer the conversation scheduled is due.
        case timerFired(Timer)
        /// The peer's close frame, with its code if it had one.
        case peerClosed(code: UInt16?, reason: String)
        /// The connection went away (closed or reset by the peer, or an I/O error).
        case connectionLost
    }

    /// What the transport does, in order, at once.
    public enum Action: Sendable, Equatable {
        /// Send this frame.
        case send(Frame)
        /// Call back with `.timerFired(timer)` at `at` seconds on the caller's clock.
        case schedule(Timer, at: TimeInterval)
        /// A close frame with this code and reason.
        case close(code: UInt16, reason: String)
        /// A close frame with an empty payload (no code).
        case closeWithoutCode
        /// The bytes of ``malformedFrame``, as they are.
        case sendMalformedFrame
        /// Nothing is sent from now until `until` (nil: never again), though the
        /// connection stays open: for journals; the machine holds the frames itself.
        case stall(until: TimeInterval?)
        /// Close the connection (TCP FIN) with no more frames.
        case closeConnection
        /// Reset the connection (TCP RST).
        case reset
    }

    /// Where the conversation is: connecting, open, closing, or closed.
    public enum State: Sendable, Equatable {
        /// Waiting for `.opened`.
        case connecting
        /// Open: messages flow both ways.
        case open
        /// The server sent its close frame and waits for the peer's.
        case closing
        /// Closed: nothing more is sent or received.
        case closed
    }
}

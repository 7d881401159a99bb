import Foundation
import MockCore
import NIOCore
import NIOWebSocket

/// A server's reading of a client's frames by the rules of RFC 6455, as a value: frames in
/// (decoded by NIO's `WebSocketFrameDecoder`, which already refuses frames over the size
/// limit and fragmented or long control frames), whole messages and control frames out, or
/// the violation that fails the connection with its close code:
///
/// - a client's frame must be masked (§5.1), with no reserved bit set (no extension is
///   agreed, §5.2) and no reserved opcode: else 1002, protocol error;
/// - a fragmented message is one text or binary frame then continuations (§5.4), at most
///   `maxMessageSize` bytes in all: else 1002, or 1009 (message too big);
/// - a text message, and a close frame's reason, must be UTF-8: else 1007;
/// - a close frame's payload is empty or a code of two bytes (one a peer may send, §7.4)
///   and a reason: else 1002.
///
/// After a violation or a close it reads nothing more; a data frame after the client's own
/// close is still named (`afterClose`), so the journal shows a client that sends past it.
struct WebSocketInbound {
    /// What a frame amounts to.
    enum Received: Equatable {
        /// Part of a message: kept until its last fragment.
        case fragment
        case text(String, fragments: Int)
        case binary(ByteBuffer, fragments: Int)
        case ping(ByteBuffer)
        case pong(ByteBuffer)
        case close(code: UInt16?, reason: String)
        /// The connection fails: close with `code` and `reason`.
        case violation(code: UInt16, reason: String)
        /// A text or binary frame the client sent after its own close frame (§5.5.1: it
        /// sends no data frame after one): recorded, not answered.
        case afterClose(text: Bool, ByteBuffer)
        /// Read after a close or a violation: ignored.
        case ignored
    }

    /// The largest message, all its fragments together, in bytes.
    let maxMessageSize: Int
    /// A message whose later fragments are still to come.
    private var partial: (text: Bool, bytes: ByteBuffer, fragments: Int)?
    private(set) var done = false
    /// The client's close frame came (`done` for that reason, not a violation).
    private var closed = false

    init(maxMessageSize: Int) {
        self.maxMessageSize = maxMessageSize
    }

    /// Close codes for violations (RFC 6455 §7.4.1).
    static let invalidPayload: UInt16 = 1007
    static let messageTooBig: UInt16 = 1009

    mutating func receive(_ frame: WebSocketFrame) -> Received {
        guard !done else {
            guard closed, frame.opcode == .text || frame.opcode == .binary || frame.opcode == .continuation else { return .ignored }
            return .afterClose(text: frame.opcode == .text, frame.maskKey == nil ? frame.data : frame.unmaskedData)
        }
        guard frame.maskKey != nil else { return fail(WebSocketCloseCode.protocolError, "A client's frames must be masked") }
        guard frame.reservedBits.isEmpty else {
            return fail(WebSocketCloseCode.protocolError, "A reserved bit is set, and no extension was agreed")
        }
        let payload = frame.unmaskedData
        switch frame.opcode {
        case .text, .binary:
            guard partial == nil else {
                return fail(WebSocketCloseCode.protocolError, "A new message began before the fragmented one before it ended")
            }
            guard payload.readableBytes <= maxMessageSize else { return tooBig(payload.readableBytes) }
            let text = frame.opcode == .text
            guard frame.fin else {
                partial = (text, payload, 1)
                return .fragment
            }
            return whole(text: text, payload, fragments: 1)
        case .continuation:
            guard var message = partial else {
                return fail(WebSocketCloseCode.protocolError, "A continuation frame came with no fragmented message to continue")
            }
            partial = nil
            guard message.bytes.readableBytes + payload.readableBytes <= maxMessageSize else {
                return tooBig(message.bytes.readableBytes + payload.readableBytes)
            }
            var rest = payload
            message.bytes.writeBuffer(&rest)
            message.fragments += 1
            guard frame.fin else {
                partial = message
                return .fragment
            }
            return whole(text: message.text, message.bytes, fragments: message.fragments)
        case .ping:
            return .ping(payload)
        case .pong:
            return .pong(payload)
        case .connectionClose:
            return close(payload)
        default:
            return fail(WebSocketCloseCode.protocolError, "Opcode \(frame.opcode) is reserved")
        }
    }

    private mutating func whole(text: Bool, _ bytes: ByteBuffer, fragments: Int) -> Received {
        guard text else { return .binary(bytes, fragments: fragments) }
        guard let string = Self.utf8(bytes) else {
            return fail(Self.invalidPayload, "A text message is not valid UTF-8")
        }
        return .text(string, fragments: fragments)
    }

    private mutating func close(_ payload: ByteBuffer) -> Received {
        done = true
        closed = true
        var payload = payload
        guard payload.readableBytes > 0 else { return .close(code: nil, reason: "") }
        guard let code = payload.readInteger(as: UInt16.self) else {
            return fail(WebSocketCloseCode.protocolError, "A close frame's payload of one byte has no code")
        }
        guard WebSocketCloseCode.isSendable(Int(code)) else {
            return fail(WebSocketCloseCode.protocolError, "Close code \(code) may not be sent")
        }
        guard let reason = Self.utf8(payload) else {
            return fail(Self.invalidPayload, "A close frame's reason is not valid UTF-8")
        }
        return .close(code: code, reason: reason)
    }

    private mutating func tooBig(_ size: Int) -> Received {
        fail(Self.messageTooBig, "A message of \(size) bytes or more is over the limit of \(maxMessageSize)")
    }

    private mutating func fail(_ code: UInt16, _ reason: String) -> Received {
        done = true
        closed = false
        partial = nil
        return .violation(code: code, reason: reason)
    }

    /// The readable bytes of `buffer` as a string when they are valid UTF-8: decoding
    /// repairs invalid sequences, so valid bytes are exactly those that come back unchanged.
    static func utf8(_ buffer: ByteBuffer) -> String? {
        var string = String(buffer: buffer)
        let unchanged = string.withUTF8 { decoded in
            buffer.withUnsafeReadableBytes { original in
                decoded.count == original.count && (decoded.isEmpty || memcmp(decoded.baseAddress!, original.baseAddress!, decoded.count) == 0)
            }
        }
        return unchanged ? string : nil
    }
}

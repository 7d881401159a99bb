import NIOCore
import NIOWebSocket

/// A server's WebSocket frame as bytes (RFC 6455 §5.2): FIN set, the opcode, the payload's
/// length in 7, 16 or 64 bits, no mask (a server never masks), then the payload, all in one
/// buffer.
///
/// NIO's `WebSocketFrameEncoder` writes an unmasked frame as two buffers, its header and its
/// payload, each through the rest of the pipeline; one buffer made here is one write, for
/// every frame of a conversation (`Benchmarks/README.md`, "Streams", has what that saves).
/// `ServerFrameTests` holds these bytes to the encoder's, for every length class.
enum ServerFrame {
    /// The frame with `opcode` whose payload `fill` writes: exactly `size` bytes.
    static func make(_ allocator: ByteBufferAllocator, opcode: WebSocketOpcode, size: Int,
                     _ fill: (inout ByteBuffer) -> Void) -> ByteBuffer {
        let header = size <= 125 ? 2 : size <= Int(UInt16.max) ? 4 : 10
        var buffer = allocator.buffer(capacity: header + size)
        buffer.writeInteger(0x80 | UInt8(webSocketOpcode: opcode))
        switch header {
        case 2:
            buffer.writeInteger(UInt8(size))
        case 4:
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(size))
        default:
            buffer.writeInteger(UInt8(127))
            buffer.writeInteger(UInt64(size))
        }
        fill(&buffer)
        assert(buffer.readableBytes == header + size, "the payload written is not the size given")
        return buffer
    }

    /// A text frame of `text`'s UTF-8.
    static func text(_ allocator: ByteBufferAllocator, _ text: String) -> ByteBuffer {
        make(allocator, opcode: .text, size: text.utf8.count) { $0.writeString(text) }
    }

    /// A frame with `opcode` whose payload is `bytes`.
    static func bytes<Bytes: Collection>(_ allocator: ByteBufferAllocator, opcode: WebSocketOpcode, _ bytes: Bytes) -> ByteBuffer
    where Bytes.Element == UInt8 {
        make(allocator, opcode: opcode, size: bytes.count) { $0.writeBytes(bytes) }
    }
}

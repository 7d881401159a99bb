import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing
@testable import MockServer

/// The frames the server writes itself are the bytes NIO's own encoder writes for the same
/// frame (its header buffer and its payload buffer, joined), for every length class of
/// RFC 6455 §5.2 and every opcode the server sends.
@Suite struct ServerFrameTests {
    /// The payload lengths at the edges of the 7-, 16- and 64-bit length fields.
    static let sizes = [0, 1, 125, 126, 127, 65_535, 65_536, 70_000]

    /// What NIO's `WebSocketFrameEncoder` writes for an unmasked frame with FIN set.
    static func encodedByNIO(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws -> [UInt8] {
        let channel = EmbeddedChannel(handler: WebSocketFrameEncoder())
        defer { _ = try? channel.finish() }
        try channel.writeOutbound(WebSocketFrame(fin: true, opcode: opcode, data: ByteBuffer(bytes: payload)))
        var bytes: [UInt8] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            bytes += buffer.readableBytesView
        }
        return bytes
    }

    @Test(arguments: sizes)
    func aFrameIsTheBytesNIOsEncoderWrites(size: Int) throws {
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for opcode in [WebSocketOpcode.binary, .ping, .pong, .connectionClose] where size <= 125 || !opcode.isControlOpcode {
            let ours = ServerFrame.bytes(ByteBufferAllocator(), opcode: opcode, payload)
            #expect(Array(ours.readableBytesView) == (try Self.encodedByNIO(opcode, payload)), "\(opcode), \(size) bytes")
        }
        let text = String(repeating: "é", count: size / 2) + (size % 2 == 1 ? "a" : "")
        #expect(text.utf8.count == size)
        let ours = ServerFrame.text(ByteBufferAllocator(), text)
        #expect(Array(ours.readableBytesView) == (try Self.encodedByNIO(.text, Array(text.utf8))), "text, \(size) bytes")
    }
}

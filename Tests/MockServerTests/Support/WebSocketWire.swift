import Foundation

/// WebSocket frames as bytes, written by hand so a test can send what no well-behaved
/// client library would (unmasked frames, reserved bits and opcodes, bad UTF-8, fragments),
/// and read back what the server wrote.
enum WebSocketWire {
    /// The RFC 6455 §1.3 example key and the accept value it calls for.
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="
    static let accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    /// An opening handshake for `path`.
    static func upgrade(_ path: String, extra: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\(extra)\r\n"
    }

    /// A client's frame: masked with a fixed key unless `masked` is false.
    static func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true, rsv: UInt8 = 0) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv << 4) | opcode]
        let mask: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case ..<126:
            bytes.append(mask | UInt8(payload.count))
        case ..<65536:
            bytes.append(mask | 126)
            bytes += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            bytes.append(mask | 127)
            bytes += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        guard masked else { return bytes + payload }
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    static func text(_ text: String, fin: Bool = true, masked: Bool = true) -> [UInt8] { frame(0x1, Array(text.utf8), fin: fin, masked: masked) }
    static func close(_ code: UInt16?, _ reason: String = "") -> [UInt8] {
        frame(0x8, code.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] + Array(reason.utf8) } ?? [])
    }

    /// A frame the server wrote.
    struct Frame: Equatable, CustomStringConvertible {
        var fin: Bool
        var opcode: UInt8
        var masked: Bool
        var payload: [UInt8]

        var text: String { String(decoding: payload, as: UTF8.self) }
        /// A close frame's code, if it has one.
        var closeCode: UInt16? { opcode == 0x8 && payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil }
        var closeReason: String { String(decoding: payload.dropFirst(2), as: UTF8.self) }
        var description: String { "frame(op \(opcode), \(payload.count) bytes\(opcode == 1 ? ": " + text : ""))" }
    }

    /// The frames in `bytes`, and what is left of an incomplete one.
    static func frames(_ bytes: [UInt8]) -> (frames: [Frame], rest: [UInt8]) {
        var frames: [Frame] = []
        var index = 0
        while bytes.count - index >= 2 {
            let first = bytes[index], second = bytes[index + 1]
            var length = Int(second & 0x7F)
            var at = index + 2
            if length == 126 {
                guard bytes.count >= at + 2 else { break }
                length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
                at += 2
            } else if length == 127 {
                guard bytes.count >= at + 8 else { break }
                length = bytes[at..<at + 8].reduce(0) { $0 << 8 | Int($1) }
                at += 8
            }
            let masked = second & 0x80 != 0
            if masked { at += 4 }
            guard bytes.count >= at + length else { break }
            frames.append(Frame(fin: first & 0x80 != 0, opcode: first & 0x0F, masked: masked, payload: Array(bytes[at..<at + length])))
            index = at + length
        }
        return (frames, Array(bytes[index...]))
    }
}

import Foundation

/// Checks that bytes are a well-formed PNG: signature, every chunk's CRC, IHDR first
/// with sane dimensions, at least one IDAT, IEND last. Returns the dimensions.
enum PNGCheck {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func validate(_ data: Data) throws -> (width: Int, height: Int) {
        let bytes = [UInt8](data)
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { throw Failure(description: "no PNG signature") }
        var offset = 8
        var chunkTypes: [String] = []
        var size = (width: 0, height: 0)
        while offset + 12 <= bytes.count {
            let length = Int(bigEndian32(bytes, offset))
            guard offset + 12 + length <= bytes.count else { throw Failure(description: "chunk runs past the end") }
            let typeAndData = Array(bytes[(offset + 4)..<(offset + 8 + length)])
            let type = String(decoding: typeAndData.prefix(4), as: UTF8.self)
            let crc = bigEndian32(bytes, offset + 8 + length)
            guard crc == crc32(typeAndData) else { throw Failure(description: "bad CRC in \(type)") }
            if type == "IHDR" {
                size = (Int(bigEndian32(bytes, offset + 8)), Int(bigEndian32(bytes, offset + 12)))
            }
            chunkTypes.append(type)
            offset += 12 + length
        }
        guard chunkTypes.first == "IHDR" else { throw Failure(description: "IHDR is not first") }
        guard chunkTypes.contains("IDAT") else { throw Failure(description: "no image data") }
        guard chunkTypes.last == "IEND", offset == bytes.count else { throw Failure(description: "IEND is not last") }
        guard size.width > 0, size.height > 0, size.width < 10_000, size.height < 10_000 else { throw Failure(description: "bad size \(size)") }
        return size
    }

    static func bigEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}

import Foundation
import MockCore

/// Text-level helpers of the HAR import.
enum HARText {
    /// `text` with each origin (also JSON-escaped, `http:\/\/host`) replaced by
    /// `{{baseURL}}`, as the recorder rewrites its upstream's address; nil when none occurs.
    /// An origin counts only where it ends (`http://h:80` is not a prefix of `http://h:8080`).
    static func templating(_ text: String, origins: [String]) -> String? {
        var result = text
        var changed = false
        for origin in origins.sorted(by: { $0.count > $1.count }) {
            for needle in [origin, origin.replacingOccurrences(of: "/", with: "\\/")] where result.contains(needle) {
                var out = ""
                var rest = result[...]
                while let range = rest.range(of: needle) {
                    out += rest[..<range.lowerBound]
                    let next = rest[range.upperBound...].unicodeScalars.first
                    if let next, next.properties.isAlphabetic || ("0"..."9").contains(next) || next == "." || next == "-" || next == ":" {
                        out += needle
                    } else {
                        out += BodyTemplate.fileMarker
                        changed = true
                    }
                    rest = rest[range.upperBound...]
                }
                result = out + rest
            }
        }
        return changed ? result : nil
    }

    /// The HAR text with each lone UTF-16 surrogate escape (`\udc89`, not half of a pair)
    /// replaced by `\ufffd`, and how many there were. mitmproxy writes bytes that are not
    /// text in its decoded bodies that way (Python's `surrogateescape`); strict JSON refuses them.
    static func repairingLoneSurrogates(_ data: Data) -> (Data, Int) {
        // Most captures have none: one search each way instead of a pass over every byte.
        guard data.range(of: Data("\\ud".utf8)) != nil || data.range(of: Data("\\uD".utf8)) != nil else { return (data, 0) }
        let bytes = [UInt8](data)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var repaired = 0
        var inString = false
        var index = 0
        func hex(at offset: Int) -> UInt32? {
            guard offset + 6 <= bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else { return nil }
            guard let text = String(bytes: bytes[(offset + 2)..<(offset + 6)], encoding: .ascii) else { return nil }
            return UInt32(text, radix: 16)
        }
        while index < bytes.count {
            let byte = bytes[index]
            if !inString {
                if byte == UInt8(ascii: "\"") { inString = true }
                out.append(byte)
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inString = false
            } else if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                if let value = hex(at: index), (0xD800...0xDFFF).contains(value) {
                    let paired = (0xD800...0xDBFF).contains(value) && hex(at: index + 6).map { (0xDC00...0xDFFF).contains($0) } == true
                    if paired {
                        out.append(contentsOf: bytes[index..<(index + 12)])
                        index += 12
                    } else {
                        out.append(contentsOf: Array("\\ufffd".utf8))
                        repaired += 1
                        index += 6
                    }
                    continue
                }
                out.append(byte)
                out.append(bytes[index + 1])
                index += 2
                continue
            }
            out.append(byte)
            index += 1
        }
        return repaired == 0 ? (data, 0) : (Data(out), repaired)
    }
}

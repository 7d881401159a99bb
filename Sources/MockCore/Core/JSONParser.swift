import Foundation

/// Strict RFC 8259 JSON straight from bytes to `JSONValue`.
///
/// `JSONDecoder` into `JSONValue`'s `Codable` conformance tries each JSON type in turn and
/// throws on every miss, a cost that start-up pays for every scenario file and a request
/// body matched with `jsonEqualTo` pays per request. This walks the bytes once. Nesting
/// is limited so a hostile body cannot exhaust the stack.
enum JSONParser {
    static let maximumDepth = 512

    struct Failure: Error {
        let offset: Int
        let reason: String
    }

    static func parse(_ data: Data) throws(Failure) -> JSONValue {
        let result: Result<JSONValue, Failure> = data.withUnsafeBytes { raw in
            var parser = Cursor(bytes: raw.bindMemory(to: UInt8.self))
            do throws(Failure) {
                parser.skipByteOrderMark()
                parser.skipWhitespace()
                let value = try parser.value(depth: 0)
                parser.skipWhitespace()
                guard parser.atEnd else { throw parser.failure("unexpected text after the JSON value") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var atEnd: Bool { index >= bytes.count }
        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        func failure(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

        mutating func skipByteOrderMark() {
            if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { index = 3 }
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(Failure) -> JSONValue {
            guard let byte = current else { throw failure("unexpected end of input") }
            switch byte {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw failure("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws(Failure) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw failure("unexpected end of input") }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
                throw failure("unexpected character")
            }
            index += count
        }

        /// The members and elements of the containers being read, innermost last. Each
        /// container builds its own dictionary or array once, at its end and at its final
        /// size, rather than growing as it is read with a lookup per member for duplicates:
        /// reallocations and lookups per member would cost as much as the parse itself.
        var members: [(key: String, value: JSONValue)] = []
        var elements: [JSONValue] = []

        mutating func object(depth: Int) throws(Failure) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else { throw failure("nested deeper than \(JSONParser.maximumDepth) levels") }
            index += 1   // {
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                index += 1
                return .object([:])
            }
            let base = members.count
            while true {
                guard current == UInt8(ascii: "\"") else { throw failure("expected a member name in quotes") }
                let key = try string()
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw failure("expected \":\" after a member name") }
                index += 1
                skipWhitespace()
                let member = try value(depth: depth)
                members.append((key: key, value: member))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","):
                    index += 1
                    skipWhitespace()
                case UInt8(ascii: "}"):
                    index += 1
                    var object = [String: JSONValue](minimumCapacity: members.count - base)
                    // Backwards, so that of two members with one name the first wins, as
                    // with JSONDecoder.
                    for (key, member) in members[base...].reversed() { object[key] = member }
                    members.removeSubrange(base...)
                    return .object(object)
                default:
                    throw failure("expected \",\" or \"}\" in an object")
                }
            }
        }

        mutating func array(depth: Int) throws(Failure) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else { throw failure("nested deeper than \(JSONParser.maximumDepth) levels") }
            index += 1   // [
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                index += 1
                return .array([])
            }
            let base = elements.count
            while true {
                let element = try value(depth: depth)
                elements.append(element)
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","):
                    index += 1
                    skipWhitespace()
                case UInt8(ascii: "]"):
                    index += 1
                    let array = Array(elements[base...])
                    elements.removeSubrange(base...)
                    return .array(array)
                default:
                    throw failure("expected \",\" or \"]\" in an array")
                }
            }
        }

        /// A string starting at its opening quote; the common case (no escapes) is one copy.
        mutating func string() throws(Failure) -> String {
            index += 1   // "
            let start = index
            var ascii = true
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = ascii
                        ? String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                        : try utf8(start..<index)
                    index += 1
                    return text
                }
                if byte >= 0x80 { ascii = false }
                if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
                if byte < 0x20 { throw failure("a control character inside a string must be escaped") }
                index += 1
            }
            throw failure("unterminated string")
        }

        /// The bytes in `range` as a string, refusing invalid UTF-8. (`String(validating:as:)`
        /// would say it in one call, but it needs macOS 15 / iOS 18: decoding repairs an
        /// invalid sequence with U+FFFD, so the text is valid exactly when its UTF-8 is the input.)
        private func utf8(_ range: Range<Int>) throws(Failure) -> String {
            let input = UnsafeBufferPointer(rebasing: bytes[range])
            var text = String(decoding: input, as: UTF8.self)
            guard input.allSatisfy({ $0 < 0x80 }) || text.withUTF8({ $0.elementsEqual(input) }) else {
                throw Failure(offset: range.lowerBound, reason: "a string that is not valid UTF-8")
            }
            return text
        }

        /// A string with escapes, from its first byte at `start` (the cursor is on the first
        /// backslash): its UTF-8 gathered in one buffer and checked once, at its end.
        private mutating func escapedString(from start: Int) throws(Failure) -> String {
            var text: [UInt8] = []
            text.reserveCapacity(index - start + 64)
            text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return try Self.utf8(text, from: start)
                case UInt8(ascii: "\\"):
                    index += 1
                    guard let escape = current else { throw failure("unterminated string") }
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                    case UInt8(ascii: "b"): text.append(0x08)
                    case UInt8(ascii: "f"): text.append(0x0C)
                    case UInt8(ascii: "n"): text.append(0x0A)
                    case UInt8(ascii: "r"): text.append(0x0D)
                    case UInt8(ascii: "t"): text.append(0x09)
                    case UInt8(ascii: "u"): UTF8.encode(try unicodeEscape()) { text.append($0) }
                    default:
                        index -= 1
                        throw failure("an unknown escape sequence")
                    }
                default:
                    if byte < 0x20 { throw failure("a control character inside a string must be escaped") }
                    // A run of plain bytes up to the next quote or backslash.
                    let runStart = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 {
                        index += 1
                    }
                    text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                }
            }
            throw failure("unterminated string")
        }

        /// `bytes` as a string, refusing invalid UTF-8 (as `utf8(_:)` does), named at `offset`.
        private static func utf8(_ bytes: [UInt8], from offset: Int) throws(Failure) -> String {
            let text = String(decoding: bytes, as: UTF8.self)
            guard bytes.allSatisfy({ $0 < 0x80 }) || text.utf8.elementsEqual(bytes) else {
                throw Failure(offset: offset, reason: "a string that is not valid UTF-8")
            }
            return text
        }

        /// After `\u`: four hex digits, and a low surrogate's `\uXXXX` after a high one.
        private mutating func unicodeEscape() throws(Failure) -> Unicode.Scalar {
            let first = try hex4()
            if (0xD800...0xDBFF).contains(first) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("a high surrogate without its low surrogate")
                }
                index += 2
                let second = try hex4()
                guard (0xDC00...0xDFFF).contains(second) else { throw failure("a high surrogate without its low surrogate") }
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                return Unicode.Scalar(value)!
            }
            guard let scalar = Unicode.Scalar(first) else { throw failure("a lone low surrogate") }
            return scalar
        }

        private mutating func hex4() throws(Failure) -> UInt32 {
            guard index + 4 <= bytes.count else { throw failure("unterminated unicode escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw failure("a unicode escape needs four hexadecimal digits")
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as a Double.
        mutating func number() throws(Failure) -> Double {
            let start = index
            if current == UInt8(ascii: "-") { index += 1 }
            guard let first = current, first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9") else {
                throw failure("a number needs a digit")
            }
            var integer: Int64 = 0
            var exact = true
            if first == UInt8(ascii: "0") {
                index += 1
                if let next = current, next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9") {
                    throw failure("a number cannot start with 0")
                }
            } else {
                while let digit = current, digit >= UInt8(ascii: "0") && digit <= UInt8(ascii: "9") {
                    if integer < 100_000_000_000_000 { integer = integer * 10 + Int64(digit - UInt8(ascii: "0")) } else { exact = false }
                    index += 1
                }
            }
            if current == UInt8(ascii: ".") {
                exact = false
                index += 1
                guard try digits() > 0 else { throw failure("a fraction needs digits after \".\"") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                exact = false
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard try digits() > 0 else { throw failure("an exponent needs digits") }
            }
            if exact {
                return bytes[start] == UInt8(ascii: "-") ? -Double(integer) : Double(integer)
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else {
                throw Failure(offset: start, reason: "a number out of range")
            }
            // An integer just past a 64-bit integer's range rounds to ±2^63, as Int64's own
            // bounds do: it is moved one double further out, so a check against int64's range
            // tells it from Int64.max and Int64.min (which stay ±2^63).
            if abs(value) == 9_223_372_036_854_775_808.0, !text.contains("."), !text.contains("e"), !text.contains("E"), Int64(text) == nil {
                return value > 0 ? value.nextUp : value.nextDown
            }
            return value
        }

        private mutating func digits() throws(Failure) -> Int {
            var count = 0
            while let digit = current, digit >= UInt8(ascii: "0") && digit <= UInt8(ascii: "9") {
                index += 1
                count += 1
            }
            return count
        }
    }
}

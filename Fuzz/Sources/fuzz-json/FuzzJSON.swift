import Foundation
import FuzzSupport
import Scenarios

/// Differential: our JSON parser against Foundation on the same bytes: the same
/// accept/reject, and the same values, as `JSONDecoder` or `JSONSerialization`. The two
/// share a parser yet differ at the edges (found by this fuzzer: `JSONSerialization`
/// accepts `4e888`, `JSONDecoder` refuses it; `JSONDecoder` refuses `0e9` as a Double,
/// `JSONSerialization` reads it), so a finding is ours disagreeing with both. Values follow `JSONDecoder` because that is how servers (Vapor) read request
/// bodies: with a duplicate key the first wins there, the last in `JSONSerialization`
/// (found by this fuzzer; Foundation disagrees with itself).
///
/// Known, deliberate differences (not findings), each checked here rather than skipped:
/// - nesting deeper than `JSONValue.maximumParsingDepth` is refused by ours (a hostile body cannot
///   exhaust the stack); Foundation's limit differs.
/// - Foundation accepts a leading UTF-8 BOM and other encodings (UTF-16/32); RFC 8259
///   JSON exchanged between systems is UTF-8 without a BOM, and ours accepts only that.
/// - Foundation (swift-foundation, seen on Linux with Swift 6.3) accepts a trailing comma
///   in arrays and objects (`[1,]`, found by this fuzzer); RFC 8259 forbids it, as do
///   Python's and JavaScript's parsers, and ours refuses it. Only inputs that do parse
///   once their trailing commas are removed are let through.
/// - Foundation checks a number's range only when it converts the value, and it never
///   converts a duplicate key's overridden value, so `{"a":[1e9999],"a":0}` passes
///   `JSONSerialization` and `JSONDecoder` (found by this fuzzer). Ours refuses every number
///   past `Double`'s range, wherever it stands, as RFC 8259 §6 allows. Only inputs that
///   hold such a number are let through.
enum FuzzJSON {
    /// Nesting past which Foundation itself is not asked: swift-foundation's scanner dies
    /// (a deadly signal in `JSONError.SourceLocation`, under the fuzzer's instrumented
    /// stack) on some ~500-deep truncated arrays, found by this fuzzer. Ours must still
    /// read or refuse them without crashing.
    static let foundationDepthLimit = 256

    static func check(_ data: Data) {
        let ours = JSONValue(parsing: data)
        if depth(data) > foundationDepthLimit {
            if depth(data) > JSONValue.maximumParsingDepth, ours != nil { FuzzDriver.fail("ours accepts nesting deeper than its limit") }
            return
        }
        let serialized = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        let decoded = try? JSONDecoder().decode(Decoded.self, from: data)
        switch (ours, serialized) {
        case (nil, nil):
            return
        case (let value?, nil):
            // JSONDecoder and JSONSerialization share a parser yet differ at the edges;
            // ours must agree with at least one of them.
            if let decoded, close(value, decoded.value) { return }
            FuzzDriver.fail("ours accepts what Foundation refuses: \(value) from \(Array(data.prefix(64)))")
        case (nil, .some):
            if decoded == nil { return }   // JSONDecoder refuses it too (`4e888`)
            if depth(data) > JSONValue.maximumParsingDepth || !isPlainUTF8(data) || hasOutOfRangeNumber(data) { return }
            if let stripped = withoutTrailingCommas(data), stripped != data {
                // Refusing is right; what remains must then be read alike.
                if let value = JSONValue(parsing: stripped), let object = try? JSONSerialization.jsonObject(with: stripped, options: [.fragmentsAllowed]) {
                    if let difference = disagreement(value, object, stripped) { FuzzDriver.fail("after trailing commas, " + difference) }
                    return
                }
                if JSONValue(parsing: stripped) == nil && (try? JSONSerialization.jsonObject(with: stripped, options: [.fragmentsAllowed])) == nil { return }
            }
            FuzzDriver.fail("ours refuses what Foundation accepts: \(Array(data.prefix(64)))")
        case (let value?, let object?):
            if let difference = disagreement(value, object, data) { FuzzDriver.fail(difference) }
        }
    }

    /// Nil when ours reads `data` as `JSONDecoder` does (or, where JSONDecoder refuses, as
    /// `JSONSerialization` does); else what differs.
    static func disagreement(_ value: JSONValue, _ object: Any, _ data: Data) -> String? {
        if let decoded = try? JSONDecoder().decode(Decoded.self, from: data) {
            return close(value, decoded.value) ? nil : "values differ: ours \(value), JSONDecoder \(decoded.value)"
        }
        return same(value, object) ? nil : "values differ: ours \(value), Foundation \(object)"
    }

    /// Equal, with numbers equal to 12 significant digits: Foundation reads integers past
    /// 2^64 as decimals whose conversion to Double is not exact.
    static func close(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)): return x == y || abs(x - y) <= max(abs(x), abs(y)) * 1e-12
        case (.array(let xs), .array(let ys)): return xs.count == ys.count && zip(xs, ys).allSatisfy { close($0, $1) }
        case (.object(let xs), .object(let ys)): return xs.count == ys.count && xs.allSatisfy { key, value in ys[key].map { close(value, $0) } ?? false }
        default: return a == b
        }
    }

    /// Any JSON as `JSONDecoder` reads it.
    struct Decoded: Decodable {
        let value: JSONValue
        struct Key: CodingKey {
            let stringValue: String
            init(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }
        init(from decoder: any Decoder) throws {
            if let keyed = try? decoder.container(keyedBy: Key.self) {
                var members: [String: JSONValue] = [:]
                for key in keyed.allKeys where members[key.stringValue] == nil {
                    members[key.stringValue] = try keyed.decode(Decoded.self, forKey: key).value
                }
                value = .object(members)
            } else if var list = try? decoder.unkeyedContainer() {
                var elements: [JSONValue] = []
                while !list.isAtEnd { elements.append(try list.decode(Decoded.self).value) }
                value = .array(elements)
            } else {
                let single = try decoder.singleValueContainer()
                if single.decodeNil() { value = .null }
                else if let flag = try? single.decode(Bool.self) { value = .bool(flag) }
                else if let number = try? single.decode(Double.self) { value = .number(number) }
                else { value = .string(try single.decode(String.self)) }
            }
        }
    }

    /// UTF-8 with no BOM and no NUL-led UTF-16/32 guess: what ours is meant to read.
    static func isPlainUTF8(_ data: Data) -> Bool {
        guard String(data: data, encoding: .utf8) != nil else { return false }
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { return false }
        return !data.prefix(4).contains(0)
    }

    /// The bytes with every comma that precedes `]` or `}` (whitespace between) removed,
    /// outside strings; nil if there was none.
    static func withoutTrailingCommas(_ data: Data) -> Data? {
        let bytes = Array(data)
        var out = [UInt8](), inString = false, escaped = false, removed = false
        for (index, byte) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                out.append(byte)
                continue
            }
            if byte == UInt8(ascii: "\"") { inString = true }
            if byte == UInt8(ascii: ",") {
                let next = bytes[(index + 1)...].first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
                if next == UInt8(ascii: "]") || next == UInt8(ascii: "}") { removed = true; continue }
            }
            out.append(byte)
        }
        return removed ? Data(out) : nil
    }

    /// Whether a number token outside strings is past `Double`'s range (reads as ±inf).
    static func hasOutOfRangeNumber(_ data: Data) -> Bool {
        var token = [UInt8](), inString = false, escaped = false
        func overflows() -> Bool {
            defer { token.removeAll() }
            guard !token.isEmpty, let value = Double(String(decoding: token, as: UTF8.self)) else { return false }
            return value.isInfinite
        }
        for byte in data {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            if (byte >= 0x30 && byte <= 0x39) || [UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(byte) {
                token.append(byte)
                continue
            }
            if overflows() { return true }
            if byte == UInt8(ascii: "\"") { inString = true }
        }
        return overflows()
    }

    static func depth(_ data: Data) -> Int {
        var deepest = 0, current = 0, inString = false, escaped = false
        for byte in data {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"): current += 1; deepest = max(deepest, current)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): current -= 1
            default: break
            }
        }
        return deepest
    }

    static func same(_ ours: JSONValue, _ theirs: Any) -> Bool {
        switch ours {
        case .null: return theirs is NSNull
        case .bool(let flag):
            guard let number = theirs as? NSNumber, isBoolean(number) else { return false }
            return number.boolValue == flag
        case .number(let value):
            guard let number = theirs as? NSNumber, !isBoolean(number) else { return false }
            let other = number.doubleValue
            return value == other || abs(value - other) <= max(abs(value), abs(other)) * 1e-12
        case .string(let text):
            return (theirs as? String) == text
        case .array(let elements):
            guard let others = theirs as? [Any], others.count == elements.count else { return false }
            return zip(elements, others).allSatisfy { same($0, $1) }
        case .object(let members):
            guard let others = theirs as? [String: Any], others.count == members.count else { return false }
            return members.allSatisfy { key, value in others[key].map { same(value, $0) } ?? false }
        }
    }

    /// Foundation gives booleans as NSNumbers of type char (`c`) or Bool (`B`).
    static func isBoolean(_ number: NSNumber) -> Bool {
        let type = String(cString: number.objCType)
        return type == "c" || type == "B"
    }
}

#if FUZZING
// libFuzzer's own `main` calls this; SwiftPM's `main` alias (`fuzz_json_main`) hands the
// process to libFuzzer with the same target. Both paths run `FuzzJSON.check`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzJSON.check(start.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

@_cdecl("fuzz_json_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.runLibFuzzer(argc, argv) { start, count in fuzzOne(start, count) }
}
#else
@main
enum Replay {
    static func main() {
        FuzzDriver.replay(Array(CommandLine.arguments.dropFirst()), FuzzJSON.check)
    }
}
#endif

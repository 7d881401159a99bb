import Foundation

/// HTTP header fields in arrival order, looked up case-insensitively.
public struct HeaderFields: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in arrival order, names as the sender spelled them; repeated names stay separate.
    public private(set) var fields: [(name: String, value: String)]

    /// Makes fields from name–value pairs, in the order given.
    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// Makes fields from a literal such as `["Content-Type": "application/json"]`, in the order written.
    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// Takes `fields` as they are (no copy into a new array, as `init(_:)` makes).
    public init(fields: [(name: String, value: String)]) { self.fields = fields }

    /// The first value of the field called `name` (any case), nil when there is none.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of the fields called `name` (any case), in arrival order; empty when there is none.
    public func values(_ name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// Whether a field called `name` (any case) is present.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Appends a field, keeping any others of the same name (for `Set-Cookie` and the like).
    public mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }

    /// Replaces every field called `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// Removes every field called `name` (any case).
    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// Whether both lists are one array in memory (so their fields are the same). Cheap:
    /// the transport keeps the encoding of the last list it wrote.
    package func sharesStorage(with other: HeaderFields) -> Bool {
        fields.withUnsafeBufferPointer { mine in
            other.fields.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress && mine.count == theirs.count }
        }
    }

    /// Iterates the fields in arrival order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// Equal when the same fields come in the same order: names compare case-insensitively, values exactly.
    public static func == (lhs: HeaderFields, rhs: HeaderFields) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name.caseInsensitiveEquals($1.name) && $0.value == $1.value }
    }
}

extension HeaderFields {
    /// Why `name: value` cannot go on the wire as written, or nil when it can. Names are
    /// RFC 9110 tokens; values may not hold CR, LF or NUL (they would end the header early
    /// and let the rest pose as headers or a body).
    public static func problem(name: String, value: String) -> String? {
        if name.isEmpty { return "a header name cannot be empty" }
        if let bad = name.utf8.first(where: { !isTokenByte($0) }) {
            return "the header name \"\(name)\" holds \(describe(bad)), which a header name cannot hold"
        }
        if let bad = value.utf8.first(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
            return "the value of \(name) holds \(describe(bad)), which would break the response's head"
        }
        return nil
    }

    /// Whether every field can be written as is (the transport's last check before the wire).
    /// Runs per response, so it scans contiguous UTF-8 rather than walking `String` views.
    public var areWritable: Bool {
        for field in fields {
            var name = field.name, value = field.value
            let nameOK = name.withUTF8 { bytes in !bytes.isEmpty && bytes.allSatisfy(Self.isTokenByte) }
            let valueOK = value.withUTF8 { bytes in
                for byte in bytes where byte < 0x20 && (byte == 0x0D || byte == 0x0A || byte == 0x00) { return false }
                return true
            }
            guard nameOK && valueOK else { return false }
        }
        return true
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        // RFC 9110 tchar: "!#$%&'*+-.^_`|~", written out rather than looked up in a string
        // of them, which would scan it for each such byte (the "-" of most names) on every
        // response.
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"),
             UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "^"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x0D: return "a carriage return"
        case 0x0A: return "a line feed"
        case 0x00: return "a NUL byte"
        case 0x20: return "a space"
        default: return byte < 0x20 || byte >= 0x7F ? String(format: "the byte 0x%02X", byte) : "\"\(Character(UnicodeScalar(byte)))\""
        }
    }
}

extension String {
    /// ASCII-case-insensitive equality, as HTTP compares header names. Runs several times
    /// per request (header lookups), so it compares contiguous UTF-8 where it can rather
    /// than walking two `String.UTF8View`s with `zip`.
    public func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        let contiguous = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in
                for index in 0..<x.count where !Self.asciiCaseInsensitiveEqual(x[index], y[index]) { return false }
                return true
            }
        }
        if let contiguous, let result = contiguous { return result }
        return zip(a, b).allSatisfy(Self.asciiCaseInsensitiveEqual)
    }

    /// Byte-for-byte equality of the UTF-8, without Unicode's canonical equivalence
    /// (`==` takes "\u{212A}", the Kelvin sign, for "K"): for values that must match as
    /// sent, such as a `Host` header.
    package func utf8Equals(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        let contiguous = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in
                x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
            }
        }
        if let contiguous, let result = contiguous { return result }
        return a.elementsEqual(b)
    }

    @inline(__always)
    private static func asciiCaseInsensitiveEqual(_ x: UInt8, _ y: UInt8) -> Bool {
        x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= UInt8(ascii: "a") && (x | 0x20) <= UInt8(ascii: "z"))
    }
}

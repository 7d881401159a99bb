import Foundation

/// A JSON document as a value: used for body matching, scenario files and error bodies.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number; JSON does not tell integers apart, so every number is a `Double`.
    case number(Double)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object; member order is not kept.
    case object([String: JSONValue])

    /// Parses `data` as JSON (strict RFC 8259, any value at the top); nil when it is not JSON.
    public init?(parsing data: Data) {
        guard let value = try? JSONParser.parse(data) else { return nil }
        self = value
    }

    /// The member called `key` when the value is an object; nil when it is not or has no such member.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, nil for any other kind of value.
    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    /// The number, nil for any other kind of value.
    public var doubleValue: Double? { if case .number(let n) = self { return n }; return nil }
    /// The Boolean, nil for any other kind of value (`null` is not `false`).
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    /// The elements, nil for any other kind of value.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    /// The members, nil for any other kind of value.
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }

    /// The value as an exact integer, nil for fractions and non-numbers.
    public var intValue: Int? {
        guard case .number(let n) = self, n.rounded() == n, abs(n) < 9.0e15 else { return nil }
        return Int(n)
    }

    /// A name for the JSON type, for error messages ("expected an integer, found a string").
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Whether `self` contains `expected`: equal scalars, objects with at least the
    /// expected members (recursively), arrays of the same length whose elements contain
    /// the expected ones. With `ignoreExtraKeys: false` objects must be equal.
    public func contains(_ expected: JSONValue, ignoreExtraKeys: Bool = true) -> Bool {
        switch (self, expected) {
        case (.object(let actual), .object(let wanted)):
            if !ignoreExtraKeys && actual.count != wanted.count { return false }
            return wanted.allSatisfy { key, value in
                actual[key].map { $0.contains(value, ignoreExtraKeys: ignoreExtraKeys) } ?? false
            }
        case (.array(let actual), .array(let wanted)):
            return actual.count == wanted.count
                && zip(actual, wanted).allSatisfy { $0.contains($1, ignoreExtraKeys: ignoreExtraKeys) }
        default:
            return self == expected
        }
    }
}

extension JSONValue: Codable {
    /// Decodes any JSON value; a number always becomes `.number`, a `Double`.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as JSON; a whole number is written without a fraction (`3`, not `3.0`).
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .number(let n):
            if let i = intValue { try container.encode(i) } else { try container.encode(n) }
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A number value, held as a `Double`.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A number value.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A Boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array value.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object value; when a key repeats, the last value wins.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// The JSON `null`.
    public init(nilLiteral: ()) { self = .null }
}

/// Printed as compact JSON with sorted keys (never as a Swift debug value), so messages
/// that name a pattern or a value read like what the user wrote.
extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text.
    public var description: String {
        String(decoding: JSONCoding.encode(self), as: UTF8.self)
    }
}

extension JSONValue {
    /// Arrays and objects nested deeper than this are refused when parsing (a hostile
    /// body cannot exhaust the stack).
    public static var maximumParsingDepth: Int { JSONParser.maximumDepth }
}

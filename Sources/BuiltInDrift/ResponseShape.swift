import Foundation
import MockCore

/// The structure of a JSON body with its values left out: what drift compares. Keys,
/// types, nullability, number shapes (`1` vs `1.0`, which a JSON value loses, so they are
/// read off the text) and date formats (`2022-01-04T00:00:00.00` → `dddd-dd-ddTdd:dd:dd.dd`).
public indirect enum ResponseShape: Sendable, Equatable, CustomStringConvertible {
    /// An object, with each member's shape.
    case object([String: ResponseShape])
    /// An array, with its elements' shapes.
    case array([ResponseShape])
    /// A string that is no date.
    case string
    /// A date string, with its shape (digits as `d`).
    case date(format: String)
    /// A number written without a fraction.
    case integer
    /// A number written with a fraction.
    case fraction
    /// `true` or `false`.
    case bool
    /// `null`.
    case null

    /// The shape of a JSON body; nil when it is not JSON.
    public init?(json data: Data) {
        guard let marked = Self.markingNumbers(data), let value = JSONValue(parsing: marked) else { return nil }
        self.init(value)
    }

    init(_ value: JSONValue) {
        switch value {
        case .object(let members): self = .object(members.mapValues(ResponseShape.init))
        case .array(let items): self = .array(items.map(ResponseShape.init))
        case .string(let text):
            if text.hasPrefix(Self.integerMark) { self = .integer }
            else if text.hasPrefix(Self.fractionMark) { self = .fraction }
            else if let format = Self.dateFormat(text) { self = .date(format: format) }
            else { self = .string }
        case .number(let number): self = number.rounded() == number ? .integer : .fraction
        case .bool: self = .bool
        case .null: self = .null
        }
    }

    /// The shape for people, such as `an object {id, name}`.
    public var description: String {
        switch self {
        case .object(let members): return "an object {\(members.keys.sorted().joined(separator: ", "))}"
        case .array: return "an array"
        case .string: return "a string"
        case .date(let format): return "a date like \(format)"
        case .integer: return "a whole number (1)"
        case .fraction: return "a number with a fraction (1.0)"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }

    /// A date or time as its digits' layout: `2022-01-04T00:00:00.00` → `dddd-dd-ddTdd:dd:dd.dd`.
    static func dateFormat(_ text: String) -> String? {
        guard text.count >= 10, text.count <= 35,
              text.range(of: #"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$"#, options: .regularExpression) != nil
        else { return nil }
        return String(text.map { $0.isNumber ? "d" : $0 })
    }

    static let integerMark = "\u{1}int:"
    static let fractionMark = "\u{1}frac:"

    /// The JSON text with every number literal turned into a marked string, so the
    /// literal's shape survives parsing.
    static func markingNumbers(_ data: Data) -> Data? {
        let bytes = [UInt8](data)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + bytes.count / 4)
        var index = 0
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                out.append(byte)
                if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                    out.append(bytes[index + 1])
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") { inString = false }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inString = true
                out.append(byte)
                index += 1
            } else if byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39) {
                var end = index + 1
                while end < bytes.count, "0123456789.eE+-".utf8.contains(bytes[end]) { end += 1 }
                let literal = bytes[index..<end]
                let mark = literal.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
                    ? fractionMark : integerMark
                out += Array("\"\\u0001\(mark.dropFirst())".utf8) + literal + [UInt8(ascii: "\"")]
                index = end
            } else {
                out.append(byte)
                index += 1
            }
        }
        return Data(out)
    }
}

/// One way the mock's answer is not shaped like the real server's.
public struct DriftDifference: Sendable, Equatable, CustomStringConvertible {
    /// What differs.
    public enum Kind: String, Sendable {
        /// The status, the `Content-Type`, or a key the mock lacks or adds.
        case status, contentType = "content type", missingKey = "missing key", extraKey = "extra key"
        /// A value's type, a number's shape (`1` or `1.0`), a date's format, whether a value
        /// may be null, or a body only one side could read as JSON.
        case type, numberShape = "number shape", dateFormat = "date format", nullability, body
    }

    /// The probe, e.g. `GET /api/products?page_no=1&items_per_page=10`.
    public let probe: String
    /// Where in the body (`$.pages[].price`), or `status` / `Content-Type`.
    public let path: String
    /// What differs.
    public let kind: Kind
    /// The upstream's side, as a shape, status or value.
    public let upstream: String
    /// The mock's side, as a shape, status or value.
    public let mock: String

    /// `PROBE PATH: KIND — upstream …, mock …`.
    public var description: String { "\(probe) \(path): \(kind.rawValue) — upstream \(upstream), mock \(mock)" }
}

extension ResponseShape {
    /// Where `mock` differs from `upstream` (the real server's); arrays are compared
    /// item by item over the first 20, and a path is reported once (`[]` for any index).
    public static func differences(upstream: ResponseShape, mock: ResponseShape, probe: String, at path: String = "$") -> [DriftDifference] {
        var found: [DriftDifference] = []
        func add(_ kind: DriftDifference.Kind, _ path: String, _ a: String, _ b: String) {
            let difference = DriftDifference(probe: probe, path: path, kind: kind, upstream: a, mock: b)
            if !found.contains(difference) { found.append(difference) }
        }
        switch (upstream, mock) {
        case (.object(let a), .object(let b)):
            for key in a.keys.sorted() where b[key] == nil { add(.missingKey, "\(path).\(key)", "sends it (\(a[key]!))", "does not") }
            for key in b.keys.sorted() where a[key] == nil { add(.extraKey, "\(path).\(key)", "does not send it", "sends it (\(b[key]!))") }
            for key in a.keys.sorted() {
                guard let x = a[key], let y = b[key] else { continue }
                for difference in differences(upstream: x, mock: y, probe: probe, at: "\(path).\(key)") where !found.contains(difference) {
                    found.append(difference)
                }
            }
        case (.array(let a), .array(let b)):
            for (x, y) in zip(a.prefix(20), b.prefix(20)) {
                for difference in differences(upstream: x, mock: y, probe: probe, at: "\(path)[]") where !found.contains(difference) {
                    found.append(difference)
                }
            }
        case (.integer, .fraction), (.fraction, .integer):
            add(.numberShape, path, upstream.description, mock.description)
        case (.date(let a), .date(let b)) where a != b:
            add(.dateFormat, path, a, b)
        case (.date, .string), (.string, .date):
            add(.dateFormat, path, upstream.description, mock.description)
        case (.null, _), (_, .null):
            if upstream != mock { add(.nullability, path, upstream.description, mock.description) }
        default:
            if !upstream.sameKind(as: mock) { add(.type, path, upstream.description, mock.description) }
        }
        return found
    }

    func sameKind(as other: ResponseShape) -> Bool {
        switch (self, other) {
        case (.object, .object), (.array, .array), (.string, .string), (.date, .date), (.integer, .integer),
             (.fraction, .fraction), (.bool, .bool), (.null, .null): return true
        default: return false
        }
    }
}

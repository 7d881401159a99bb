import Foundation
import MockCore
import Yams

/// A document file's text as a JSON value: JSON read by the package's own strict parser,
/// anything else as YAML (a superset of JSON) through Yams.
enum DocumentText {
    /// The most values (scalars, arrays, objects) one file may expand to: YAML aliases can
    /// make a small file stand for an enormous tree.
    static let maximumNodes = 2_000_000

    /// The file at `url` as a JSON value; a problem names the file and, for YAML, the line.
    static func read(_ url: URL) throws(FixtureError) -> JSONValue {
        try read(FixtureFile.read(url), url: url)
    }

    /// `data`, the contents of the file at `url`, as a JSON value.
    static func read(_ data: Data, url: URL) throws(FixtureError) -> JSONValue {
        if url.pathExtension.lowercased() == "json" || startsLikeJSON(data) {
            do {
                return try JSONValue.parse(data)
            } catch {
                throw FixtureError(file: url.path, jsonPath: "", reason: "not valid JSON: \(error)")
            }
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw FixtureError(file: url.path, jsonPath: "", reason: "not UTF-8 text")
        }
        let node: Node?
        do {
            node = try Yams.compose(yaml: text, .basic, .default, .utf8)
        } catch {
            throw FixtureError(file: url.path, jsonPath: "", reason: "not valid YAML: \(describe(error))")
        }
        guard let node else { throw FixtureError(file: url.path, jsonPath: "", reason: "the file is empty") }
        var budget = maximumNodes
        guard let value = json(node, budget: &budget) else {
            throw FixtureError(file: url.path, jsonPath: "", reason: "the YAML expands to more than \(maximumNodes) values (aliases)")
        }
        return value
    }

    private static func startsLikeJSON(_ data: Data) -> Bool {
        for byte in data.prefix(4_096) {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF: continue
            default: return byte == UInt8(ascii: "{")
            }
        }
        return false
    }

    /// A YAML node as JSON: scalars by their tag (a plain scalar's read as YAML 1.1's core
    /// schema reads it, as Yams and PyYAML do; a timestamp or binary stays its text), mapping
    /// keys as text, `<<` merge keys merged. Nil past the node budget.
    private static func json(_ node: Node, budget: inout Int) -> JSONValue? {
        budget -= 1
        guard budget >= 0 else { return nil }
        switch node {
        case .scalar(let scalar):
            // The tag as written: empty for a plain scalar, `str` for a quoted one. Reading it
            // this way resolves no regular expression per scalar.
            let tag = scalar.tag.description
            if tag.isEmpty { return scalar.style == .plain ? plain(scalar.string) : .string(scalar.string) }
            switch tag {
            case Tag.Name.str.rawValue: return .string(scalar.string)
            case Tag.Name.null.rawValue: return .null
            case Tag.Name.bool.rawValue, Tag.Name.int.rawValue, Tag.Name.float.rawValue:
                let value = plain(scalar.string)
                return value == .null ? .string(scalar.string) : value
            default: return .string(scalar.string)
            }
        case .sequence(let sequence):
            var items: [JSONValue] = []
            items.reserveCapacity(sequence.count)
            for item in sequence {
                guard let value = json(item, budget: &budget) else { return nil }
                items.append(value)
            }
            return .array(items)
        case .mapping(let mapping):
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(mapping.count)
            var merged: [String: JSONValue] = [:]
            for (key, value) in mapping {
                guard let converted = json(value, budget: &budget) else { return nil }
                let name = key.scalar?.string ?? "\(key)"
                if name == "<<", key.scalar?.style == .plain, case .object(let inherited) = converted {
                    merged.merge(inherited) { current, _ in current }
                } else if name == "<<", key.scalar?.style == .plain, case .array(let parents) = converted {
                    for case .object(let inherited) in parents { merged.merge(inherited) { current, _ in current } }
                } else {
                    members[name] = converted
                }
            }
            members.merge(merged) { own, _ in own }
            return .object(members)
        case .alias:
            return .null
        }
    }

    /// A plain scalar as YAML 1.1's core schema reads it: null, a boolean (`yes`, `off`), an
    /// integer (decimal, `0x`, `0o`, `0b`, with `_`), a float (`.inf`, `.nan` stay text: JSON
    /// has no such numbers), else the text.
    static func plain(_ text: String) -> JSONValue {
        let utf8 = text.utf8
        guard let first = utf8.first else { return .null }
        switch first {
        case UInt8(ascii: "~"):
            return utf8.count == 1 ? .null : .string(text)
        case UInt8(ascii: "n"), UInt8(ascii: "N"):
            switch text {
            case "null", "Null", "NULL": return .null
            case "no", "No", "NO": return .bool(false)
            default: return .string(text)
            }
        case UInt8(ascii: "t"), UInt8(ascii: "T"):
            return text == "true" || text == "True" || text == "TRUE" ? .bool(true) : .string(text)
        case UInt8(ascii: "f"), UInt8(ascii: "F"):
            return text == "false" || text == "False" || text == "FALSE" ? .bool(false) : .string(text)
        case UInt8(ascii: "y"), UInt8(ascii: "Y"):
            return text == "yes" || text == "Yes" || text == "YES" ? .bool(true) : .string(text)
        case UInt8(ascii: "o"), UInt8(ascii: "O"):
            switch text {
            case "on", "On", "ON": return .bool(true)
            case "off", "Off", "OFF": return .bool(false)
            default: return .string(text)
            }
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."):
            return number(text) ?? .string(text)
        default:
            return .string(text)
        }
    }

    /// A YAML 1.1 integer or float, or nil.
    private static func number(_ text: String) -> JSONValue? {
        var body = Substring(text)
        var negative = false
        if body.first == "-" || body.first == "+" {
            negative = body.first == "-"
            body = body.dropFirst()
        }
        guard !body.isEmpty else { return nil }
        let digits = body.contains("_") ? Substring(body.replacingOccurrences(of: "_", with: "")) : body
        func signed(_ value: Double) -> JSONValue { .number(negative ? -value : value) }
        if digits.hasPrefix("0x") {
            return UInt64(digits.dropFirst(2), radix: 16).map { signed(Double($0)) }
        }
        if digits.hasPrefix("0b") {
            return UInt64(digits.dropFirst(2), radix: 2).map { signed(Double($0)) }
        }
        if digits.hasPrefix("0o") {
            return UInt64(digits.dropFirst(2), radix: 8).map { signed(Double($0)) }
        }
        if digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            if digits.count > 1, digits.first == "0" {
                return UInt64(digits.dropFirst(), radix: 8).map { signed(Double($0)) }   // 1.1's octal
            }
            if let exact = Int64(digits) { return .number(Double(negative ? -exact : exact)) }
            // Past a 64-bit integer: as JSON reads the same digits.
            return JSONValue(parsing: Data(((negative ? "-" : "") + digits).utf8))
        }
        // A float: digits, an optional fraction, an optional exponent (`.5`, `1.`, `1e3`).
        var sawDigit = false
        var index = digits.startIndex
        while index < digits.endIndex, digits[index].isASCII, digits[index].isNumber { sawDigit = true; index = digits.index(after: index) }
        if index < digits.endIndex, digits[index] == "." {
            index = digits.index(after: index)
            while index < digits.endIndex, digits[index].isASCII, digits[index].isNumber { sawDigit = true; index = digits.index(after: index) }
        }
        guard sawDigit else { return nil }
        if index < digits.endIndex, digits[index] == "e" || digits[index] == "E" {
            index = digits.index(after: index)
            if index < digits.endIndex, digits[index] == "-" || digits[index] == "+" { index = digits.index(after: index) }
            guard index < digits.endIndex else { return nil }
            while index < digits.endIndex, digits[index].isASCII, digits[index].isNumber { index = digits.index(after: index) }
        }
        guard index == digits.endIndex, let value = Double(digits), value.isFinite else { return nil }
        return signed(value)
    }

    static func describe(_ error: any Error) -> String {
        guard let yaml = error as? YamlError else { return "\(error)" }
        switch yaml {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            return "\(problem) at line \(mark.line), column \(mark.column)"
        default:
            return "\(yaml)".split(separator: "\n").first.map(String.init) ?? "\(yaml)"
        }
    }
}

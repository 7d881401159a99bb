import Foundation
import MockCore

/// Makes a value valid against a JSON Schema of an OpenAPI 3.1 document, drawing every
/// choice from a seeded generator: the same seed and schema give the same value.
///
/// A schema's own `example` (or first `examples` entry) is used where it is valid;
/// otherwise the value is built from `type`, `format` (date-time, date, time, uuid,
/// email, uri, hostname, ipv4, ipv6, byte), `enum`/`const`, `minimum`/`maximum` and their
/// exclusive forms, `multipleOf`, `minLength`/`maxLength`, `pattern` (common regular
/// expression syntax), `required` and `properties`, `additionalProperties`, `items`,
/// `minItems`/`maxItems`, `uniqueItems`, `allOf` (merged), `oneOf`/`anyOf` (one branch),
/// `$ref`, and nullable types (never null unless only null fits). Read-only properties
/// are left out of request bodies, write-only ones out of responses.
struct SchemaSampler {
    enum Direction { case response, request }

    let validator: SchemaValidator
    let direction: Direction
    /// How deep objects and arrays nest before optional parts are left out.
    static let depthLimit = 6

    init(document: JSONValue, direction: Direction = .response) {
        validator = SchemaValidator(document: document)
        self.direction = direction
    }

    func sample(_ schema: JSONValue, using random: inout SeededRandom) -> JSONValue {
        sample(schema, depth: 0, using: &random)
    }

    private func sample(_ given: JSONValue, depth: Int, using random: inout SeededRandom) -> JSONValue {
        let schema = flattened(given, depth: depth)
        guard case .object(let keywords) = schema else { return given == .bool(false) ? .null : [:] }
        if let example = ownExample(keywords), validator.conforms(example, to: schema) { return example }
        if let constant = keywords["const"] { return constant }
        if let options = keywords["enum"]?.arrayValue, !options.isEmpty {
            let valid = options.filter { $0 != .null } .isEmpty ? options : options.filter { $0 != .null }
            return valid[Int(random.next() % UInt64(valid.count))]
        }
        if let branches = (keywords["oneOf"] ?? keywords["anyOf"])?.arrayValue, !branches.isEmpty {
            // A branch that is more than `null`, the first that yields a valid value.
            let candidates = branches.filter { validator.resolved($0)["type"] != .string("null") }
            for branch in candidates.isEmpty ? branches : candidates {
                var merged = keywords
                merged["oneOf"] = nil
                merged["anyOf"] = nil
                let combined = merge(.object(merged), flattened(branch, depth: depth + 1))
                var attempt = random
                let value = sample(combined, depth: depth + 1, using: &attempt)
                if validator.conforms(value, to: schema) || branch == candidates.last {
                    random = attempt
                    return value
                }
            }
        }
        switch type(of: keywords) {
        case "object": return object(keywords, depth: depth, using: &random)
        case "array": return array(keywords, depth: depth, using: &random)
        case "integer": return .number(Double(integer(keywords, using: &random)))
        case "number": return .number(number(keywords, using: &random))
        case "boolean": return .bool(random.next() & 1 == 0)
        case "null": return .null
        default: return .string(string(keywords, using: &random))
        }
    }

    /// The schema's `$ref` followed and `allOf` merged into one set of keywords.
    private func flattened(_ schema: JSONValue, depth: Int) -> JSONValue {
        var current = validator.resolved(schema)
        guard depth < 32, case .object(var keywords) = current else { return current }
        if let parts = keywords["allOf"]?.arrayValue {
            keywords["allOf"] = nil
            current = .object(keywords)
            for part in parts { current = merge(current, flattened(part, depth: depth + 1)) }
        }
        return current
    }

    /// Both schemas' keywords: properties and required names united, bounds the tighter.
    private func merge(_ first: JSONValue, _ second: JSONValue) -> JSONValue {
        guard case .object(var merged) = first, case .object(let other) = second else { return first }
        for (key, value) in other {
            switch key {
            case "properties":
                var properties = merged["properties"]?.objectValue ?? [:]
                for (name, property) in value.objectValue ?? [:] {
                    properties[name] = properties[name].map { merge(validator.resolved($0), validator.resolved(property)) } ?? property
                }
                merged["properties"] = .object(properties)
            case "required":
                let names = (merged["required"]?.arrayValue ?? []) + (value.arrayValue ?? [])
                var seen = Set<JSONValue>()
                merged["required"] = .array(names.filter { seen.insert($0).inserted })
            case "minimum", "minLength", "minItems", "exclusiveMinimum", "minProperties":
                merged[key] = max(merged[key]?.doubleValue ?? -.infinity, value.doubleValue ?? -.infinity).jsonNumber
            case "maximum", "maxLength", "maxItems", "exclusiveMaximum", "maxProperties":
                merged[key] = min(merged[key]?.doubleValue ?? .infinity, value.doubleValue ?? .infinity).jsonNumber
            case "type":
                if let existing = merged["type"] {
                    let common = SchemaValidator.typeNames(existing).filter { SchemaValidator.typeNames(value).contains($0) }
                    merged["type"] = common.count == 1 ? .string(common[0]) : .array(common.map(JSONValue.string))
                } else {
                    merged["type"] = value
                }
            default:
                if merged[key] == nil { merged[key] = value }
            }
        }
        return .object(merged)
    }

    private func ownExample(_ keywords: [String: JSONValue]) -> JSONValue? {
        if let example = keywords["example"] { return example }
        return keywords["examples"]?.arrayValue?.first
    }

    /// The type to make: the schema's (the first that is not null), or one its keywords imply.
    private func type(of keywords: [String: JSONValue]) -> String {
        let names = keywords["type"].map(SchemaValidator.typeNames) ?? []
        if let first = names.first(where: { $0 != "null" }) { return first }
        if names == ["null"] { return "null" }
        if keywords["properties"] != nil || keywords["additionalProperties"] != nil || keywords["required"] != nil { return "object" }
        if keywords["items"] != nil { return "array" }
        if keywords["minimum"] != nil || keywords["maximum"] != nil { return "number" }
        return "string"
    }

    // MARK: Objects and arrays

    private func object(_ keywords: [String: JSONValue], depth: Int, using random: inout SeededRandom) -> JSONValue {
        let properties = keywords["properties"]?.objectValue ?? [:]
        let required = Set(keywords["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        var members: [String: JSONValue] = [:]
        for (name, property) in properties.sorted(by: { $0.key < $1.key }) {
            let resolved = validator.resolved(property)
            if !required.contains(name) {
                if depth >= Self.depthLimit { continue }
                if direction == .response, resolved["writeOnly"] == .bool(true) { continue }
                if direction == .request, resolved["readOnly"] == .bool(true) { continue }
            }
            members[name] = sample(property, depth: depth + 1, using: &random)
        }
        for name in required where members[name] == nil {
            // Required but not described: any value, given by additionalProperties when it says.
            members[name] = sample(keywords["additionalProperties"]?.objectValue.map(JSONValue.object) ?? [:], depth: depth + 1, using: &random)
        }
        // Sizes a document asks for past any useful value are held to a few thousand.
        let least = min(keywords["minProperties"]?.intValue ?? 0, 1_000)
        if members.count < least, case .object(let extra)? = keywords["additionalProperties"] ?? .object([:]) {
            var index = 1
            while members.count < least {
                members["property\(index)"] = sample(.object(extra), depth: depth + 1, using: &random)
                index += 1
            }
        }
        return .object(members)
    }

    private func array(_ keywords: [String: JSONValue], depth: Int, using random: inout SeededRandom) -> JSONValue {
        let least = keywords["minItems"]?.intValue ?? 0
        let most = keywords["maxItems"]?.intValue ?? Int.max
        var count = depth >= Self.depthLimit ? least : max(least, min(most, 1 + Int(random.next() % 2)))
        count = min(count, 64)
        let itemSchema = keywords["items"] ?? [:]
        var items: [JSONValue] = []
        var attempts = 0
        while items.count < count && attempts < count * 8 + 8 {
            attempts += 1
            let item = sample(itemSchema, depth: depth + 1, using: &random)
            if keywords["uniqueItems"] == .bool(true), items.contains(item) { continue }
            items.append(item)
        }
        return .array(items)
    }

    // MARK: Numbers

    /// `value` rounded as `rule` says, held within ±2^62 (a bound a document writes past a
    /// 64-bit integer is no crash).
    private static func whole(_ value: Double, _ rule: FloatingPointRoundingRule) -> Int {
        let limit = 4_611_686_018_427_387_904.0
        guard value.isFinite else { return value < 0 ? -Int(limit) : Int(limit) }
        return Int(min(max(value.rounded(rule), -limit), limit))
    }

    private func integer(_ keywords: [String: JSONValue], using random: inout SeededRandom) -> Int {
        var low = keywords["minimum"]?.doubleValue.map { Self.whole($0, .up) } ?? 1
        var high = keywords["maximum"]?.doubleValue.map { Self.whole($0, .down) } ?? max(low, 0) + 1_000
        if let exclusive = keywords["exclusiveMinimum"]?.doubleValue { low = max(low, Self.whole(exclusive, .down) + 1) }
        if let exclusive = keywords["exclusiveMaximum"]?.doubleValue { high = min(high, Self.whole(exclusive, .up) - 1) }
        if keywords["maximum"] == nil, keywords["minimum"] == nil, keywords["exclusiveMaximum"] == nil { low = max(low, 1) }
        if high < low { high = low }
        let step = max(1, keywords["multipleOf"]?.intValue ?? 1)
        let first = Self.whole(Double(low) / Double(step), .up).multipliedReportingOverflow(by: step)
        guard !first.overflow else { return low }
        let (difference, wide) = high.subtractingReportingOverflow(first.partialValue)
        let span = wide ? 1_000_000 : max(0, difference / step)
        let (offset, over) = step.multipliedReportingOverflow(by: Int(random.next() % UInt64(min(span, 1_000_000) + 1)))
        return over ? first.partialValue : first.partialValue &+ offset
    }

    private func number(_ keywords: [String: JSONValue], using random: inout SeededRandom) -> Double {
        if let step = keywords["multipleOf"]?.doubleValue, step > 0 {
            var copy = keywords
            copy["multipleOf"] = nil
            let low = (keywords["minimum"]?.doubleValue ?? keywords["exclusiveMinimum"]?.doubleValue.map { $0 + step } ?? 0) / step
            let high = (keywords["maximum"]?.doubleValue ?? keywords["exclusiveMaximum"]?.doubleValue.map { $0 - step } ?? low * step + 100 * step) / step
            let first = low.rounded(.up), last = max(first, high.rounded(.down))
            return (first + Double(random.next() % UInt64(min(last - first, 1_000_000) + 1))) * step
        }
        var low = keywords["minimum"]?.doubleValue ?? keywords["exclusiveMinimum"]?.doubleValue ?? 0
        var high = keywords["maximum"]?.doubleValue ?? keywords["exclusiveMaximum"]?.doubleValue ?? low + 1_000
        if high < low { high = low }
        if keywords["exclusiveMinimum"] != nil || keywords["exclusiveMaximum"] != nil {
            let margin = (high - low) / 4
            low += margin
            high -= margin
        }
        let value = low + (high - low) * random.nextUnit()
        return (value * 100).rounded() / 100 >= low && (value * 100).rounded() / 100 <= high ? (value * 100).rounded() / 100 : value
    }

    // MARK: Strings

    private func string(_ keywords: [String: JSONValue], using random: inout SeededRandom) -> String {
        let least = min(keywords["minLength"]?.intValue ?? 0, 10_000)
        let most = keywords["maxLength"]?.intValue ?? Int.max
        if let pattern = keywords["pattern"]?.stringValue, let made = PatternSampler.sample(pattern, using: &random),
           made.count >= least, made.count <= most {
            return made
        }
        let formatted = Self.formatted(keywords["format"]?.stringValue, using: &random)
        var text = formatted ?? Self.words(using: &random)
        if formatted == nil || text.count < least || text.count > most {
            if text.count > most { text = String(text.prefix(most)) }
            while text.count < least { text += Self.letters[Int(random.next() % UInt64(Self.letters.count))] }
        }
        return text
    }

    private static let letters = "abcdefghijklmnopqrstuvwxyz".map(String.init)
    private static let vocabulary = ["alpha", "bravo", "delta", "echo", "lima", "nova", "orbit", "pixel", "quartz", "sierra", "tango", "zephyr"]

    private static func words(using random: inout SeededRandom) -> String {
        vocabulary[Int(random.next() % UInt64(vocabulary.count))] + "-" + String(random.next() % 1_000)
    }

    /// A value of a string format; nil for a format it does not know.
    static func formatted(_ format: String?, using random: inout SeededRandom) -> String? {
        switch format {
        case "date-time":
            return CivilDate.random(using: &random) + "T" + String(format: "%02d:%02d:%02dZ", Int(random.next() % 24), Int(random.next() % 60), Int(random.next() % 60))
        case "date": return CivilDate.random(using: &random)
        case "time": return String(format: "%02d:%02d:%02dZ", Int(random.next() % 24), Int(random.next() % 60), Int(random.next() % 60))
        case "uuid": return uuid(using: &random)
        case "email": return words(using: &random).replacingOccurrences(of: "-", with: ".") + "@example.com"
        case "uri", "url", "uri-reference", "iri": return "https://example.com/" + words(using: &random)
        case "hostname": return words(using: &random) + ".example.com"
        case "ipv4": return (0..<4).map { _ in String(random.next() % 256) }.joined(separator: ".")
        case "ipv6": return (0..<8).map { _ in String(random.next() % 65_536, radix: 16) }.joined(separator: ":")
        case "byte": return Data(words(using: &random).utf8).base64EncodedString()
        case "password": return "secret-" + String(random.next() % 10_000)
        default: return nil
        }
    }

    /// A version 4 UUID from the generator.
    static func uuid(using random: inout SeededRandom) -> String {
        let high = random.next(), low = random.next()
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: high >> (8 * $0)) } + (0..<8).map { UInt8(truncatingIfNeeded: low >> (8 * $0)) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}

private enum CivilDate {
    static func random(using random: inout SeededRandom) -> String {
        String(format: "%04d-%02d-%02d", 2020 + Int(random.next() % 6), 1 + Int(random.next() % 12), 1 + Int(random.next() % 28))
    }
}

private extension Double {
    var jsonNumber: JSONValue? { isFinite ? .number(self) : nil }
}

import Foundation
import Scenarios
import Yams

/// A document file's text as a JSON value: JSON read by the package's own strict parser,
/// anything else as YAML (a superset of JSON) through Yams.
enum DocumentText {
    /// The most values (scalars, arrays, objects) one file may expand to: YAML aliases can
    /// make a small file stand for an enormous tree.
    static let maximumNodes = 2_000_000

    /// The file at `url` as a JSON value; a problem names the file and, for YAML, the line.
    static func read(_ url: URL) throws(FixtureError) -> JSONValue {
        let data = try FixtureFile.read(url)
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
            node = try Yams.compose(yaml: text)
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

    /// A YAML node as JSON: scalars by their resolved tag (a timestamp or binary stays its
    /// text), mapping keys as text, `<<` merge keys merged. Nil past the node budget.
    private static func json(_ node: Node, budget: inout Int) -> JSONValue? {
        budget -= 1
        guard budget >= 0 else { return nil }
        switch node {
        case .scalar(let scalar):
            switch Tag.Name(rawValue: node.tag.rawValue) {
            case .null: return .null
            case .bool: return node.bool.map(JSONValue.bool) ?? .string(scalar.string)
            case .int:
                if let integer = node.int { return .number(Double(integer)) }
                return node.float.map(JSONValue.number) ?? .string(scalar.string)
            case .float:
                guard let number = node.float, number.isFinite else { return .string(scalar.string) }
                return .number(number)
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
            var merged: [String: JSONValue] = [:]
            for (key, value) in mapping {
                guard let converted = json(value, budget: &budget) else { return nil }
                let name = key.scalar?.string ?? "\(key)"
                if key.tag.rawValue == Tag.Name.merge.rawValue || name == "<<", case .object(let inherited) = converted {
                    merged.merge(inherited) { current, _ in current }
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

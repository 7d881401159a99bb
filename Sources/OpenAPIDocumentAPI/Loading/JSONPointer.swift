import Foundation
import MockCore

/// RFC 6901 JSON pointers over JSON values.
enum JSONPointer {
    /// `key` as a pointer's token: `~` written `~0`, `/` written `~1`. (Every path of a
    /// document has a `/`: this runs for each of them, so it scans bytes rather than
    /// calling Foundation's string search.)
    static func escape(_ key: String) -> String {
        guard key.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return key }
        var escaped = ""
        escaped.reserveCapacity(key.utf8.count + 4)
        for scalar in key.unicodeScalars {
            switch scalar {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    static func unescape(_ token: Substring) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "~") }) else { return String(token) }
        let text = String(token).removingPercentEncoding ?? String(token)
        return text.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }

    /// The value at `pointer` ("" or "/a/0/b") in `value`.
    static func resolve(_ pointer: String, in value: JSONValue) -> JSONValue? {
        var current = value
        for token in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let key = unescape(token)
            switch current {
            case .object(let members):
                guard let next = members[key] else { return nil }
                current = next
            case .array(let items):
                guard let index = Int(key), items.indices.contains(index) else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }

    /// A coding path as a pointer: `/paths/~1pets/get`.
    static func pointer(_ codingPath: [any CodingKey]) -> String {
        codingPath.map { "/" + escape($0.intValue.map(String.init) ?? $0.stringValue) }.joined()
    }

    /// Keys as a pointer.
    static func pointer(_ keys: [String]) -> String {
        keys.map { "/" + escape($0) }.joined()
    }
}

import Foundation

/// Where a value sits in a JSON document: a JSONPath of keys and indices (`$.a.b[0]`,
/// `$['c d']`, as WireMock's `matchesJsonPath` and templates' `jsonPath` write it) or a
/// JSON Pointer (RFC 6901: `/a/b/0`, `~1` for `/` and `~0` for `~`).
public struct JSONLocation: Sendable, Hashable, CustomStringConvertible {
    enum Step: Sendable, Hashable {
        case key(String)
        case index(Int)
        /// A pointer's token: an index into an array, a key into an object.
        case token(String)
    }

    let steps: [Step]
    /// The location as written.
    public let expression: String

    /// A JSONPath from `$` of keys (`.a`, `['a b']`) and indices (`[0]`); nil for any other.
    public init?(path: String) {
        guard let steps = ResponseTemplate.jsonPathSteps(path) else { return nil }
        self.steps = steps.map { step in
            switch step {
            case .key(let key): return .key(key)
            case .index(let index): return .index(index)
            }
        }
        expression = path
    }

    /// A JSON Pointer: empty for the whole document, else tokens each after a `/`.
    public init?(pointer: String) {
        guard pointer.isEmpty || pointer.hasPrefix("/") else { return nil }
        steps = pointer.isEmpty ? [] : pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { token in
            .token(token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~"))
        }
        expression = pointer
    }

    /// The value at this location in `document`, nil when there is none.
    public func value(in document: JSONValue) -> JSONValue? {
        var value: JSONValue? = document
        for step in steps {
            guard let current = value else { return nil }
            switch step {
            case .key(let key):
                value = current[key]
            case .index(let index):
                let array = current.arrayValue ?? []
                // `.none`, not `nil`: JSONValue takes a nil literal as `.null`.
                value = array.indices.contains(index) ? .some(array[index]) : .none
            case .token(let token):
                if case .array(let array) = current {
                    guard let index = Int(token), String(index) == token, array.indices.contains(index) else { return nil }
                    value = array[index]
                } else {
                    value = current[token]
                }
            }
        }
        return value
    }

    /// The text a string matcher sees of `value`: a string as it is, anything else as JSON.
    static func text(of value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return String(decoding: JSONCoding.encode(value), as: UTF8.self)
    }

    /// The location as written (`$.items[0].id` or `/items/0/id`).
    public var description: String { expression }
}

import Foundation

/// Where a document stops being JSON, and why: for messages that point at the place
/// (`not valid JSON: unexpected character at line 3, column 7`).
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Bytes from the start of the document.
    public let offset: Int
    /// From 1, counted in lines (LF) and bytes within the line.
    public let line: Int
    /// From 1, in bytes within the line (see `line`).
    public let column: Int
    /// What the parser expected or found, such as `unexpected character`.
    public let reason: String

    /// `<reason> at line <line>, column <column>`, ready for a message to a user.
    public var description: String { "\(reason) at line \(line), column \(column)" }
}

extension JSONValue {
    /// Parses `data` as JSON (strict RFC 8259, any value at the top), saying where and why
    /// it is not JSON when it is not. `init?(parsing:)` is the same parser without the why.
    public static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
        do {
            return try JSONParser.parse(data)
        } catch {
            let before = data.prefix(min(error.offset, data.count))
            let line = before.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            let column = before.count - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 - before.startIndex + 1 } ?? 0) + 1
            throw JSONSyntaxError(offset: error.offset, line: line, column: column, reason: error.reason)
        }
    }
}

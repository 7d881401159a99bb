import Foundation
import MockCore

/// What a request's `Prefer` header asks of a document API, as Prism reads it:
/// `Prefer: code=404`, `Prefer: example=NAME`, `Prefer: dynamic=true`, or several of
/// them separated by commas or semicolons. A value may be a quoted-string (RFC 7240's
/// `word`), which can hold commas, semicolons, spaces, and `\"` or `\\` escaped:
/// `Prefer: code=200, example="two, sorted; by name"`.
struct Prefer: Sendable, Equatable {
    var code: Int?
    var example: String?
    var dynamic = false

    init(_ request: MockRequest) {
        for value in request.headers.values("Prefer") {
            for (name, text) in Self.preferences(in: value) {
                switch name.lowercased() {
                case "code": code = Int(text)
                case "example": example = text
                case "dynamic": dynamic = text.lowercased() == "true"
                default: continue
                }
            }
        }
    }

    /// Whether the request names a response or an example (the stored state then stays out of it).
    var choosesAnswer: Bool { code != nil || example != nil }

    /// The `name=value` pairs of one `Prefer` value, in order: split at each comma or
    /// semicolon outside a quoted-string, a quoted value unquoted and unescaped, an
    /// unquoted one trimmed. A part without `=` is left out.
    static func preferences(in value: String) -> [(name: String, value: String)] {
        var found: [(name: String, value: String)] = []
        var name = ""
        var text = ""
        var inValue = false
        var quoted = false
        var inQuotes = false
        var escaped = false
        func finish() {
            let key = name.trimmingCharacters(in: .whitespaces)
            if inValue, !key.isEmpty { found.append((key, quoted ? text : text.trimmingCharacters(in: .whitespaces))) }
            name = ""; text = ""; inValue = false; quoted = false
        }
        for character in value {
            if inQuotes {
                if escaped {
                    text.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inQuotes = false
                } else {
                    text.append(character)
                }
                continue
            }
            switch character {
            case ",", ";":
                finish()
            case "=" where !inValue:
                inValue = true
            case "\"" where inValue && !quoted && text.allSatisfy(\.isWhitespace):
                text = ""
                quoted = true
                inQuotes = true
            default:
                // Whatever follows a closing quote before the next separator is dropped.
                if quoted { continue }
                if inValue { text.append(character) } else { name.append(character) }
            }
        }
        finish()
        return found
    }

    /// `value` as a `Prefer` value: as it is when it is a token (RFC 9110 `tchar`s), else a
    /// quoted-string with `"` and `\` escaped.
    static func word(_ value: String) -> String {
        let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        if !value.isEmpty, value.allSatisfy(tokenCharacters.contains) { return value }
        return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

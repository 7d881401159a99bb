import Foundation
import MockCore

/// Credentials a capture should not carry into fixtures: the values are replaced by
/// `REDACTED`, in place, and everything around them is kept byte for byte (a JSON body is
/// not re-encoded, so its key order, spacing and number shapes stay the server's).
///
/// What counts as a secret: the headers `Authorization`, `Cookie`, `Set-Cookie`,
/// `Proxy-Authorization` and Open Market's `identifier` (a vendor id), and the values named
/// `identifier`, `secret` or `password` (ASCII case ignored) in JSON bodies (at any depth),
/// in query strings, in form bodies and in multipart parts (Open Market's `params` part is
/// JSON). Paths are kept: Open Market's delete path carries a product's secret, and a replay
/// must match it.
public enum Redaction {
    /// What replaces a secret's value.
    public static let placeholder = "REDACTED"
    /// Header names, lower-cased, with the spelling reports use.
    public static let headerNames: [String: String] = [
        "authorization": "Authorization", "cookie": "Cookie", "set-cookie": "Set-Cookie",
        "proxy-authorization": "Proxy-Authorization", "identifier": "identifier",
    ]
    /// JSON members, query items, form fields and multipart parts, lower-cased.
    public static let valueNames: Set<String> = ["identifier", "secret", "password"]

    static func isSecretValue(_ name: String) -> Bool { valueNames.contains(name.lowercased()) }

    /// `fields` with secret headers' values replaced, and the names of those replaced (in
    /// the spelling of `headerNames`, whatever case the capture used).
    public static func headers(_ fields: HeaderFields) -> (HeaderFields, [String]) {
        var redacted: [String] = []
        let kept = fields.map { field -> (String, String) in
            guard let name = headerNames[field.name.lowercased()] else { return (field.name, field.value) }
            redacted.append(name)
            return (field.name, placeholder)
        }
        return (HeaderFields(kept), redacted)
    }

    /// Query items with secret values replaced, and the names of those replaced.
    public static func query(_ items: [(name: String, value: String)]) -> ([(name: String, value: String)], Set<String>) {
        var names: Set<String> = []
        let kept = items.map { item -> (name: String, value: String) in
            guard isSecretValue(item.name) else { return item }
            names.insert(item.name)
            return (item.name, placeholder)
        }
        return (kept, names)
    }

    /// A request or response body with its secrets replaced, read by its content type:
    /// JSON (whatever the type says, if it parses), a form, or multipart. Returns the body
    /// and the names redacted; nil when the body is multipart that does not parse, so its
    /// secrets cannot be found (the caller drops it).
    public static func body(_ data: Data, contentType: String?) -> (Data, Set<String>)? {
        guard !data.isEmpty else { return (data, []) }
        let type = (contentType ?? "").lowercased()
        if type.hasPrefix("multipart/") { return multipart(data, contentType: contentType) }
        if JSONValue(parsing: data) != nil { return json(data) }
        if type.hasPrefix("application/x-www-form-urlencoded") { return form(data) }
        return (data, [])
    }

    /// A JSON text with the values of secret members (but `null`) replaced; the text must parse.
    public static func json(_ data: Data) -> (Data, Set<String>) {
        var scanner = JSONValueRanges(bytes: [UInt8](data))
        scanner.skipWhitespace()
        scanner.value(recording: true)
        guard !scanner.found.isEmpty else { return (data, []) }
        var bytes = [UInt8](data)
        for range in scanner.found.map(\.range).sorted(by: { $0.lowerBound > $1.lowerBound }) {
            bytes.replaceSubrange(range, with: Array("\"\(placeholder)\"".utf8))
        }
        return (Data(bytes), Set(scanner.found.map(\.name)))
    }

    /// `a=1&password=x` with the secret fields' values replaced.
    static func form(_ data: Data) -> (Data, Set<String>) {
        var names: Set<String> = []
        let pairs = String(decoding: data, as: UTF8.self).split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = (parts.first.map(String.init) ?? "").removingPercentEncoding ?? ""
            guard parts.count == 2, isSecretValue(name) else { return String(pair) }
            names.insert(name)
            return "\(parts[0])=\(placeholder)"
        }
        return names.isEmpty ? (data, []) : (Data(pairs.joined(separator: "&").utf8), names)
    }

    /// Parts named like a secret are replaced whole; JSON parts (Open Market's `params`)
    /// have their secret members replaced. The rest of the body is kept as it was.
    static func multipart(_ data: Data, contentType: String?) -> (Data, Set<String>)? {
        guard let form = try? MultipartForm.parse(data, contentType: contentType) else { return nil }
        var body = data
        var names: Set<String> = []
        var cursor = body.startIndex
        for part in form.parts {
            // Parts come in order, so each one's bytes are found after the previous one's.
            guard !part.body.isEmpty, let range = body.range(of: part.body, in: cursor..<body.endIndex) else { continue }
            var replacement: Data?
            if let name = part.name, isSecretValue(name) {
                replacement = Data(placeholder.utf8)
                names.insert(name)
            } else if JSONValue(parsing: part.body) != nil {
                let (redacted, found) = json(part.body)
                if !found.isEmpty { replacement = redacted }
                names.formUnion(found)
            }
            if let replacement {
                body.replaceSubrange(range, with: replacement)
                cursor = range.lowerBound + replacement.count
            } else {
                cursor = range.upperBound
            }
        }
        return (body, names)
    }
}

/// Finds the byte ranges of secret members' values in a JSON text already known to parse.
private struct JSONValueRanges {
    let bytes: [UInt8]
    var index = 0
    var found: [(name: String, range: Range<Int>)] = []

    init(bytes: [UInt8]) {
        self.bytes = bytes
        // A byte-order mark, which the parser accepts.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    /// Skips one value; inside it, records secret members when `recording`.
    mutating func value(recording: Bool) {
        guard index < bytes.count else { return }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            skipWhitespace()
            while index < bytes.count, bytes[index] != UInt8(ascii: "}") {
                let keyStart = index
                skipString()
                let key = JSONValue(parsing: Data(bytes[keyStart..<index]))?.stringValue ?? ""
                skipWhitespace()
                index += 1   // :
                skipWhitespace()
                let start = index
                let secret = recording && Redaction.isSecretValue(key)
                value(recording: recording && !secret)
                if secret && !bytes[start..<index].elementsEqual("null".utf8) { found.append((key, start..<index)) }
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index += 1; skipWhitespace() }
            }
            index += 1
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            while index < bytes.count, bytes[index] != UInt8(ascii: "]") {
                value(recording: recording)
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index += 1; skipWhitespace() }
            }
            index += 1
        case UInt8(ascii: "\""):
            skipString()
        default:
            // A number or a literal runs to the next delimiter.
            while index < bytes.count, !",]} \t\r\n".utf8.contains(bytes[index]) { index += 1 }
        }
    }

    mutating func skipString() {
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): index += 1; return
            default: index += 1
            }
        }
    }
}

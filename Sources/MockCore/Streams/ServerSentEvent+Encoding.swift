import Foundation

/// Server-sent events on the wire, as the WHATWG HTML standard's "event stream"
/// interpretation reads them: UTF-8 lines ended by LF, `field: value` (one space after the
/// colon, which a parser removes, so a value's own leading spaces survive), a line that
/// starts with a colon is a comment, and an empty line dispatches the event.
extension ServerSentEvent {
    /// The event's bytes: a comment line per line of `comment`, then `id`, `event` and
    /// `retry`, a `data:` line per line of the data, and the empty line that dispatches it.
    public var encoded: Foundation.Data { encoded(id: id) }

    /// The event's bytes with `id` as its ID (an ID a player numbered).
    func encoded(id: String?) -> Foundation.Data {
        var text = ""
        if let comment {
            for line in Self.lines(comment) { text += ": " + line + "\n" }
        }
        if let id { text += "id: " + Self.singleLine(id) + "\n" }
        if let event { text += "event: " + Self.singleLine(event) + "\n" }
        if let retry { text += "retry: " + String(max(0, retry)) + "\n" }
        if let data {
            for line in Self.lines(data.content) { text += "data: " + line + "\n" }
        }
        text += "\n"
        return Foundation.Data(text.utf8)
    }

    /// The event as ``StreamFault/malformed(after:)`` sends it: one `data:` line holding
    /// the first half of the data and then two bytes that are not UTF-8 (0xFF 0xFE), and
    /// the empty line. A client decodes them as U+FFFD and dispatches data that is no
    /// longer what was sent (a JSON event no longer parses).
    func malformed() -> Foundation.Data {
        let text = data?.content ?? ""
        let half = String(text.prefix(text.count / 2)).replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: "")
        var bytes = Foundation.Data("data: \(half)".utf8)
        bytes.append(contentsOf: [0xFF, 0xFE])
        bytes.append(contentsOf: Array("\n\n".utf8))
        return bytes
    }

    /// `text` split at every line end the format knows (CR LF, CR, LF): one field per line.
    /// An empty text is one empty line.
    static func lines(_ text: String) -> [Substring] {
        var lines: [Substring] = []
        var start = text.unicodeScalars.startIndex
        var index = start
        let scalars = text.unicodeScalars
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if scalar == "\n" || scalar == "\r" {
                lines.append(Substring(scalars[start..<index]))
                var next = scalars.index(after: index)
                if scalar == "\r", next < scalars.endIndex, scalars[next] == "\n" { next = scalars.index(after: next) }
                index = next
                start = next
            } else {
                index = scalars.index(after: index)
            }
        }
        lines.append(Substring(scalars[start..<scalars.endIndex]))
        return lines
    }

    /// A field that must stay on one line (`id`, `event`): line breaks and NULs dropped
    /// (files are checked for them when read; a Swift-built event may still hold them).
    static func singleLine(_ text: String) -> String {
        guard fieldProblem(text) != nil else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\n" && $0 != "\r" && $0 != "\u{0}" }))
    }
}

import Foundation

/// The WHATWG HTML standard's event stream interpretation (§9.2.6), written from the
/// standard for the tests: what a conforming client (an `EventSource`) dispatches from
/// the bytes the server sends. Kept apart from the writer so each checks the other.
struct EventStreamParser {
    struct Dispatched: Equatable, CustomStringConvertible {
        var type: String
        var data: String
        var lastEventID: String
        var description: String { "\(type)(\(lastEventID)): \(data.debugDescription)" }
    }

    private(set) var dispatched: [Dispatched] = []
    private(set) var retry: Int?
    private(set) var lastEventID = ""
    private var data = ""
    private var type = ""
    private var lastEventIDBuffer = ""

    /// The events a client dispatches from `bytes`, the whole stream (an event not ended
    /// by an empty line is discarded, as at the end of a stream).
    static func parse(_ bytes: Data) -> EventStreamParser {
        var parser = EventStreamParser()
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var line = ""
        var scalars = text.unicodeScalars.makeIterator()
        var pendingCR = false
        while let scalar = scalars.next() {
            if pendingCR {
                pendingCR = false
                if scalar == "\n" { continue }
            }
            if scalar == "\r" || scalar == "\n" {
                parser.process(line)
                line = ""
                pendingCR = scalar == "\r"
            } else {
                line.unicodeScalars.append(scalar)
            }
        }
        return parser
    }

    private mutating func process(_ line: String) {
        if line.isEmpty { return dispatch() }
        if line.hasPrefix(":") { return }
        var field = line, value = ""
        if let colon = line.firstIndex(of: ":") {
            field = String(line[..<colon])
            value = String(line[line.index(after: colon)...])
            if value.hasPrefix(" ") { value.removeFirst() }
        }
        switch field {
        case "event": type = value
        case "data": data += value + "\n"
        case "id": if !value.unicodeScalars.contains("\u{0}") { lastEventIDBuffer = value }
        case "retry": if !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) { retry = Int(value) }
        default: break
        }
    }

    private mutating func dispatch() {
        lastEventID = lastEventIDBuffer
        guard !data.isEmpty else {
            type = ""
            return
        }
        if data.hasSuffix("\n") { data.removeLast() }
        dispatched.append(Dispatched(type: type.isEmpty ? "message" : type, data: data, lastEventID: lastEventID))
        data = ""
        type = ""
    }
}

import Foundation
import MockCore

/// Why a check failed: what was expected, what the provider did, and what the server saw.
public struct ContractViolation: Error, Sendable, CustomStringConvertible {
    /// What the check expected of the provider, in words.
    public var expected: String
    /// What the provider did instead.
    public var actual: String
    /// The requests the server saw, one line each.
    public var serverSaw: [String]
    /// Line-by-line differences, when there are any to show.
    public var differences: [String]
    /// The verdict rests on the clock alone: the provider did the right thing, but later
    /// than the check allows (a timeout that fired at the time given, or after the margin,
    /// with the request sent once). A loaded machine can do that to a correct provider, so
    /// the suite runs such a check again, up to `SuiteConfiguration.timingAttempts`; a
    /// provider that is wrong is late on every attempt.
    public var isTimingOnly: Bool

    /// Makes a violation; `isTimingOnly` marks a verdict that rests on the clock alone.
    public init(expected: String, actual: String, serverSaw: [String] = [], differences: [String] = [], isTimingOnly: Bool = false) {
        self.expected = expected
        self.actual = actual
        self.serverSaw = serverSaw
        self.differences = differences
        self.isTimingOnly = isTimingOnly
    }

    /// The expectation, what the provider did, the differences and what the server saw, one per line.
    public var description: String {
        var lines = ["expected: \(expected)", "provider: \(actual)"]
        if !differences.isEmpty {
            lines.append("differences:")
            lines += differences.map { "  - \($0)" }
        }
        lines.append(serverSaw.isEmpty ? "server saw: no request" : "server saw:")
        lines += serverSaw.enumerated().map { "  \($0.offset + 1). \($0.element)" }
        return lines.joined(separator: "\n")
    }
}

extension ServeEvent {
    /// One line: method, URI, the headers that matter, the body (a multipart body as its
    /// parts), and the answer with the server's reason when it refused.
    public var summary: String {
        var line = "\(request.method) \(request.asRequest.uri)"
        for name in ["Content-Type", "identifier", "If-None-Match"] {
            if let value = request.headers[name] { line += " [\(name): \(value)]" }
        }
        switch request.body {
        case .empty: break
        case .bytes(let data):
            if let contentType = request.headers["Content-Type"], contentType.lowercased().hasPrefix("multipart/") {
                line += " body " + Self.multipartAnalysis(data, contentType: contentType)
            } else {
                line += " body " + Self.preview(data)
            }
        case .summary(let size, _): line += " body \(size) bytes"
        }
        line += " → \(status)"
        if let reason = responseReason { line += " \(JSONValue.string(reason))" }
        if let fault { line += " (\(fault.rawValue))" }
        if let step = scenarioStep { line += " [\(step)]" }
        if let network { line += " over \(network)" }
        if !violations.isEmpty {
            line += " — breaks the API's document: " + violations.prefix(3).map(\.description).joined(separator: "; ")
                + (violations.count > 3 ? "; and \(violations.count - 3) more" : "")
        }
        return line
    }

    /// Printable text up to `limit` bytes, or the size of a binary body.
    static func preview(_ data: Data, limit: Int = 300) -> String {
        let text = String(decoding: data.prefix(limit), as: UTF8.self)
        let printable = text.unicodeScalars.allSatisfy { $0.value >= 0x20 || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        guard printable else { return "\(data.count) bytes" }
        return text.replacingOccurrences(of: "\r\n", with: "⏎").replacingOccurrences(of: "\n", with: "⏎") + (data.count > limit ? "…" : "")
    }

    /// A multipart body part by part (name, filename, type, size; JSON parts in full), or
    /// why it does not parse — where a raw preview would stop before the part that is wrong.
    static func multipartAnalysis(_ data: Data, contentType: String) -> String {
        let form: MultipartForm
        do {
            form = try MultipartForm.parse(data, contentType: contentType)
        } catch {
            let why: String
            switch error {
            case .notMultipart: why = "not multipart/form-data"
            case .noBoundary: why = "the Content-Type names no boundary"
            case .malformed(let detail): why = detail
            }
            return "of \(data.count) bytes that does not parse as multipart: \(why); it starts \(preview(data, limit: 120))"
                + (data.count > 120 ? " and ends \(preview(data.suffix(60), limit: 60))" : "")
        }
        let parts = form.parts.enumerated().map { index, part -> String in
            var text = "\(index + 1). \(part.name.map { "\"\($0)\"" } ?? "no name")"
            if let filename = part.filename { text += " filename \"\(filename)\"" }
            text += ", \(part.contentType ?? "no Content-Type"), \(part.body.count) bytes"
            if part.filename == nil, part.body.count <= 1024 { text += ": " + preview(part.body, limit: 1024) }
            return text
        }
        return "multipart, \(form.parts.count) part\(form.parts.count == 1 ? "" : "s") (" + parts.joined(separator: "; ") + ")"
    }
}

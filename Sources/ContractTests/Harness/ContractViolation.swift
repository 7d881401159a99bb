import Foundation
import Scenarios

/// Why a check failed: what was expected, what the provider did, and what the server saw.
public struct ContractViolation: Error, Sendable, CustomStringConvertible {
    public var expected: String
    public var actual: String
    public var serverSaw: [String]
    /// Line-by-line differences, when there are any to show.
    public var differences: [String]

    public init(expected: String, actual: String, serverSaw: [String] = [], differences: [String] = []) {
        self.expected = expected
        self.actual = actual
        self.serverSaw = serverSaw
        self.differences = differences
    }

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
    /// One line: method, URI, the headers that matter, a body preview, the answer.
    public var summary: String {
        var line = "\(request.method) \(request.asRequest.uri)"
        for name in ["Content-Type", "identifier", "If-None-Match"] {
            if let value = request.headers[name] { line += " [\(name): \(value)]" }
        }
        switch request.body {
        case .empty: break
        case .bytes(let data):
            let text = String(decoding: data.prefix(160), as: UTF8.self)
            let printable = text.unicodeScalars.allSatisfy { $0.value >= 0x20 || $0 == "\n" || $0 == "\r" || $0 == "\t" }
            line += printable ? " body \(text.replacingOccurrences(of: "\r\n", with: "⏎").replacingOccurrences(of: "\n", with: "⏎"))\(data.count > 160 ? "…" : "")"
                              : " body \(data.count) bytes"
        case .summary(let size, _): line += " body \(size) bytes"
        }
        line += " → \(status)"
        if let fault { line += " (\(fault.rawValue))" }
        if let step = scenarioStep { line += " [\(step)]" }
        return line
    }
}

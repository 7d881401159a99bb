import Foundation

/// The outcome of a suite run: one result per check, a readable text report, JUnit XML.
public struct ContractReport: Sendable, CustomStringConvertible {
    /// How one check ended.
    public enum Outcome: Sendable {
        /// The check passed.
        case passed
        /// The provider broke the contract, as the violation says.
        case failed(ContractViolation)
        /// The check could not run to a verdict (the mock did not start, the check timed out).
        case error(String)

        /// Whether the check passed.
        public var passed: Bool { if case .passed = self { return true }; return false }
    }

    /// One check's result.
    public struct Result: Sendable {
        /// The check's id.
        public let id: String
        /// The check's level.
        public let level: CheckLevel
        /// The check's one-line summary.
        public let summary: String
        /// How it ended (of the attempt that counts).
        public let outcome: Outcome
        /// Seconds for every attempt together.
        public let duration: TimeInterval
        /// What the verdict does not show: attempts that failed on timing alone and were
        /// run again (`SuiteConfiguration.timingAttempts`).
        public let notes: [String]

        init(id: String, level: CheckLevel, summary: String, outcome: Outcome, duration: TimeInterval, notes: [String] = []) {
            self.id = id
            self.level = level
            self.summary = summary
            self.outcome = outcome
            self.duration = duration
            self.notes = notes
        }

        /// Whether the check passed.
        public var passed: Bool { outcome.passed }

        /// The failure text, then one `note:` per attempt that did not count: what the
        /// report prints under the check, and what the XCTest and Swift Testing glue record.
        public var details: String {
            var parts = message.map { [$0] } ?? []
            parts += notes.map { "note: " + $0.replacingOccurrences(of: "\n", with: "\n      ") }
            return parts.joined(separator: "\n")
        }

        /// The failure text (expected, what the provider did, what the server saw).
        public var message: String? {
            switch outcome {
            case .passed: return nil
            case .failed(let violation): return violation.description
            case .error(let text): return text
            }
        }
    }

    /// The suite's name.
    public let suite: String
    /// One result per check, in the suite's order.
    public let results: [Result]
    /// Seconds the whole run took.
    public let duration: TimeInterval

    /// The checks that did not pass, required and recommended.
    public var failures: [Result] { results.filter { !$0.passed } }
    /// The required checks that did not pass.
    public var requiredFailures: [Result] { failures.filter { $0.level == .required } }
    /// Every check passed, required and recommended.
    public var passed: Bool { failures.isEmpty }
    /// Every required check passed.
    public var requiredPassed: Bool { requiredFailures.isEmpty }

    /// The result of the check with `id`, nil when the suite has none.
    public func result(_ id: String) -> Result? { results.first { $0.id == id } }

    /// The text report: a verdict line, then one line per check, with each failure's details.
    public var description: String {
        var lines = ["\(suite): \(results.count - failures.count) of \(results.count) checks passed in \(String(format: "%.2f", duration)) s"
                     + (requiredFailures.isEmpty ? "" : " — \(requiredFailures.count) required failed")]
        for result in results {
            let mark = result.passed ? "✔" : "✘"
            lines.append("\(mark) \(result.id) (\(result.level.rawValue)): \(result.summary)")
            if !result.details.isEmpty {
                lines += result.details.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// JUnit XML (one testsuite, a testcase per check) for CI systems.
    public func junitXML() -> String {
        // XML 1.0 has no form at all for most control characters (a provider's error text
        // can carry them): they become U+FFFD.
        func escape(_ text: String) -> String {
            var escaped = ""
            escaped.reserveCapacity(text.utf8.count)
            for scalar in text.unicodeScalars {
                switch scalar {
                case "&": escaped += "&amp;"
                case "<": escaped += "&lt;"
                case ">": escaped += "&gt;"
                case "\"": escaped += "&quot;"
                case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
                case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                    escaped += "\u{FFFD}"
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped
        }
        let errors = results.filter { if case .error = $0.outcome { return true }; return false }.count
        let failed = failures.count - errors
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites>\n  <testsuite name=\"\(escape(suite))\" tests=\"\(results.count)\" failures=\"\(failed)\" errors=\"\(errors)\" time=\"\(String(format: "%.3f", duration))\">\n"
        for result in results {
            xml += "    <testcase classname=\"\(escape(suite)).\(result.level.rawValue)\" name=\"\(escape(result.id))\" time=\"\(String(format: "%.3f", result.duration))\""
            var children = ""
            switch result.outcome {
            case .passed:
                break
            case .failed(let violation):
                children += "      <failure message=\"\(escape(result.summary))\">\(escape(violation.description))</failure>\n"
            case .error(let text):
                children += "      <error message=\"\(escape(text))\"/>\n"
            }
            if !result.notes.isEmpty {
                children += "      <system-out>\(escape(result.notes.joined(separator: "\n")))</system-out>\n"
            }
            xml += children.isEmpty ? "/>\n" : ">\n" + children + "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// Writes the report as JUnit XML to `url` (for CI), replacing any file there.
    public func writeJUnit(to url: URL) throws {
        try Data(junitXML().utf8).write(to: url, options: .atomic)
    }
}

import Foundation
import MockCore

/// Check builders shared by the Restaurant and Open Market suites.
public enum CommonChecks {
    /// Every call in `calls` sends requests that keep the API's OpenAPI document (the one
    /// the mock serves for the suite's variant): documented paths, methods, query and
    /// header parameters of the right type, bodies and multipart parts of the right shape.
    /// The simulators answer as leniently as the real servers did (a misspelt query name
    /// is ignored there, so the app seems to work); this check still fails, naming each
    /// request and what in it breaks the document. Calls that throw are other checks'
    /// business: what they sent is judged the same.
    public static func requestsConform<P: Sendable>(_ id: String, api: String,
                                                    calls: [(String, @Sendable (CheckRun<P>) async throws -> Void)]) -> ContractCheck<P> {
        ContractCheck(id, .required, "every call's requests keep the \(api) API's OpenAPI document (paths, parameters, bodies), also where the server is lenient") { run in
            for (_, call) in calls {
                _ = await run.outcome(within: run.timeout + 5) { try await call(run) }
            }
            let offending = run.expectations.requests.map { (event: $0, violations: $0.violations) }.filter { !$0.violations.isEmpty }
            let differences = offending.flatMap { event, violations in
                violations.map { "#\(event.id) \(event.request.method) \(event.request.asRequest.uri): \($0.path): \($0.reason)" }
            }
            try run.require(differences.isEmpty, "requests that keep the document (GET /__admin/openapi/\(api.lowercased().replacingOccurrences(of: " ", with: "")))",
                            actual: "\(offending.count) of \(run.expectations.requests.count) requests break it (calls: \(calls.map(\.0).joined(separator: ", ")))",
                            differences: differences)
        }
    }

    /// `call` must throw under every kind of failure of its request.
    public static func errorHandling<P: Sendable, T: Sendable>(
        _ id: String, call: String, pattern: RequestPattern, kinds: [FailureKind] = FailureKind.allCases,
        _ invoke: @escaping @Sendable (CheckRun<P>, FailureKind) async throws -> T
    ) -> ContractCheck<P> {
        ContractCheck(id, .required, "\(call) throws on \(kinds.map(\.rawValue).joined(separator: ", ")) — never crashes, never succeeds empty",
                      scenarios: FailureKind.scenarios(for: pattern, kinds: kinds)) { run in
            var problems: [String] = []
            for kind in kinds {
                try run.use(kind.scenarioName)
                let outcome = await run.outcome(within: run.timeout + 5) { try await invoke(run, kind) }
                if !outcome.threw {
                    problems.append("under a \(kind.rawValue) the provider \(outcome.summary)"
                                    + (outcome.isReturn ? " — the failure was swallowed" : ""))
                }
            }
            try run.require(problems.isEmpty, "\(call) to throw under each of: \(kinds.map(\.rawValue).joined(separator: ", "))",
                            actual: "did not throw under \(problems.count) of \(kinds.count)", differences: problems)
        }
    }

    /// A write (`POST`) is not idempotent: under a 500, a 503 and a timeout the server must
    /// see it exactly once, whatever the provider then reports. A provider that retries it
    /// makes duplicate orders or products; retries belong to GETs (or to writes with an
    /// idempotency key, which these APIs do not have). A connection reset is not among the
    /// kinds: on a reused keep-alive connection the HTTP stack itself (libcurl under
    /// FoundationNetworking) sends the request again once, which no provider controls.
    public static func writeIsNotRetried<P: Sendable, T: Sendable>(
        _ id: String, call: String, pattern: RequestPattern,
        _ invoke: @escaping @Sendable (CheckRun<P>) async throws -> T
    ) -> ContractCheck<P> {
        let kinds: [(name: String, outcome: Outcome)] = [
            ("a 500", .status(500, json: ["error": true, "reason": "contract check: a 500"])),
            ("a 503 with Retry-After: 1", .status(503, json: ["error": true, "reason": "contract check: a 503"], headers: ["Retry-After": "1"])),
            ("no answer (the request timed out)", .fault(.hang)),
        ]
        let scenarios = kinds.enumerated().map { index, kind in
            Scenario(name: "no-retry-\(index)", rules: [Rule("fail", pattern, always: kind.outcome)])
        }
        return ContractCheck(id, .required, "\(call) is sent once under a 500, a 503 or a timeout — never retried (duplicates)",
                             scenarios: scenarios) { run in
            // Each kind on a server of its own, at once: the timeout and the watches overlap.
            let problems = try await run.inParallel(kinds.count) { run, index -> String? in
                try run.use("no-retry-\(index)")
                let before = run.expectations.requests(matching: pattern).count
                // Room for a retrying provider to time out twice before it gives up.
                let outcome = await run.outcome(within: run.timeout * 3 + 5) { try await invoke(run) }
                try? await Task.sleep(nanoseconds: 300_000_000)   // a retry sent just after the call returned
                let seen = run.expectations.requests(matching: pattern).count - before
                guard seen != 1 else { return nil }
                return "under \(kinds[index].name) the server saw \(pattern) \(seen) times; the provider then \(outcome.summary)"
            }.compactMap { $0 }
            try run.require(problems.isEmpty, "\(pattern) sent exactly once per call, also when it fails: a retried write is a duplicate",
                            actual: "the provider repeated (or never sent) it", differences: problems)
        }
    }

    /// A hung response makes `call` fail within the provider's timeout plus `margin`.
    public static func hangTimesOut<P: Sendable, T: Sendable>(
        _ id: String, call: String, pattern: RequestPattern, margin: TimeInterval,
        _ invoke: @escaping @Sendable (CheckRun<P>) async throws -> T
    ) -> ContractCheck<P> {
        hangTimesOut(id, call: call, patterns: [pattern], margin: margin, invoke)
    }

    /// A hung response to a request any of `patterns` matches makes `call` fail within the
    /// provider's timeout plus `margin`: one pattern per path the call may be sent to.
    public static func hangTimesOut<P: Sendable, T: Sendable>(
        _ id: String, call: String, patterns: [RequestPattern], margin: TimeInterval,
        _ invoke: @escaping @Sendable (CheckRun<P>) async throws -> T
    ) -> ContractCheck<P> {
        ContractCheck(id, .required, "a hung \(call) fails within the timeout (+\(String(format: "%g", margin)) s margin)",
                      scenarios: [Scenario(name: "hang", rules: patterns.map { Rule("hang", $0, always: .fault(.hang)) })]) { run in
            try run.use("hang")
            let limit = run.timeout + margin
            let outcome = await run.outcome(within: limit) { try await invoke(run) }
            guard case .threw(_, let seconds) = outcome, seconds <= limit else {
                let sent = run.expectations.requests(matchingAny: patterns).count
                let hint: String
                if sent > 1 {
                    hint = " — the server saw \(sent) requests: each retry after a timeout starts the wait again, so the call outlives its timeout"
                } else if outcome.isStillRunning {
                    hint = " — no timeout? (the server saw the request once and never answered)"
                } else {
                    hint = ""
                }
                var violation = run.expectations.violation("\(call) to throw within \(String(format: "%g", run.timeout)) s (+\(String(format: "%g", margin)) s) when the server never answers",
                                                           actual: outcome.summary + hint)
                // Sent once, and thrown late or not yet: a stalled machine looks the same
                // as a provider whose timeout is too long, until the check runs again.
                violation.isTimingOnly = sent == 1 && (outcome.isStillRunning || outcome.threw)
                throw violation
            }
        }
    }

    /// A call cancelled while the server is still answering ends, and nothing the
    /// provider does afterwards reaches the server: a retry loop that takes
    /// `URLError.cancelled` (-999) or `CancellationError` for a failure sends the request
    /// again for a screen that is gone.
    public static func cancellationSendsNothingMore<P: Sendable, T: Sendable>(
        _ id: String, call: String, pattern: RequestPattern, delay: TimeInterval,
        _ invoke: @escaping @Sendable (CheckRun<P>) async throws -> T
    ) -> ContractCheck<P> {
        cancellationSendsNothingMore(id, call: call, patterns: [pattern], delay: delay, invoke)
    }

    /// `cancellationSendsNothingMore(_:call:pattern:delay:_:)` for a call whose requests any
    /// of `patterns` matches: one pattern per path the call may be sent to.
    public static func cancellationSendsNothingMore<P: Sendable, T: Sendable>(
        _ id: String, call: String, patterns: [RequestPattern], delay: TimeInterval,
        _ invoke: @escaping @Sendable (CheckRun<P>) async throws -> T
    ) -> ContractCheck<P> {
        let described = describe(patterns)
        return ContractCheck(id, .required, "a cancelled \(call) ends, and sends no further request (a cancel is not a failure to retry)",
                             scenarios: [Scenario(name: "slow-cancel", rules: patterns.map { Rule("slow", $0, always: Outcome.simulator.delayed(.fixed(delay))) })]) { run in
            try run.use("slow-cancel")
            let outcome = await run.cancelling({ try await invoke(run) }, once: {
                try await run.expectations.expect(anyOf: patterns, .atLeast(1), timeout: run.timeout)
            }, within: delay + 1)
            // A retry or a follow-up is sent by the time the answer would have come.
            try? await Task.sleep(nanoseconds: UInt64((delay + 0.5) * 1_000_000_000))
            let sent = run.expectations.requests(matchingAny: patterns).count
            var problems: [String] = []
            if sent == 0 { problems.append("the server never saw \(described), so there was nothing to cancel") }
            if sent > 1 {
                problems.append("the server saw \(described) \(sent) times: the provider sent it again after the task was cancelled "
                                + "— a cancelled request (URLError.cancelled, CancellationError) is not a failure to retry")
            }
            if outcome.isStillRunning { problems.append("after the cancel the call \(outcome.summary) — the cancel never reached the request") }
            guard problems.isEmpty else {
                var violation = run.expectations.violation("\(call), cancelled while the server answers slowly, to end and send nothing more",
                                                           actual: "the call \(outcome.summary) after being cancelled", differences: problems)
                // Sent once and only slow to end: a busy machine can hold a cancel's effect
                // past the wait; a provider that ignores cancels is still running every time.
                violation.isTimingOnly = sent == 1 && problems.count == 1 && outcome.isStillRunning
                throw violation
            }
        }
    }

    /// How early a timer may report against the time it was given (clock granularity).
    package static let timerTolerance: TimeInterval = 0.05

    /// The timeout URLSession keeps of `timeout`: FoundationNetworking (libcurl) takes
    /// whole seconds, rounding down; Apple's URLSession keeps fractions.
    package static func effectiveTimeout(_ timeout: TimeInterval) -> TimeInterval {
        #if canImport(FoundationNetworking)
        return timeout.rounded(.down)
        #else
        return timeout
        #endif
    }

    /// `seconds` is no sooner than the timeout URLSession keeps of `timeout`, within the
    /// timer's tolerance: a timeout that fired then was the one given, late.
    package static func isNoSooner(_ seconds: TimeInterval, than timeout: TimeInterval) -> Bool {
        seconds >= effectiveTimeout(timeout) - timerTolerance
    }

    /// Why a provider is not to blame, when the server is: all three in seconds from the
    /// request's arrival at the server. The answer was due at `delay`, before the provider
    /// gave up (`seconds`), yet the server's journal shows it ended only at or after that
    /// moment (`ended`; nil when it had not ended, the answer then dropped with the
    /// connection). Nil when the server was in time, or when the provider gave up before the
    /// answer was due, which is the provider's doing. Both transports journal an answer's
    /// end (`MockEngine.completed`).
    package static func serverHeldAnswer(due delay: TimeInterval, ended: TimeInterval?, providerGaveUpAfter seconds: TimeInterval) -> String? {
        guard seconds > delay + timerTolerance else { return nil }
        let due = String(format: "%g", delay)
        if let ended {
            guard ended >= seconds - timerTolerance else { return nil }
            return "the server's answer, due \(due) s after the request, ended only \(CallOutcome<Int>.format(ended)) s after it: "
                + "this machine held it past the moment the provider gave up, so this run says nothing about the provider's timeout"
        }
        return "the server's answer, due \(due) s after the request, had not ended when the provider gave up: "
            + "this machine held it, so this run says nothing about the provider's timeout"
    }

    /// A slow response that arrives within the timeout still succeeds.
    public static func slowButInTime<P: Sendable, T: Sendable>(
        _ id: String, call: String, pattern: RequestPattern, delay: TimeInterval,
        _ invoke: @escaping @Sendable (CheckRun<P>) async throws -> T
    ) -> ContractCheck<P> {
        slowButInTime(id, call: call, patterns: [pattern], delay: delay, invoke)
    }

    /// A slow response to a request any of `patterns` matches, arriving within the
    /// timeout, still succeeds: one pattern per path the call may be sent to.
    public static func slowButInTime<P: Sendable, T: Sendable>(
        _ id: String, call: String, patterns: [RequestPattern], delay: TimeInterval,
        _ invoke: @escaping @Sendable (CheckRun<P>) async throws -> T
    ) -> ContractCheck<P> {
        ContractCheck(id, .required, "a slow \(call) that answers within the timeout still succeeds",
                      scenarios: [Scenario(name: "slow", rules: patterns.map { Rule("slow", $0, always: Outcome.simulator.delayed(.fixed(delay))) })]) { run in
            try run.use("slow")
            let started = Date()
            let outcome = await run.outcome(within: run.timeout + 5) { try await invoke(run) }
            guard case .returned = outcome else {
                let sent = run.expectations.requests(matchingAny: patterns)
                // Only a timeout after one request can be the server's doing, and only
                // without a network profile, whose own latency and pace make a later end
                // the plan. The moment the provider gave up is put on the server's clock
                // (from the request's arrival), as the journal's `duration` is.
                var held: String?
                if case .threw(let error, let seconds) = outcome, error.contains("(timedOut)"),
                   sent.count == 1, let event = sent.first, event.network == nil {
                    let gaveUp = started.addingTimeInterval(seconds).timeIntervalSince(event.receivedAt)
                    held = serverHeldAnswer(due: event.delay, ended: event.duration, providerGaveUpAfter: gaveUp)
                }
                // Only a timeout points at the timeout; anything else is said as it is.
                var hint = ""
                if let held {
                    hint = " — \(held)"
                } else if case .threw(let error, let seconds) = outcome, error.contains("(timedOut)") || seconds < delay {
                    hint = " — is the timeout shorter than the one given?"
                } else if case .threw(let error, _) = outcome, error.contains("Decoding") {
                    hint = " — the slow answer is the same body as a fast one; it failed to decode"
                }
                var violation = run.expectations.violation("\(call) to succeed when the answer takes \(String(format: "%g", delay)) s (timeout \(String(format: "%g", run.timeout)) s)",
                                                           actual: outcome.summary + hint)
                // Sent once, and either the timeout fired at the time given or the server
                // itself held the answer past the moment the provider gave up: the answer
                // reached the provider late, which a loaded machine can do. A timeout shorter
                // than the one given fires early on every attempt.
                if outcome.isLateTimeout(run.timeout) || held != nil {
                    violation.isTimingOnly = sent.count == 1
                }
                throw violation
            }
        }
    }
}

extension CommonChecks {
    /// `GET /v1/todos or GET /v2/todos`.
    package static func describe(_ patterns: [RequestPattern]) -> String {
        patterns.map(\.description).joined(separator: " or ")
    }
}

extension CallOutcome {
    package var isReturn: Bool { if case .returned = self { return true }; return false }
    package var isStillRunning: Bool { if case .stillRunning = self { return true }; return false }
}

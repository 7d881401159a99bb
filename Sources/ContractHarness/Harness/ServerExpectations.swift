import Foundation
import MockCore

/// What the server must see, answered from its journal — like `XCTestExpectation`, but
/// about requests: counts, order and content, with a timeout.
///
///     try await expectations.expect(.get("/menu"), .exactly(1))
///     try await expectations.expect(RequestPattern(method: "POST", path: "/order",
///                                   body: .jsonEqualTo(["menuIds": [1, 5]])), .atLeast(1), timeout: 2)
///     try await expectations.expectInOrder([.get("/categories"), .get("/menu")])
public struct ServerExpectations: Sendable {
    /// How many matching requests the server must see.
    public enum Count: Sendable, Equatable, CustomStringConvertible {
        /// Exactly this many.
        case exactly(Int)
        /// This many or more.
        case atLeast(Int)
        /// This many or fewer.
        case atMost(Int)
        /// None at all.
        case never

        func accepts(_ count: Int) -> Bool {
            switch self {
            case .exactly(let n): return count == n
            case .atLeast(let n): return count >= n
            case .atMost(let n): return count <= n
            case .never: return count == 0
            }
        }

        /// The count for a message, such as `exactly 1`.
        public var description: String {
            switch self {
            case .exactly(let n): return "exactly \(n)"
            case .atLeast(let n): return "at least \(n)"
            case .atMost(let n): return "at most \(n)"
            case .never: return "no"
            }
        }
    }

    /// Requests carrying this session header are the harness's own and are not counted.
    public static let harnessSession = "contract-harness"

    /// The journal the expectations read.
    public let journal: Journal
    /// How long a count is watched for late arrivals before `exactly`/`atMost`/`never` pass.
    public let settle: TimeInterval

    /// Makes expectations on `journal`; `exactly`, `atMost` and `never` watch for late arrivals for `settle` seconds.
    public init(journal: Journal, settle: TimeInterval = 0.05) {
        self.journal = journal
        self.settle = settle
    }

    /// Every request the provider sent so far, oldest first. A request the client's HTTP
    /// stack resent by itself after a reset on a reused connection (`AutomaticResend`) is
    /// counted once, as the provider sent it once.
    public var requests: [ServeEvent] {
        AutomaticResend.folding(journal.entries().filter { $0.session != Self.harnessSession })
    }

    /// The requests the provider sent that match `pattern`, oldest first, resends counted once.
    public func requests(matching pattern: RequestPattern) -> [ServeEvent] {
        requests.filter { pattern.matches($0.request.asRequest) }
    }

    /// The requests any of `patterns` matches, oldest first, each once: one operation
    /// served under several paths (an OpenAPI document's `servers`) is one pattern per path.
    public func requests(matchingAny patterns: [RequestPattern]) -> [ServeEvent] {
        requests.filter { event in patterns.contains { $0.matches(event.request.asRequest) } }
    }

    /// Waits until the count of requests matching `pattern` satisfies `count` (at most
    /// `timeout` seconds), and returns them; throws a `ContractViolation` otherwise.
    @discardableResult
    public func expect(_ pattern: RequestPattern, _ count: Count = .exactly(1), timeout: TimeInterval = 1,
                       _ because: String? = nil) async throws -> [ServeEvent] {
        try await expect(anyOf: [pattern], count, timeout: timeout, because)
    }

    /// Waits until the count of requests any of `patterns` matches satisfies `count` (at
    /// most `timeout` seconds), and returns them; throws a `ContractViolation` otherwise.
    @discardableResult
    public func expect(anyOf patterns: [RequestPattern], _ count: Count = .exactly(1), timeout: TimeInterval = 1,
                       _ because: String? = nil) async throws -> [ServeEvent] {
        let deadline = Date().addingTimeInterval(timeout)
        var matching = requests(matchingAny: patterns)
        switch count {
        case .exactly(let n), .atLeast(let n):
            while matching.count < n && Date() < deadline {
                try await Task.sleep(nanoseconds: 5_000_000)
                matching = requests(matchingAny: patterns)
            }
            if case .exactly = count, matching.count == n {
                try await Task.sleep(nanoseconds: UInt64(settle * 1_000_000_000))
                matching = requests(matchingAny: patterns)
            }
        case .atMost, .never:
            try await Task.sleep(nanoseconds: UInt64(settle * 1_000_000_000))
            matching = requests(matchingAny: patterns)
        }
        guard count.accepts(matching.count) else {
            let described = patterns.map(\.description).joined(separator: " or ")
            throw violation("\(count) request\(isOne(count) ? "" : "s") matching \(described)\(because.map { " — \($0)" } ?? "")",
                            actual: "the server saw \(matching.count) matching request\(matching.count == 1 ? "" : "s")")
        }
        return matching
    }

    /// Waits until requests matching `patterns` have arrived in this order (other
    /// requests may come between them).
    public func expectInOrder(_ patterns: [RequestPattern], timeout: TimeInterval = 1) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let matched = Self.longestOrderedPrefix(patterns, in: requests)   // the harness's own requests excluded
            if matched == patterns.count { return }
            if Date() >= deadline {
                throw violation("requests in order: " + patterns.map(\.description).joined(separator: " → "),
                                actual: "only the first \(matched) arrived in that order; missing \(patterns[matched])")
            }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
    }

    static func longestOrderedPrefix(_ patterns: [RequestPattern], in events: [ServeEvent]) -> Int {
        var index = 0
        for event in events where index < patterns.count && patterns[index].matches(event.request.asRequest) {
            index += 1
        }
        return index
    }

    /// A violation carrying what the server saw (a resend marked as such).
    public func violation(_ expected: String, actual: String, differences: [String] = []) -> ContractViolation {
        let seen = journal.entries().filter { $0.session != Self.harnessSession }
        let resent = AutomaticResend.resends(in: seen)
        let lines = seen.suffix(20).map { event in
            resent[event.id].map { "\(event.summary) (#\(event.id): the client's HTTP stack resent #\($0); counted once)" } ?? event.summary
        }
        return ContractViolation(expected: expected, actual: actual, serverSaw: lines, differences: differences)
    }

    private func isOne(_ count: Count) -> Bool {
        switch count {
        case .exactly(1), .atLeast(1), .atMost(1): return true
        default: return false
        }
    }
}

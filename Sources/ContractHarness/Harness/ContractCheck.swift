import Foundation
import MockCore
import MockServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How much a check matters: whether the client breaks without what it asks.
public enum CheckLevel: String, Sendable {
    /// The client breaks without it.
    case required
    /// Good practice the shipped reference providers follow.
    case recommended
}

/// A named contract check over a `Provider`: its id, level, one-line summary, the scenarios
/// and settings its server needs, and the body that drives the provider and judges what
/// came back and what the server saw. Each run gets a fresh server of its own.
public struct ContractCheck<Provider: Sendable>: Sendable, Identifiable {
    /// How much a failure of the check matters.
    public typealias Level = CheckLevel

    /// A stable dotted id (`timeout.hang`): reports name the check by it, and `ContractSuite.only(_:)` selects by it.
    public let id: String
    /// Required (the client breaks without it) or recommended.
    public let level: Level
    /// One line: what the check asks of the provider.
    public let summary: String
    /// Scenarios this check switches between (selected with `run.use(_:)`).
    public var scenarios: [Scenario]
    /// Overrides the image `Cache-Control` the server sends (revalidation checks).
    public var imageCacheControl: String?
    /// The network profile this check's server plays (over the suite's, if any); a check
    /// can also switch with `run.use(network:)`.
    public var network: NetworkProfile?
    let body: @Sendable (CheckRun<Provider>) async throws -> Void

    /// Makes a check; `body` drives the provider through the `CheckRun` it gets and throws a
    /// `ContractViolation` when the provider breaks the contract.
    public init(_ id: String, _ level: Level, _ summary: String, scenarios: [Scenario] = [], imageCacheControl: String? = nil,
                network: NetworkProfile? = nil, body: @escaping @Sendable (CheckRun<Provider>) async throws -> Void) {
        self.id = id
        self.level = level
        self.summary = summary
        self.scenarios = scenarios
        self.imageCacheControl = imageCacheControl
        self.network = network
        self.body = body
    }

    /// Whether the check waits on the clock: it plays a network profile, or one of its
    /// scenarios never answers (the provider's timeout runs out), answers late or slowly,
    /// or slows the TLS handshake. A suite starts these first.
    var waits: Bool {
        network != nil || scenarios.contains { scenario in
            scenario.defaults.latency != nil || scenario.defaults.throttle != nil || scenario.tls?.fault == .slowHandshake
                || scenario.rules.contains { rule in
                    rule.responses.outcomes.contains { $0.fault == .hang || $0.latency != nil || $0.throttle != nil }
                }
        }
    }
}

/// Another run of a check, on its own server, and how to stop it.
struct SiblingRun<Provider: Sendable>: Sendable {
    let run: CheckRun<Provider>
    let stop: @Sendable () async -> Void
}

extension Result where Failure == any Error {
    fileprivate init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// What a check's body works with: the provider under test, its server, and expectations.
public struct CheckRun<Provider: Sendable>: Sendable {
    /// The provider under test.
    public let provider: Provider
    /// The engine of this run's server: its journal, scenarios and state.
    public let engine: MockEngine
    /// What the provider is built with: the server's base URL, the timeout and the session configuration.
    public let context: ProviderContext
    /// Counts, order and content of what the server saw, with timeouts.
    public let expectations: ServerExpectations
    /// The check's own executor: the provider's calls run and are timed there.
    public let isolation: CheckIsolation
    /// The clock the check's windows and timings run on (`SuiteConfiguration.clock`).
    public let clock: any Clock<Duration>
    /// Makes another run of this check on a fresh server of its own (`inParallel`).
    let sibling: (@Sendable () async throws -> SiblingRun<Provider>)?
    /// The step last marked (`mark(_:)`), shared by every copy of this run.
    let marked = Locked<String?>(nil)

    init(provider: Provider, engine: MockEngine, context: ProviderContext, expectations: ServerExpectations,
         isolation: CheckIsolation, clock: any Clock<Duration> = ContinuousClock(),
         sibling: (@Sendable () async throws -> SiblingRun<Provider>)? = nil) {
        self.provider = provider
        self.engine = engine
        self.context = context
        self.expectations = expectations
        self.isolation = isolation
        self.clock = clock
        self.sibling = sibling
    }

    /// The base URL of this run's server.
    public var baseURL: URL { context.baseURL }

    /// Says what the check does from now on (`the call given 404`). A check stopped at
    /// `SuiteConfiguration.checkTimeLimit` names the step it was at, so a check that makes
    /// many calls tells which one never ended.
    public func mark(_ step: String) {
        marked.withLock { $0 = step }
    }

    /// Runs `count` independent parts of a check at once: part 0 on this check's server,
    /// every other part on a fresh server of its own (the same fixtures, scenarios and
    /// network profile) with a provider of its own. Waits that do not depend on each other
    /// (a timeout, a watch for a late retry) then overlap, and no part sees another's
    /// requests or scenario. The results come in part order; the first part that threw
    /// (in part order) rethrows once every part has ended.
    public func inParallel<T: Sendable>(_ count: Int, _ part: @escaping @Sendable (CheckRun<Provider>, Int) async throws -> T) async throws -> [T] {
        guard count > 1, let sibling else {
            var results: [T] = []
            for index in 0..<max(count, 0) { results.append(try await part(self, index)) }
            return results
        }
        let results = await withTaskGroup(of: (Int, Result<T, any Error>).self) { group in
            group.addTask { (0, await Result(catching: { try await part(self, 0) })) }
            for index in 1..<count {
                group.addTask {
                    let other: SiblingRun<Provider>
                    do { other = try await sibling() } catch { return (index, .failure(error)) }
                    // On the sibling's own executor, as its calls are timed there.
                    let result = await other.run.isolation.task { await Result(catching: { try await part(other.run, index) }) }.value
                    await other.stop()
                    return (index, result)
                }
            }
            var results: [(Int, Result<T, any Error>)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
        return try results.map { try $0.get() }
    }
    /// The timeout the provider was given, in seconds.
    public var timeout: TimeInterval { context.timeout }

    /// An absolute URL on this check's server.
    public func url(_ path: String) -> URL { URL(string: context.baseURL.absoluteString + path)! }

    /// Sends everything that follows through a network profile (nil: none).
    public func use(network profile: NetworkProfile?) {
        engine.network.set(profile)
    }

    /// Switches this check's server to a scenario (its counters start afresh).
    public func use(_ scenario: String) throws {
        do { try engine.scenarios.select(scenario) } catch { throw ContractViolation(expected: "scenario \(scenario)", actual: "\(error)") }
    }

    /// The server's own answer to a request, without the scenario layer and unjournaled:
    /// the truth a provider's result is compared with.
    public func truth(_ method: String = "GET", _ uri: String, body: Data = Data(), headers: HeaderFields = [:]) -> ResponsePlan {
        engine.router.respond(to: MockRequest(method: method, uri: uri, headers: headers, body: body, baseURL: context.baseURL.absoluteString))
    }

    /// The truth as JSON.
    public func truthJSON(_ uri: String) -> JSONValue? { JSONValue(parsing: truth("GET", uri).body) }

    /// Fails with what the server saw unless `condition` holds.
    public func require(_ condition: Bool, _ expected: @autoclosure () -> String, actual: @autoclosure () -> String,
                        differences: [String] = []) throws {
        guard !condition else { return }
        throw expectations.violation(expected(), actual: actual(), differences: differences)
    }

    /// Runs a provider call, turning a thrown error into a violation that names the call.
    ///
    /// A call that sent at most one request and timed out no sooner than the timeout given
    /// failed only by being late (`ContractViolation.isTimingOnly`): a busy machine can
    /// hold any answer past a 1 s timeout once, and the check runs again. A timeout that
    /// fires early, or one after retries, is the provider's.
    public func call<T: Sendable>(_ what: String, _ body: @Sendable () async throws -> T) async throws -> T {
        let elapsed = clock.stopwatch()
        let sentBefore = expectations.requests.count
        do {
            return try await body()
        } catch let violation as ContractViolation {
            throw violation
        } catch {
            var violation = expectations.violation("\(what) to succeed", actual: explain(error))
            violation.isTimingOnly = Self.isLateTimeout(error, after: elapsed(), timeout: timeout)
                && expectations.requests.count - sentBefore <= 1
            throw violation
        }
    }

    /// `error` is a `URLError.timedOut` (bare or inside a provider's own error) that came
    /// no sooner than the timeout URLSession keeps of `timeout`.
    static func isLateTimeout(_ error: any Error, after seconds: TimeInterval, timeout: TimeInterval) -> Bool {
        guard let urlError = (error as? URLError) ?? ContractViolation.wrappedURLError(in: error, depth: 3), urlError.code == .timedOut else { return false }
        return CommonChecks.isNoSooner(seconds, than: timeout)
    }

    /// How a call ended, without waiting longer than `limit` seconds (on the suite's clock):
    /// a call that is still running then is abandoned (and reported as such).
    public func outcome<T: Sendable>(within limit: TimeInterval, _ body: @escaping @Sendable () async throws -> T) async -> CallOutcome<T> {
        let elapsed = clock.stopwatch()
        let clock = clock
        let timer = Locked<Task<Void, Never>?>(nil)
        let outcome: CallOutcome<T> = await firstOf { finish in
            timed(body, elapsed: elapsed, finish)
            timer.withLock { $0 = Task {
                guard await clock.sleepOrCancel(seconds: limit) else { return }
                finish(.stillRunning(seconds: limit))
                // Abandoned, not cancelled: the outcome stays the provider's own (a cancel
                // would end a hang the provider never times out). The call ends with its
                // own timeout or when the check's server stops and closes the connection.
            } }
        }
        timer.withLock { $0 }?.cancel()
        return outcome
    }

    /// Starts a call on the check's executor, cancels its task once `ready` returns (or
    /// throws), and tells how the call ended, waiting at most `limit` seconds after the
    /// cancel (on the suite's clock) — as a view that goes away cancels the loads it started.
    public func cancelling<T: Sendable>(_ body: @escaping @Sendable () async throws -> T, once ready: @escaping @Sendable () async throws -> Void,
                                        within limit: TimeInterval) async -> CallOutcome<T> {
        let elapsed = clock.stopwatch()
        let clock = clock
        let timer = Locked<Task<Void, Never>?>(nil)
        let outcome: CallOutcome<T> = await firstOf { finish in
            let call = timed(body, elapsed: elapsed, finish)
            timer.withLock { $0 = Task {
                try? await ready()
                call.cancel()
                guard await clock.sleepOrCancel(seconds: limit) else { return }
                finish(.stillRunning(seconds: elapsed()))
            } }
        }
        timer.withLock { $0 }?.cancel()
        return outcome
    }

    /// Runs `body` on the check's own executor — a neighbour that blocks threads cannot
    /// delay it — and reports how it ended, timed there by `elapsed`.
    @discardableResult
    private func timed<T: Sendable>(_ body: @escaping @Sendable () async throws -> T, elapsed: @escaping @Sendable () -> TimeInterval,
                                    _ finish: @escaping @Sendable (CallOutcome<T>) -> Void) -> Task<Void, Never> {
        isolation.task {
            do {
                let value = try await body()
                finish(.returned(value, seconds: elapsed()))
            } catch {
                finish(.threw(ContractViolation.describe(error), seconds: elapsed()))
            }
        }
    }
}

/// How a call the harness timed ended, with its seconds.
public enum CallOutcome<T: Sendable>: Sendable {
    /// The call returned this value after so many seconds.
    case returned(T, seconds: TimeInterval)
    /// The call threw (the error described) after so many seconds.
    case threw(String, seconds: TimeInterval)
    /// The call was still running when the window closed, so many seconds in.
    case stillRunning(seconds: TimeInterval)

    /// Whether the call threw.
    public var threw: Bool { if case .threw = self { return true }; return false }

    /// Threw a `URLError.timedOut` (bare or wrapped) no sooner than the timeout URLSession
    /// keeps of `timeout`: late, where a timeout shorter than the one given fires early.
    public func isLateTimeout(_ timeout: TimeInterval) -> Bool {
        guard case .threw(let error, let seconds) = self, error.contains("(timedOut)") else { return false }
        return CommonChecks.isNoSooner(seconds, than: timeout)
    }

    /// The outcome for a report: what it returned or threw, and after how long.
    public var summary: String {
        switch self {
        case .returned(let value, let seconds): return "returned \(Self.preview(value)) after \(Self.format(seconds)) s"
        case .threw(let error, let seconds): return "threw \(error) after \(Self.format(seconds)) s"
        case .stillRunning(let seconds): return "was still running after \(Self.format(seconds)) s"
        }
    }

    static func format(_ seconds: TimeInterval) -> String { String(format: "%.2f", seconds) }

    static func preview(_ value: T) -> String {
        if let data = value as? Data { return "\(data.count) bytes" }
        let text = "\(value)"
        return text.count > 120 ? String(text.prefix(120)) + "…" : text
    }
}

/// The first value any of the racers `start` launches hands to `finish`; later ones are
/// dropped. (A call racing its time limit, a check racing the suite's.)
func firstOf<T: Sendable>(_ start: (@escaping @Sendable (T) -> Void) -> Void) async -> T {
    await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
        let finished = Locked(false)
        start { value in
            let first = finished.withLock { done -> Bool in
                defer { done = true }
                return !done
            }
            if first { continuation.resume(returning: value) }
        }
    }
}

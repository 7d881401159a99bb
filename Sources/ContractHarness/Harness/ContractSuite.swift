import BuiltInMockAPIs
import Foundation
import Logging
import MockCore
import MockFixtures
import MockServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How checks reach the mock.
public enum ContractTransport: String, Sendable, CaseIterable {
    /// Real loopback sockets against an in-process `MockHTTPServer` on port 0 (default).
    case sockets
    /// A `URLProtocol` in the provider's session configuration answers from the engine
    /// with no sockets; faults become the `URLError`s a real network gives.
    case inProcess
    /// Real loopback sockets over HTTPS (HTTP/2 by ALPN, as URLSession negotiates it),
    /// with a certificate from the local CA: needs `SuiteConfiguration.tls`, which the
    /// `MockServerTLS` product provides (`TLSSettings`).
    case secureSockets

    /// `.sockets`, or `.secureSockets` when `tls` is true.
    public static func sockets(tls: Bool) -> ContractTransport { tls ? .secureSockets : .sockets }
}

/// How a suite's checks are run: fixtures and variants, timeouts, transport, parallelism and clock.
public struct SuiteConfiguration: Sendable {
    /// The fixtures the checks' servers serve (the built-in set by default).
    public var fixturesDirectory: URL
    /// The variant each API plays on the checks' servers, by API name (as
    /// `EngineConfiguration.variants`); an API not named plays its first.
    /// `BuiltInContracts` reads and sets the built-in APIs' as `restaurantVariant` and
    /// `openMarketVariant`.
    public var variants: [String: String]
    /// The timeout handed to providers; the hang check allows `timeoutMargin` on top.
    /// Keep it at 1 s or more: FoundationNetworking on Linux fails requests whose timeout
    /// is under a second at once (it rounds down to whole seconds).
    public var timeout: TimeInterval
    /// Seconds a hang check allows past `timeout` before it fails the provider.
    public var timeoutMargin: TimeInterval
    /// How checks reach the mock: sockets by default.
    public var transport: ContractTransport
    /// Checks run at once (`defaultParallelism`). Most of a check's time is spent waiting
    /// (a provider's timeout, a watch for a late retry), not computing.
    public var parallelism: Int

    /// 8 where each check gets an executor of its own (`CheckIsolation`: task executors,
    /// macOS 15, iOS 18, tvOS 18, and Linux), so a provider that blocks its thread delays
    /// only its own check; 4 before those, where every check shares the cooperative pool.
    public static var defaultParallelism: Int {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) { return 8 }
        return 4
    }
    /// A check still running after this is stopped and failed.
    public var checkTimeLimit: TimeInterval
    /// Runs a check gets when it fails on timing alone (`ContractViolation.isTimingOnly`):
    /// the provider did the right thing, late. 2 by default: a CI runner busy with other
    /// tests can hold an answer past a 1 s timeout once, while a provider that is wrong is
    /// late every time. The report notes each attempt that did not count. 1 runs every
    /// check once.
    public var timingAttempts: Int
    /// Every check's server plays this network profile (a check's own wins). Timing checks
    /// assume a fast link: give a slow profile a `timeout` to match.
    public var network: NetworkProfile?
    /// HTTPS for `.secureSockets`: `MockServerTLS`'s `TLSSettings` (whose `caDirectory` is
    /// the local CA's folder, created on first use). Nil: `.secureSockets` fails each check
    /// saying so; the other transports never use it.
    public var tls: (any SecureTransport)?
    /// The APIs each check's server serves: the two built-in ones by default. A suite for
    /// an API of one's own (`OpenAPIDocumentContract`'s) serves that API alone, so no
    /// built-in path answers in its place.
    public var apis: [any MockAPI]
    /// The clock the harness waits and times on: a check's time limit (`checkTimeLimit`),
    /// the windows of `CheckRun.outcome(within:_:)` and `CheckRun.cancelling(_:once:within:)`,
    /// and the seconds a call took. The real clock (`ContinuousClock`) by default. A test of
    /// a check of one's own can pass a clock it moves itself, so that a time limit passes
    /// when the test says, not when a busy machine gets round to it; the server's delays
    /// and URLSession's timeouts stay on the real clock.
    public var clock: any Clock<Duration>

    /// Makes a configuration; the defaults suit a local run (built-in fixtures and APIs,
    /// each API's first variant, a 1 s timeout with a 1 s margin, sockets, a 30 s limit per
    /// check, the real clock). `parallelism` and `timingAttempts` are at least 1.
    public init(fixturesDirectory: URL = MockFixtures.directory, variants: [String: String] = [:],
                timeout: TimeInterval = 1, timeoutMargin: TimeInterval = 1, transport: ContractTransport = .sockets,
                parallelism: Int = SuiteConfiguration.defaultParallelism, checkTimeLimit: TimeInterval = 30, network: NetworkProfile? = nil,
                tls: (any SecureTransport)? = nil, timingAttempts: Int = 2, apis: [any MockAPI] = BuiltInAPIs.all,
                clock: any Clock<Duration> = ContinuousClock()) {
        self.apis = apis
        self.clock = clock
        self.network = network
        self.tls = tls
        self.fixturesDirectory = fixturesDirectory
        self.variants = variants
        self.timeout = timeout
        self.timeoutMargin = timeoutMargin
        self.transport = transport
        self.parallelism = max(1, parallelism)
        self.checkTimeLimit = checkTimeLimit
        self.timingAttempts = max(1, timingAttempts)
    }

}

/// A named list of checks run against one provider. Each check gets its own server, so
/// checks run in parallel and never share state.
public struct ContractSuite<Provider: Sendable>: Sendable {
    /// The suite's name, as reports show it.
    public let name: String
    /// The checks, in report order.
    public var checks: [ContractCheck<Provider>]
    /// How the checks are run.
    public var configuration: SuiteConfiguration

    /// Makes a suite of `checks` run as `configuration` says.
    public init(name: String, checks: [ContractCheck<Provider>], configuration: SuiteConfiguration) {
        self.name = name
        self.checks = checks
        self.configuration = configuration
    }

    /// Only the checks whose id is in `ids` (or starts with one of them followed by `.`).
    public func only(_ ids: [String]) -> ContractSuite {
        var copy = self
        copy.checks = checks.filter { check in ids.contains { check.id == $0 || check.id.hasPrefix($0 + ".") } }
        return copy
    }

    /// The suite with `check` added at the end.
    public func adding(_ check: ContractCheck<Provider>) -> ContractSuite {
        var copy = self
        copy.checks.append(check)
        return copy
    }

    /// Runs every check against providers made by `makeProvider`, one per check. The checks
    /// that wait on the clock (`ContractCheck.waits`) start first; the report keeps the suite's order.
    public func run(_ makeProvider: @escaping @Sendable (ProviderContext) async throws -> Provider) async -> ContractReport {
        let start = Date()
        // Fixtures and scenario files are read once; each check's engine builds its own state from them.
        let preloaded: Preloaded
        do {
            preloaded = try Preloaded.load(EngineConfiguration(fixturesDirectory: configuration.fixturesDirectory, apis: configuration.apis))
        } catch {
            let results = checks.map {
                ContractReport.Result(id: $0.id, level: $0.level, summary: $0.summary, outcome: .error("the mock could not load its fixtures: \(error)"), duration: 0)
            }
            return ContractReport(suite: name, results: results, duration: Date().timeIntervalSince(start))
        }
        // The checks that wait on the clock first, each group in its order: a suite lasts as
        // long as its slowest chain, and a long wait started in the last batch would add to
        // everything before it. Results keep the suite's order.
        let numbered = Array(checks.enumerated())
        let indexed = numbered.filter(\.element.waits) + numbered.filter { !$0.element.waits }
        var results: [(Int, ContractReport.Result)] = []
        await withTaskGroup(of: (Int, ContractReport.Result).self) { group in
            var next = 0
            func launch() {
                guard next < indexed.count else { return }
                let (index, check) = indexed[next]
                next += 1
                group.addTask { (index, await runOne(check, preloaded, makeProvider)) }
            }
            for _ in 0..<configuration.parallelism { launch() }
            for await result in group {
                results.append(result)
                launch()
            }
        }
        return ContractReport(suite: name, results: results.sorted { $0.0 < $1.0 }.map(\.1), duration: Date().timeIntervalSince(start))
    }

    func runOne(_ check: ContractCheck<Provider>, _ preloaded: Preloaded,
                _ makeProvider: @escaping @Sendable (ProviderContext) async throws -> Provider) async -> ContractReport.Result {
        let start = Date()
        var notes: [String] = []
        func result(_ outcome: ContractReport.Outcome) -> ContractReport.Result {
            ContractReport.Result(id: check.id, level: check.level, summary: check.summary, outcome: outcome,
                                  duration: Date().timeIntervalSince(start), notes: notes)
        }
        let attempts = max(1, configuration.timingAttempts)
        var attempt = 1
        while true {
            // Each attempt on a fresh run: its own server, journal and provider.
            let made: SiblingRun<Provider>
            do {
                made = try await makeRun(check, preloaded, makeProvider)
            } catch let failure as RunFailure {
                return result(.error(failure.reason))
            } catch {
                return result(.error("\(error)"))
            }
            let outcome = await Self.limited(configuration.checkTimeLimit, on: made.run.isolation, clock: configuration.clock,
                                             step: { made.run.marked.current }) {
                try await check.body(made.run)
            }
            await made.stop()
            guard attempt < attempts, case .failed(let violation) = outcome, violation.isTimingOnly else { return result(outcome) }
            let why = ([violation.actual] + violation.differences).joined(separator: "; ")
            notes.append("attempt \(attempt) of \(attempts) failed only by being late (sent once; a busy machine can do that), so the check ran again: \(why)")
            attempt += 1
        }
    }

    /// Why a check's run could not be made: its words go into the report as they are.
    struct RunFailure: Error {
        let reason: String
    }

    /// A check's run: a fresh engine with the check's scenarios, its server (or in-process
    /// registration), and a provider made for it. `CheckRun.inParallel` makes more of them.
    func makeRun(_ check: ContractCheck<Provider>, _ preloaded: Preloaded,
                 _ makeProvider: @escaping @Sendable (ProviderContext) async throws -> Provider) async throws -> SiblingRun<Provider> {
        let engine: MockEngine
        do {
            engine = try MockEngine(configuration: EngineConfiguration(
                fixturesDirectory: configuration.fixturesDirectory,
                apis: configuration.apis,
                variants: configuration.variants,
                journalResponseBodyLimit: Self.keptResponseBytes,
                imageCacheControl: check.imageCacheControl ?? "public, max-age=3600",
                extraScenarios: check.scenarios, preloaded: preloaded, network: check.network ?? configuration.network))
        } catch {
            throw RunFailure(reason: "the mock could not load its fixtures: \(error)")
        }
        let endpoint: CheckEndpoint
        do {
            endpoint = try await CheckEndpoint.start(engine: engine, transport: configuration.transport, requestTimeout: configuration.timeout,
                                                  tls: configuration.tls)
        } catch {
            throw RunFailure(reason: "the mock could not start: \(error)")
        }
        let timeout = configuration.timeout
        let context = ProviderContext(baseURL: endpoint.baseURL, timeout: timeout, sessionDelegate: endpoint.trust,
                                      sessionConfiguration: { endpoint.sessionConfiguration(timeout: timeout) })
        let provider: Provider
        do {
            provider = try await makeProvider(context)
        } catch {
            await endpoint.stop()
            throw RunFailure(reason: "the provider could not be made: \(error)")
        }
        // A sibling's server stops with this run's, also when the check passed its time
        // limit and a part is still waiting on a provider that never gives up.
        let siblings = Locked<[SiblingRun<Provider>]>([])
        let run = CheckRun(provider: provider, engine: engine, context: context,
                           expectations: ServerExpectations(journal: engine.journal), isolation: CheckIsolation(label: check.id),
                           clock: configuration.clock,
                           sibling: {
                               let sibling = try await makeRun(check, preloaded, makeProvider)
                               siblings.withLock { $0.append(sibling) }
                               return sibling
                           })
        return SiblingRun(run: run, stop: {
            for sibling in siblings.withLock({ $0 }) { await sibling.stop() }
            await endpoint.stop()
        })
    }

    /// Response bodies up to this size are journaled, so a failure can show what the
    /// server answered (its reason, the value a decoder choked on).
    static var keptResponseBytes: Int { 1024 * 1024 }

    /// Runs `body`, failing it if it is still running after `limit` seconds on `clock`; the
    /// failure names the step `step` gives then (`CheckRun.mark(_:)`), if any. A body that
    /// ends first cancels the limit's timer.
    static func limited(_ limit: TimeInterval, on isolation: CheckIsolation, clock: any Clock<Duration> = ContinuousClock(),
                        step: @escaping @Sendable () -> String? = { nil },
                        _ body: @escaping @Sendable () async throws -> Void) async -> ContractReport.Outcome {
        let timer = Locked<Task<Void, Never>?>(nil)
        let outcome: ContractReport.Outcome = await firstOf { finish in
            isolation.task {
                do {
                    try await body()
                    finish(.passed)
                } catch let violation as ContractViolation {
                    finish(.failed(violation))
                } catch {
                    finish(.error("\(type(of: error)): \(error)"))
                }
            }
            timer.withLock { $0 = Task {
                guard await clock.sleepOrCancel(seconds: limit) else { return }
                let at = step().map { ", stopped at \($0)" } ?? ""
                finish(.error("the check did not finish within \(Int(limit)) s\(at): does the provider use its timeout?"))
                // Abandoned, not cancelled (see `CheckRun.outcome(within:)`): the check's
                // server stops next and closes its connections, which ends the calls.
            } }
        }
        timer.withLock { $0 }?.cancel()
        return outcome
    }
}

/// Where one check's provider reaches its mock: a socket server or the in-process protocol.
struct CheckEndpoint: Sendable {
    let baseURL: URL
    let server: MockHTTPServer?
    let registration: InProcessRegistration?
    /// The server's loop, given back when it stops.
    var lease: ServerLoops.Lease?
    /// Over HTTPS: the delegate that trusts the local CA (`ProviderContext.sessionDelegate`).
    var trust: LocalCATrust?

    static func start(engine: MockEngine, transport: ContractTransport, requestTimeout: TimeInterval,
                      tls: (any SecureTransport)? = nil) async throws -> CheckEndpoint {
        var logger = Logger(label: "mock-server.contract")
        logger.logLevel = .warning
        switch transport {
        case .sockets:
            // A loop of its own (`ServerLoops`): a timing check's answer does not wait
            // behind its neighbours' work.
            let started = try await ServerLoops.shared.start { MockHTTPServer(engine: engine, group: $0, logger: logger) }
            return CheckEndpoint(baseURL: started.address.url, server: started.server, registration: nil, lease: started.lease)
        case .secureSockets:
            guard let tls else { throw SecureSocketsError.noTLS }
            let (server, address, lease) = try await ServerLoops.shared.start {
                MockHTTPServer(engine: engine, configuration: ServerConfiguration(secureTransport: tls), group: $0, logger: logger)
            }
            guard let ca = await server.caCertificate else {
                await server.stop()
                lease.release()
                throw ServerError.notRunning
            }
            #if os(Linux)
            // libcurl asks no trust question: URLSession trusts the system store only.
            guard ca.isInSystemBundle() else {
                await server.stop()
                lease.release()
                throw SecureSocketsError.untrustedOnLinux(ca)
            }
            #endif
            // `localhost`, not 127.0.0.1: what apps use, and a name the certificate covers.
            return CheckEndpoint(baseURL: URL(string: "https://localhost:\(address.port)")!, server: server, registration: nil,
                                 lease: lease, trust: LocalCATrust(ca))
        case .inProcess:
            let registration = try await MockURLProtocol.register(engine, requestTimeout: requestTimeout)
            return CheckEndpoint(baseURL: registration.baseURL, server: nil, registration: registration, lease: nil)
        }
    }

    func sessionConfiguration(timeout: TimeInterval) -> URLSessionConfiguration {
        if let registration { return registration.sessionConfiguration(timeout: timeout) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = timeout
        return configuration
    }

    /// A session reaching this endpoint as a provider's would (trusting the CA over HTTPS).
    func session(timeout: TimeInterval) -> URLSession {
        URLSession(configuration: sessionConfiguration(timeout: timeout), delegate: trust, delegateQueue: nil)
    }

    func stop() async {
        await server?.stop()
        lease?.release()
        await registration?.unregister()
    }
}

/// Why `.secureSockets` cannot run here.
public enum SecureSocketsError: Error, CustomStringConvertible {
    /// The suite has no HTTPS to serve with (`SuiteConfiguration.tls` is nil).
    case noTLS
    /// URLSession on Linux trusts the system store only, which does not hold this CA.
    case untrustedOnLinux(CACertificate)

    /// What is missing, and on Linux how to trust the CA.
    public var description: String {
        switch self {
        case .noTLS:
            return "`.secureSockets` serves HTTPS, which comes with the MockServerTLS product: add it to the test target, "
                + "`import MockServerTLS`, and set `SuiteConfiguration.tls` (for example `TLSSettings()`)"
        case .untrustedOnLinux(let ca):
            return "URLSession on Linux trusts only the system store, which does not hold the local CA \(ca.file.path): "
                + "run `mock-server ca --trust-system --ca-dir \(ca.file.deletingLastPathComponent().path)` once, as root"
        }
    }
}

import BuiltInMockAPIs
import Foundation
import Logging
import MockCore
import MockFixtures
import MockServer

/// One test's own mock server: port 0 on loopback, its engine, journal and expectations.
/// The Swift Testing trait (`.mockServer(...)` in ContractTestsTesting) and the XCTest base
/// class (`MockServerTestCase` in ContractTestsXCTest) start one per test and stop it after.
public final class TestMockServer: Sendable {
    /// The engine the server answers from: scenarios, state and journal.
    public let engine: MockEngine
    /// The server, listening on loopback.
    public let server: MockHTTPServer
    /// `http://127.0.0.1:PORT`.
    public let baseURL: URL

    /// Starts a server playing `scenario` in `variants` (names as `--variant` takes them),
    /// from `fixtures` (the built-in ones when nil), serving the built-in APIs and `apis`.
    public static func start(scenario: String = Scenario.happyPath.name, variants: [String] = [],
                             fixtures: URL? = nil, scenarios: [Scenario] = [], network: NetworkProfile? = nil,
                             apis: [any MockAPI] = []) async throws -> TestMockServer {
        let fixtures = fixtures ?? MockFixtures.directory
        let served = BuiltInAPIs.all + apis
        let selection = try VariantSelection.parse(variants, apis: served)
        let engine = try MockEngine(configuration: EngineConfiguration(
            fixturesDirectory: fixtures, apis: served, variants: selection.chosen,
            journalResponseBodyLimit: 64 * 1024, extraScenarios: scenarios, scenario: scenario,
            preloaded: try Self.preloaded(fixtures, apis: served), network: network))
        var logger = Logger(label: "mock-server.test")
        logger.logLevel = .warning
        // A loop of its own (`ServerLoops`): tests beside this one do not hold its answers.
        let started = try await ServerLoops.shared.start { MockHTTPServer(engine: engine, group: $0, logger: logger) }
        return TestMockServer(engine: engine, server: started.server, baseURL: started.address.url, lease: started.lease)
    }

    /// The fixtures and scenario files of `fixtures`, read once per process and shared
    /// read-only: every engine builds its own state from them, so a test's server costs no
    /// file reads. (Tests do not edit fixture files while they run; `--watch` is for that.)
    /// Keyed by the folder and the APIs' names: a test's own API is read once too.
    static func preloaded(_ fixtures: URL, apis: [any MockAPI] = BuiltInAPIs.all) throws -> Preloaded {
        let key = fixtures.standardizedFileURL.path + "\u{0}" + apis.map(\.name).joined(separator: ",")
        if let cached = loaded.withLock({ $0[key] }) { return cached }
        let fresh = try Preloaded.load(EngineConfiguration(fixturesDirectory: fixtures, apis: apis))
        return loaded.withLock { loaded in
            if let cached = loaded[key] { return cached }
            // Bounded: one entry per fixtures folder a test names.
            if loaded.count >= 32 { loaded.removeAll() }
            loaded[key] = fresh
            return fresh
        }
    }

    private static let loaded = Locked([String: Preloaded]())

    private let lease: ServerLoops.Lease

    init(engine: MockEngine, server: MockHTTPServer, baseURL: URL, lease: ServerLoops.Lease) {
        self.engine = engine
        self.server = server
        self.baseURL = baseURL
        self.lease = lease
    }

    /// A server dropped without `stop()` (or stopped through `server`) gives its loop
    /// back here; the lease gives it back once.
    deinit { lease.release() }

    /// Stops the server, then gives its loop back.
    public func stop() async {
        await server.stop()
        lease.release()
    }

    /// Every request the server saw (`engine.journal`).
    public var journal: Journal { engine.journal }
    /// Counts, order and content of what the server saw, with timeouts.
    public var expectations: ServerExpectations { ServerExpectations(journal: engine.journal) }

    /// An absolute URL on this server: `url("/menu?category=soups")`.
    public func url(_ path: String) -> URL { URL(string: baseURL.absoluteString + path)! }

    /// Switches to another scenario (server-wide, or for one `X-Mock-Session`).
    public func use(_ scenario: String, session: String? = nil) throws {
        try engine.scenarios.select(scenario, session: session)
    }

    /// Sends what follows through a network profile (nil: none): server-wide, or for one
    /// `X-Mock-Session`. A single request can name one in an `X-Mock-Network` header.
    public func use(network profile: NetworkProfile?, session: String? = nil) {
        engine.network.set(profile, session: session)
    }

    /// Each request the server saw that breaks its API's OpenAPI document (as played, for
    /// its variants), one line each: the request, then every violation's path and reason.
    /// The server answered them as the real one would; this is what the trait and
    /// `MockServerTestCase` report.
    public var requestViolations: [String] {
        engine.journal.entries().compactMap { event in
            let violations = event.violations   // worked out from the kept request: asked once
            guard !violations.isEmpty else { return nil }
            return "request #\(event.id) \(event.request.method) \(event.request.asRequest.uri) breaks the API's OpenAPI document: "
                + violations.map(\.description).joined(separator: "; ")
        }
    }

    /// The last `limit` requests the server saw and how it answered each, one line each:
    /// what a failing test shows.
    public func journalExcerpt(limit: Int = 50) -> String {
        let entries = engine.journal.entries()
        guard !entries.isEmpty else { return "mock-server at \(baseURL.absoluteString) saw no request" }
        let shown = entries.suffix(limit)
        var lines = ["mock-server at \(baseURL.absoluteString) saw \(entries.count) request\(entries.count == 1 ? "" : "s")"
                     + (entries.count > shown.count ? ", the last \(shown.count):" : ":")]
        lines += shown.map { "  #\($0.id) \($0.summary)" }
        return lines.joined(separator: "\n")
    }
}

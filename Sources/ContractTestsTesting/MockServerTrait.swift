import ContractTests
import Foundation
import MockCore
import Testing

/// The server of the running test, set by the `.mockServer(...)` trait.
///
///     @Test(.mockServer(scenario: "flaky", variants: ["community"]))
///     func menuLoadsDespiteFlakiness() async throws {
///         let controller = MenuController(baseURL: MockServer.current.baseURL)
///         _ = try await controller.fetchCategories()
///         try await MockServer.current.expectations.expect(.get("/categories"), .atLeast(1))
///     }
///
/// (This type shadows the `MockServer` module's name where both are imported; write that
/// module's types unqualified, `MockHTTPServer`, not `MockServer.MockHTTPServer`.)
public enum MockServer {
    @TaskLocal static var running: TestMockServer?

    /// The server of the running test; only inside a test (or suite) with `.mockServer(...)`.
    public static var current: TestMockServer {
        guard let running else {
            preconditionFailure("MockServer.current is set inside a test with the .mockServer(...) trait (on the test or its suite)")
        }
        return running
    }

    /// The server of the running test, or nil outside one with the trait.
    public static var currentIfAny: TestMockServer? { running }
}

/// Gives each test (each case of a parameterized test, each test of a suite) its own mock
/// server on port 0, stopped after the test. With Swift 6.2 or later, when the test
/// records an issue, each issue gets the requests the server had seen by then, and the
/// test gets the whole journal excerpt as an attachment (`mock-server-journal.txt`); with
/// Swift 6.1 a test that throws gets the journal as an issue.
public struct MockServerTrait: TestTrait, SuiteTrait, TestScoping {
    /// The scenario each test's server starts in.
    public let scenario: String
    /// The variants played, as `--variant` names them (`community`, `openmarket-2022-late`).
    public let variants: [String]
    /// The fixtures folder; nil serves the built-in fixtures.
    public let fixtures: URL?
    /// Scenarios built in Swift, selectable beside the fixtures folder's.
    public let scenarios: [Scenario]
    /// The network profile every request goes through (`.threeG`, `.edge`, …), if any.
    public let network: NetworkProfile?
    /// Whether each request that breaks its API's OpenAPI document is reported as an issue
    /// (the server still answers it as the real one would).
    public let checksRequests: Bool
    /// Where the test's Pact goes (merged with the run's other tests'), if anywhere.
    public let pact: PactRecording?
    /// APIs served beside the built-in ones (`MockAPI`).
    public var apis: [any MockAPI] = []
    /// Hosts whose requests the test's server answers in process, from clients left as
    /// they are (`TestMockServer.intercept(_:)`).
    public var intercepting: [String] = []

    /// On a suite, every test in it gets its own server.
    public var isRecursive: Bool { true }

    /// Starts a server for each test case, runs it with that server current, then stops it
    /// and reports the journal with any issue the test recorded.
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        // One server per test case: the suite and the whole-function scopes pass through.
        // A test's own trait runs inside its suite's and wins: its server is the current one.
        guard !test.isSuite, testCase != nil else {
            try await function()
            return
        }
        let server = try await TestMockServer.start(scenario: scenario, variants: variants, fixtures: fixtures, scenarios: scenarios, network: network,
                                                    apis: apis)
        // Taken here, in the test's own scope: a test waits only for tests intercepting one
        // of its hosts, and gives them back however it ends. The test runs in the
        // interception's scope, so its own trait inside its suite's, or `intercepting` in
        // its body, takes a host it holds already without waiting for itself.
        let interception: HostInterception
        do {
            interception = try await server.intercept(intercepting)
        } catch {
            await server.stop()
            throw error
        }
        #if compiler(>=6.2)
        // Issue handling traits and attachments are Swift 6.2 (Xcode 26).
        let failed = FailureFlag()
        let annotating = IssueHandlingTrait.compactMapIssues { issue in
            failed.set()
            var issue = issue
            issue.comments.append(Comment(rawValue: server.journalExcerpt(limit: 20)))
            return issue
        }
        do {
            try await MockServer.$running.withValue(server) {
                try await interception.inScope {
                    try await annotating.provideScope(for: test, testCase: testCase, performing: function)
                }
            }
        } catch {
            Attachment.record(server.journalExcerpt(limit: 500), named: "mock-server-journal.txt")
            reportViolations(of: server)
            interception.end()
            await server.stop()
            throw error
        }
        if failed.isSet { Attachment.record(server.journalExcerpt(limit: 500), named: "mock-server-journal.txt") }
        // A failed test's interactions are no contract.
        let passed = !failed.isSet
        #else
        // Swift 6.1 (Xcode 16.3, 16.4) can neither annotate issues nor attach files: each
        // test still gets its own server, and a test that throws gets the journal as an
        // issue of its own.
        do {
            try await MockServer.$running.withValue(server) {
                try await interception.inScope { try await function() }
            }
        } catch {
            Issue.record(Comment(rawValue: "The mock server saw:\n" + server.journalExcerpt(limit: 50)))
            reportViolations(of: server)
            interception.end()
            await server.stop()
            throw error
        }
        let passed = true   // a test that throws has thrown; one that records an issue cannot be told here
        #endif
        // Requests that break the document fail the test, so they are not written as a contract.
        if reportViolations(of: server) == 0 && passed { recordPact(of: server) }
        interception.end()
        await server.stop()
    }

    /// The test's interactions into its Pact file, when asked; a file that cannot be
    /// written is an issue.
    private func recordPact(of server: TestMockServer) {
        guard let pact else { return }
        do {
            try pact.record(server.journal.entries())
        } catch {
            Issue.record(Comment(rawValue: "cannot write the Pact \(pact.file.path): \(error)"))
        }
    }

    /// One issue per request that broke its API's document, unless turned off; how many.
    @discardableResult
    private func reportViolations(of server: TestMockServer) -> Int {
        guard checksRequests else { return 0 }
        let lines = server.requestViolations
        for line in lines {
            Issue.record(Comment(rawValue: line + " (pass checksRequests: false to .mockServer to allow it)"))
        }
        return lines.count
    }
}

extension Trait where Self == MockServerTrait {
    /// A mock server of its own for the test (or for each test of the suite), playing the
    /// happy path of the built-in fixtures: `.mockServer()` with every default.
    ///
    ///     @Test(.mockServer) func menuLoads() async throws { … }
    ///     @Suite(.mockServer) struct MenuTests { … }
    public static var mockServer: Self { mockServer() }

    /// A mock server of its own for the test (or for each test of the suite), playing
    /// `scenario` in `variants` (names as `--variant` takes them: `community`,
    /// `openmarket-2022-late`, …), from `fixtures` (the built-in ones by default), with
    /// `scenarios` built in Swift besides the shipped ones, over the `network` profile
    /// (Network Link Conditioner's presets: `.edge`, `.threeG`, `.lte`, `.veryBadNetwork`, …).
    /// Each request the test sends that breaks its API's OpenAPI document (a misspelt
    /// query name, a missing header, a body of the wrong shape) is reported as an issue,
    /// even where the server, like the real one, answers it anyway; pass
    /// `checksRequests: false` for a test that sends such a request on purpose. With
    /// `pact`, the interactions the test made go into that Pact file (`PactRecording`).
    /// `apis` are served beside the built-in APIs (a `MockAPI` of the test's own).
    ///
    /// With `intercepting`, requests to those hosts (`market-training.yagom-academy.kr`, or
    /// `localhost:8080` for one port) are answered by the test's server in process, though
    /// the client calls its real URL through `URLSession.shared` or a session made from
    /// `URLSessionConfiguration.default` or `.ephemeral` (on Linux, `URLSession.shared`
    /// only): `TestMockServer.intercept(_:)`. Interception is process-wide: tests that
    /// intercept the same host run one at a time, and while one does, requests to that
    /// host from any test reach its server. Tests that intercept other hosts, or none, run
    /// beside it as before. A test may intercept a host its suite's trait intercepts too
    /// (or call `intercepting` for it): the innermost server answers it.
    public static func mockServer(scenario: String = Scenario.happyPath.name, variants: [String] = [],
                                  fixtures: URL? = nil, scenarios: [Scenario] = [], network: NetworkProfile? = nil,
                                  checksRequests: Bool = true, pact: PactRecording? = nil, apis: [any MockAPI] = [],
                                  intercepting: [String] = []) -> Self {
        // Installed as the test is declared: Swift Testing makes a test's traits while it
        // finds the tests, before any runs, so configurations a client obtains before the
        // test starts take part as well.
        if !intercepting.isEmpty { TestMockServer.prepareInterception() }
        return MockServerTrait(scenario: scenario, variants: variants, fixtures: fixtures, scenarios: scenarios, network: network,
                               checksRequests: checksRequests, pact: pact, apis: apis, intercepting: intercepting)
    }
}

/// Set once an issue is recorded in the test's scope.
final class FailureFlag: Sendable {
    private let flag = Locked(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.current }
}

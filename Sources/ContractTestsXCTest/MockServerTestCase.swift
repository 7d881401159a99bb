import ContractTests
import Foundation
import MockCore
import XCTest

/// An `XCTestCase` whose every test gets its own mock server on port 0, started in
/// `setUp` and stopped in `tearDown`; override `mockScenario` and `mockVariants` to choose
/// what it plays. When a test fails, the requests the server saw are attached (on Apple
/// platforms; on Linux, where XCTest has no attachments, they are in
/// `mockServer.journalExcerpt()`).
///
///     nonisolated final class MenuTests: MockServerTestCase {
///         override var mockVariants: [String] { ["community"] }
///         func testCategories() async throws {
///             let controller = MenuController(baseURL: mockServer.baseURL)
///             _ = try await controller.fetchCategories()
///             try await mockServer.expectations.expect(.get("/categories"), .exactly(1))
///         }
///     }
///
/// The class and its overridable properties are nonisolated, as `XCTestCase` is: in a
/// target whose default actor isolation is MainActor, declare a subclass `nonisolated`
/// (as above), since a main-actor subclass can override neither these properties nor
/// `XCTestCase`'s initializers.
open class MockServerTestCase: XCTestCase {
    /// The scenario each test starts in.
    open var mockScenario: String { Scenario.happyPath.name }
    /// The API variants (names as `--variant` takes them).
    open var mockVariants: [String] { [] }
    /// A fixtures folder; nil for the built-in one.
    open var mockFixtures: URL? { nil }
    /// The network profile every request goes through (`.threeG`, `.edge`, …); nil for none.
    open var mockNetwork: NetworkProfile? { nil }
    /// Whether each request that breaks its API's OpenAPI document fails the test (the
    /// server still answers it as the real one would); override with false for a test
    /// that sends such a request on purpose.
    open var mockChecksRequests: Bool { true }
    /// Where each test's Pact goes (merged with the run's other tests'); nil for none.
    open var mockPact: PactRecording? { nil }
    /// APIs served beside the built-in ones (a `MockAPI` of the tests' own).
    open var mockAPIs: [any MockAPI] { [] }
    /// Hosts whose requests each test's server answers in process, though the client calls
    /// its real URL (`market-training.yagom-academy.kr`, or `localhost:8080` for one port):
    /// `TestMockServer.intercept(_:)`. Tests that intercept the same host run one at a time,
    /// and while one does, requests to that host from any test reach its server. The hosts
    /// are taken in `setUp` and given back in `tearDown`, as the test's own (see
    /// `invokeTest()`): the test method may intercept one of them again
    /// (`intercepting(_:isolation:_:)`) without waiting for itself, and that server answers
    /// until its scope ends.
    open var mockIntercepting: [String] { [] }

    /// This test's server (set between `setUp` and `tearDown`).
    public private(set) var mockServer: TestMockServer!
    /// This test's interception of `mockIntercepting`, ended in `tearDown`.
    private var mockInterception: HostInterception?

    /// Runs the test (`setUp`, the test method, `tearDown`) as one test for interception:
    /// a host this test intercepts, in any of them or in a task they start with `Task {}`
    /// or a task group, is taken again at once wherever else the test intercepts it, while
    /// other tests wait for it. `Task.detached`, and tasks started from a callback, are not
    /// the test. An override calls `super.invokeTest()` to keep this.
    open override func invokeTest() {
        HostInterception.asOneTest { super.invokeTest() }
    }

    open override func setUp() async throws {
        try await super.setUp()
        let server = try await TestMockServer.start(scenario: mockScenario, variants: mockVariants, fixtures: mockFixtures, network: mockNetwork,
                                                    apis: mockAPIs)
        mockServer = server
        mockInterception = try await server.intercept(mockIntercepting)
    }

    open override func tearDown() async throws {
        var violations = 0
        if let mockServer, mockChecksRequests {
            let lines = mockServer.requestViolations
            for line in lines { XCTFail(line + " (override mockChecksRequests to allow it)") }
            violations = lines.count
        }
        // A failed test's interactions are no contract.
        if let mockServer, let pact = mockPact, violations == 0, testRun?.hasSucceeded ?? true {
            do { try pact.record(mockServer.journal.entries()) } catch { XCTFail("cannot write the Pact \(pact.file.path): \(error)") }
        }
        if let mockServer {
            #if canImport(Darwin)
            if let run = testRun, !run.hasSucceeded {
                let attachment = XCTAttachment(string: mockServer.journalExcerpt(limit: 500))
                attachment.name = "mock-server-journal.txt"
                attachment.lifetime = .keepAlways
                add(attachment)
            }
            #endif
            mockInterception?.end()
            await mockServer.stop()
        }
        mockInterception = nil
        mockServer = nil
        try await super.tearDown()
    }
}

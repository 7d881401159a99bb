import ContractTests
import ContractTestsTesting
import Foundation
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Tests in the style users copy: a trait gives each test its own mock server (#16).

/// The body and status of a GET on the running test's server.
private func get(_ path: String) async throws -> (Data, Int) {
    let (data, response) = try await URLSession.shared.data(from: MockServer.current.url(path))
    return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
}

@Suite struct MockServerTraitTests {
    @Test(.mockServer())
    func aTestGetsItsOwnServer() async throws {
        let (data, status) = try await get("/categories")
        #expect(status == 200)
        #expect(JSONValue(parsing: data)?["categories"]?.arrayValue?.count == 6)
        try await MockServer.current.expectations.expect(.get("/categories"), .exactly(1))
    }

    @Test(.mockServer(scenario: "server-errors"))
    func theScenarioIsPlayed() async throws {
        let (_, status) = try await get("/menu?category=soups")
        #expect(status == 500)
    }

    @Test(.mockServer(variants: ["community"]))
    func theVariantIsPlayed() async throws {
        let (data, _) = try await get("/categories")
        #expect(JSONValue(parsing: data)?["categories"]?.arrayValue?.first?["name"] == "appetizers")
    }

    /// Each case of a parameterized test has a server of its own: nothing from another case.
    @Test(.mockServer(), arguments: [1, 2, 3])
    func eachCaseHasItsOwnServer(requests: Int) async throws {
        #expect(MockServer.current.journal.entries().isEmpty)
        for _ in 0..<requests { _ = try await get("/categories") }
        try await MockServer.current.expectations.expect(.get("/categories"), .exactly(requests))
    }

    /// Network Link Conditioner's Edge preset for one test: every answer waits at least
    /// its round trip (0.84 s), and the journal says which profile it went through.
    @Test(.mockServer(network: .edge))
    func aSlowNetworkForOneTest() async throws {
        let start = Date()
        let (_, status) = try await get("/categories")
        #expect(status == 200)
        #expect(Date().timeIntervalSince(start) >= NetworkProfile.edge.roundTrip)
        #expect(MockServer.current.journal.entries().last?.network == "Edge")
    }

    #if compiler(>=6.2)
    /// A failing test's issues carry the requests the server saw by then (Swift 6.2's
    /// issue handling). The issue is caught by an outer handler, after the trait's, and
    /// kept from failing this test.
    @Test func anIssueCarriesTheJournal() async throws {
        let test = try #require(Test.current)
        let seen = Locked<[String]>([])
        let catching = IssueHandlingTrait.compactMapIssues { issue in
            seen.withLock { $0 += issue.comments.map(\.rawValue) }
            return nil
        }
        try await catching.provideScope(for: test, testCase: Test.Case.current) {
            try await MockServerTrait.mockServer().provideScope(for: test, testCase: Test.Case.current) {
                _ = try await get("/menu?category=soups")
                Issue.record("the app showed no soup")
            }
        }
        #expect(seen.current.contains { $0.contains("GET /menu?category=soups → 200") }, "\(seen.current)")
    }

    /// A request that breaks its API's document is an issue of the test, naming the
    /// request, the path in it and why, though the server answered it (#23).
    @Test func aRequestThatBreaksTheDocumentIsAnIssue() async throws {
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await MockServerTrait.mockServer().provideScope(for: test, testCase: Test.Case.current) {
                let (_, status) = try await get("/menu?categroy=soups")
                #expect(status == 200)
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("GET /menu?categroy=soups breaks the API's OpenAPI document: $.query.categroy: a query parameter the document does not have") }
        }
    }
    #endif

    /// A test that sends such a request on purpose turns the check off.
    @Test(.mockServer(checksRequests: false))
    func aTestMayAllowRequestsThatBreakTheDocument() async throws {
        let (_, status) = try await get("/menu?categroy=soups")
        #expect(status == 200)
        #expect(MockServer.current.requestViolations.count == 1)
    }
}

/// On a suite, every test gets its own server.
@Suite(.mockServer(variants: ["openmarket-2022-late"]))
struct MockServerSuiteTraitTests {
    @Test func aPageInTheSuitesVariant() async throws {
        let (data, status) = try await get("/api/products?page_no=1&items_per_page=2")
        #expect(status == 200)
        #expect(JSONValue(parsing: data)?["pageNo"] == 1)
    }

    /// A test's own trait wins over its suite's.
    @Test(.mockServer(scenario: "server-errors"))
    func aTestsOwnTraitWins() async throws {
        let (_, status) = try await get("/api/products?page_no=1&items_per_page=2")
        #expect(status == 500)
    }

    @Test func anotherTestStartsFromAFreshJournal() async throws {
        #expect(MockServer.current.journal.entries().isEmpty)
        _ = try await get("/healthChecker")
        #expect(MockServer.current.journal.entries().count == 1)
    }
}

/// The spellings users try first: the trait without parentheses, on a test and on a suite,
/// is `.mockServer()` with every default (the happy path of the built-in fixtures).
@Suite(.mockServer)
struct MockServerTraitWithoutParenthesesTests {
    @Test func aSuiteWithoutParenthesesGivesEachTestItsServer() async throws {
        #expect(MockServer.current.journal.entries().isEmpty)
        let (data, status) = try await get("/categories")
        #expect(status == 200)
        #expect(JSONValue(parsing: data)?["categories"]?.arrayValue?.count == 6)
        try await MockServer.current.expectations.expect(.get("/categories"), .exactly(1))
    }

    @Test(.mockServer)
    func aTestWithoutParenthesesGetsItsOwnServer() async throws {
        #expect(MockServer.current.journal.entries().isEmpty)
        let (_, status) = try await get("/menu?category=soups")
        #expect(status == 200)
        #expect(MockServer.current.journal.entries().count == 1)
    }
}

/// `.mockServer` is the same trait as `.mockServer()`.
@Test func theTraitWithoutParenthesesHasTheDefaults() {
    let bare: MockServerTrait = .mockServer, called: MockServerTrait = .mockServer()
    #expect(bare.scenario == called.scenario && bare.scenario == Scenario.happyPath.name)
    #expect(bare.variants.isEmpty && bare.fixtures == nil && bare.scenarios.isEmpty && bare.network == nil)
    #expect(bare.checksRequests && bare.pact == nil)
}

import ContractTests
import ContractTestsTesting
import ContractTestsXCTest
import Foundation
import MockFixtures
import MockServer
import BuiltInMockAPIs
import MockCore
import Testing
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The expectations API used on its own, the way a user writes a check test-first.
@Suite struct ExpectationsTests {
    func withServer(_ body: (URL, ServerExpectations) async throws -> Void) async throws {
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory))
        let server = MockHTTPServer(engine: engine)
        let address = try await server.start()
        do { try await body(address.url, ServerExpectations(journal: engine.journal)) } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        return URLSession(configuration: configuration)
    }()

    func get(_ base: URL, _ path: String) async throws {
        _ = try await Self.session.data(from: URL(string: base.absoluteString + path)!)
    }

    @Test func countsOrderAndContent() async throws {
        try await withServer { base, expectations in
            try await get(base, "/categories")
            try await get(base, "/menu?category=soups")
            try await get(base, "/menu?category=salads")
            try await expectations.expect(.get("/categories"), .exactly(1))
            try await expectations.expect(.get("/menu"), .atLeast(2))
            try await expectations.expect(.get("/menu"), .atMost(2))
            try await expectations.expect(.post("/order"), .never)
            try await expectations.expect(RequestPattern(method: "GET", path: "/menu", query: ["category": .equalTo("soups")]))
            try await expectations.expectInOrder([.get("/categories"), .get("/menu"), .get("/menu")])
        }
    }

    @Test func waitsForRequestsThatArriveLater() async throws {
        try await withServer { base, expectations in
            // The request goes out after `expect` has started waiting. The timeout is generous
            // because a loaded 2-core machine can hold the late task back for seconds; a pass
            // returns as soon as the request lands, and an `expect` that did not wait fails at once.
            async let late: Void = {
                try await Task.sleep(nanoseconds: 200_000_000)
                try await get(base, "/categories")
            }()
            let seen = try await expectations.expect(.get("/categories"), .exactly(1), timeout: 60)
            #expect(seen.first?.status == 200)
            try await late   // its failure is this test's failure, not lost in a detached task
        }
    }

    /// Each form of expectation fails when the server saw otherwise, saying what it saw.
    @Test func everyFormFailsWithWhatTheServerSaw() async throws {
        try await withServer { base, expectations in
            try await get(base, "/menu?category=soups")
            try await get(base, "/categories")
            let failing: [(String, @Sendable () async throws -> Void)] = [
                ("exactly", { try await expectations.expect(.get("/menu"), .exactly(2), timeout: 0.2) }),
                ("atLeast", { try await expectations.expect(.get("/categories"), .atLeast(3), timeout: 0.2) }),
                ("atMost", { try await expectations.expect(RequestPattern(path: "/**"), .atMost(1)) }),
                ("never", { try await expectations.expect(.get("/categories"), .never) }),
                ("content", { try await expectations.expect(RequestPattern(method: "GET", path: "/menu", query: ["category": .equalTo("salads")]), timeout: 0.2) }),
                ("order", { try await expectations.expectInOrder([.get("/categories"), .get("/menu")], timeout: 0.2) }),
            ]
            for (name, expectation) in failing {
                do {
                    try await expectation()
                    Issue.record("the \(name) expectation did not fail")
                } catch let violation as ContractViolation {
                    #expect(violation.description.contains("server saw:"), "\(name)")
                    #expect(violation.description.contains("GET /menu?category=soups → 200"), "\(name): \(violation)")
                }
            }
        }
    }
}

/// A check written by a user with the same building blocks as the shipped ones, added to
/// the shipped suite (this is the README's example).
@Suite struct UserWrittenCheckTests {
    static let ordersOnlyAfterBrowsing = RestaurantContract.Check(
        "my-app.orders-after-browsing", .required, "the order flow loads the menu before it orders"
    ) { run in
        _ = try await run.provider.menuItems(category: "entrees")
        _ = try await run.provider.submitOrder(menuIDs: [1, 2])
        try await run.expectations.expectInOrder([.get("/menu"), .post("/order")])
        try await run.expectations.expect(RequestPattern(method: "POST", path: "/order", body: .jsonEqualTo(["menuIds": [1, 2]])), .exactly(1))
    }

    @Test func passesOnTheReferenceProvider() async {
        let suite = RestaurantContract.suite(configuration()).only(["restaurant.order"]).adding(Self.ordersOnlyAfterBrowsing)
        let report = await suite.run { ReferenceRestaurantProvider(context: $0) }
        #expect(report.result("my-app.orders-after-browsing")?.passed == true, "\(report)")
        #expect(report.results.count == 5)   // restaurant.order.request, .decoding, .errors, .no-retry + the user's
        expectContract(report)
    }

    @Test func failsOnAProviderThatOrdersWithoutTheMenu() async {
        struct OrdersBlind: RestaurantProvider {
            let reference: ReferenceRestaurantProvider
            func categories() async throws -> [String] { try await reference.categories() }
            func menuItems(category: String) async throws -> [RestaurantItem] { [] }   // skips the network
            func submitOrder(menuIDs: [Int]) async throws -> Int { try await reference.submitOrder(menuIDs: menuIDs) }
            func imageData(from url: URL) async throws -> Data { try await reference.imageData(from: url) }
        }
        let suite = RestaurantContract.suite(configuration()).only([]).adding(Self.ordersOnlyAfterBrowsing)
        let report = await suite.run { OrdersBlind(reference: ReferenceRestaurantProvider(context: $0)) }
        let failure = report.result("my-app.orders-after-browsing")
        #expect(failure?.passed == false)
        #expect(failure?.message?.contains("only the first 0 arrived in that order; missing GET /menu") == true, "\(report)")
    }
}

@Suite struct ReportTests {
    @Test func junitXMLIsWellFormedAndCountsFailures() async throws {
        let suite = RestaurantContract.suite(configuration()).only(["restaurant.categories"])
        let report = await suite.run { BrokenRestaurantProvider(.sortsCategories, context: $0) }
        let xml = report.junitXML()
        #expect(xml.contains("<testsuite name=\"Restaurant (original)\" tests=\"3\" failures=\"1\" errors=\"0\""))
        #expect(xml.contains("<testcase classname=\"Restaurant (original).required\" name=\"restaurant.categories.decoding\""))
        #expect(xml.contains("<failure message="))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString).xml")
        try report.writeJUnit(to: url)
        let parser = XMLParser(data: try Data(contentsOf: url))
        #expect(parser.parse(), "the JUnit file must be well-formed XML")
        #expect(report.description.contains("✘ restaurant.categories.decoding (required)"))
        #expect(report.description.contains("2 of 3 checks passed"))
    }
}

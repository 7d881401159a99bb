import ContractTests
import ContractTestsXCTest
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The XCTest glue from a real XCTestCase: a report with only passing checks adds no
/// failure. (XCTest on Linux has no XCTExpectFailure, so the failing side is shown
/// through the Swift Testing glue's twin, which records one issue per failing check.)
final class XCTestGlueTests: XCTestCase {
    func testAPassingSuiteAddsNoFailure() async {
        let report = await RestaurantContract.suite(configuration()).only(["restaurant.categories"]).run {
            ReferenceRestaurantProvider(context: $0)
        }
        XCTAssertEqual(report.results.count, 3)
        XCTAssertTrue(report.passed, "\(report)")
        XCTAssertContract(report)
    }
}

/// The XCTest way to a server per test (#16): subclass `MockServerTestCase`.
final class MockServerTestCaseTests: MockServerTestCase {
    override var mockVariants: [String] { ["community"] }

    func testEachTestHasItsOwnServerInTheVariant() async throws {
        XCTAssertTrue(mockServer.journal.entries().isEmpty)
        let (data, _) = try await URLSession.shared.data(from: mockServer.url("/categories"))
        let first = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])["categories"] as? [[String: Any]]
        XCTAssertEqual(first?.first?["name"] as? String, "appetizers")
        try await mockServer.expectations.expect(.get("/categories"), .exactly(1))
        XCTAssertTrue(mockServer.journalExcerpt().contains("GET /categories → 200"))
    }

    func testAnotherTestStartsAfresh() async throws {
        XCTAssertTrue(mockServer.journal.entries().isEmpty)
        try mockServer.use("server-errors")
        let (_, response) = try await URLSession.shared.data(from: mockServer.url("/menu"))
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 500)
    }
}

/// The first spelling users try: a subclass with no overrides, whose every test (async or
/// not) gets its own server playing the happy path of the built-in fixtures.
final class PlainMockServerTestCaseTests: MockServerTestCase {
    func testASubclassWithNoOverridesServesTheHappyPath() async throws {
        XCTAssertTrue(mockServer.journal.entries().isEmpty)
        let (data, response) = try await URLSession.shared.data(from: mockServer.url("/categories"))
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        let categories = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])["categories"] as? [String]
        XCTAssertEqual(categories?.first, "appetizers")
        try await mockServer.expectations.expect(.get("/categories"), .exactly(1))
    }

    func testASynchronousTestGetsItsServerToo() throws {
        let server = try XCTUnwrap(mockServer)
        XCTAssertEqual(server.baseURL.host, "127.0.0.1")
        XCTAssertNotEqual(server.baseURL.port ?? 0, 0)
        XCTAssertTrue(server.journal.entries().isEmpty)
    }
}

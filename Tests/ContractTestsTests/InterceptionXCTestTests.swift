import ContractTests
import ContractTestsXCTest
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `MockServerTestCase` intercepts too: `mockIntercepting` names the hosts.
final class MockServerTestCaseInterceptionTests: MockServerTestCase {
    override var mockIntercepting: [String] { ["market-training.yagom-academy.kr"] }

    func testTheSharedSessionGetsTheMocksPage() async throws {
        let url = try XCTUnwrap(URL(string: "https://market-training.yagom-academy.kr/api/products?page_no=1&items_per_page=2"))
        let (data, response) = try await URLSession.shared.data(from: url)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        let page = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual((page["pages"] as? [Any])?.count, 2)
        try await mockServer.expectations.expect(.get("/api/products"), .exactly(1))
    }
}

/// A `MockServerTestCase` test is one test from `setUp` to `tearDown`: its method takes a
/// host that `setUp` took for it again at once, and the inner server answers.
final class MockServerTestCaseNestedInterceptionTests: MockServerTestCase {
    static let host = "held-by-a-test-case.invalid"
    override var mockIntercepting: [String] { [Self.host] }

    func testTheTestMethodInterceptsAHostItsSetUpTookWithoutWaitingForItself() async throws {
        let outer = try XCTUnwrap(mockServer)
        let inner = try await TestMockServer.start()
        let url = try XCTUnwrap(URL(string: "http://\(Self.host)/categories"))
        try await bounded("intercepting the test's own host") {
            try await inner.intercepting([Self.host]) { _ = try await URLSession.shared.data(from: url) }
        }
        XCTAssertEqual(inner.journal.entries().count, 1)
        _ = try await URLSession.shared.data(from: url)
        XCTAssertEqual(outer.journal.entries().count, 1)
        await inner.stop()
    }
}

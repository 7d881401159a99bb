import ContractTestsTesting
import Foundation
import OrderAppNetworking
import Scenarios
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Ordinary app tests: each test gets a mock server of its own (`.mockServer(...)` on the
/// suite or the test), points a `MenuController` at it, and checks both what came back and
/// what the server saw.
@Suite(.mockServer())
struct MenuControllerTests {
    /// A controller on this test's server, with a session of its own (no cache shared between tests).
    let controller = MenuController(baseURL: MockServer.current.baseURL, session: URLSession(configuration: .ephemeral))

    @Test func categoriesComeInTheServersOrder() async throws {
        let categories = try await controller.fetchCategories()

        #expect(categories == ["appetizers", "salads", "soups", "entrees", "desserts", "sandwiches"])
        try await MockServer.current.expectations.expect(.get("/categories"), .exactly(1))
    }

    @Test func menuItemsOfOneCategory() async throws {
        let soups = try await controller.fetchMenuItems(forCategory: "soups")

        #expect(soups.map(\.name) == ["Chicken Noodle Soup"])
        #expect(soups.first?.price == 3.5)
        #expect(soups.first?.imageURL == MockServer.current.url("/images/5.png"))
        try await MockServer.current.expectations.expect(
            RequestPattern(method: "GET", path: "/menu", query: ["category": .equalTo("soups")]), .exactly(1))
        // Desserts has no dishes: an empty list, not an error.
        #expect(try await controller.fetchMenuItems(forCategory: "desserts").isEmpty)
    }

    @Test func anOrderIsPostedOnceAsJSON() async throws {
        // Two spaghetti (20 min each) and a soup (5 min): Apple's server adds them up.
        let minutes = try await controller.submitOrder(forMenuIDs: [1, 1, 5])

        #expect(minutes == 45)
        try await MockServer.current.expectations.expect(
            RequestPattern(method: "POST", path: "/order", headers: ["Content-Type": .hasPrefix("application/json")],
                           body: .jsonEqualTo(["menuIds": [1, 1, 5]])),
            .exactly(1))
        try await MockServer.current.expectations.expect(.post("/order"), .exactly(1), "nothing else was posted")
    }

    @Test func anImageIsDownloadedOnce() async throws {
        let url = try #require(try await controller.fetchMenuItems(forCategory: "soups").first?.imageURL)

        let first = try await controller.fetchImage(from: url)
        let second = try await controller.fetchImage(from: url)

        #expect(!first.isEmpty && first == second)
        try await MockServer.current.expectations.expect(.get("/images/5.png"), .exactly(1), "the second load comes from the cache")
    }

    /// The shipped scenario `order-fails-then-succeeds`: `POST /order` answers 500, then 503,
    /// then succeeds. The controller surfaces each failure and never retries on its own
    /// (a retried order can be a duplicate): the user's second and third taps are the retries.
    @Test(.mockServer(scenario: "order-fails-then-succeeds"))
    func aFailedOrderIsReportedAndNotRetried() async throws {
        await #expect(throws: MenuControllerError.orderRequestFailed(status: 500)) {
            try await controller.submitOrder(forMenuIDs: [3])
        }
        try await MockServer.current.expectations.expect(.post("/order"), .exactly(1), "no automatic retry")

        await #expect(throws: MenuControllerError.orderRequestFailed(status: 503)) {
            try await controller.submitOrder(forMenuIDs: [3])
        }
        #expect(try await controller.submitOrder(forMenuIDs: [3]) == 15)
        try await MockServer.current.expectations.expect(.post("/order"), .exactly(3))
    }

    /// A scenario built in Swift: the menu is down (503), the other routes answer as usual.
    @Test(.mockServer(scenario: "menu-down", scenarios: [
        Scenario(name: "menu-down", rules: [
            Rule("menu-503", .get("/menu"), always: .status(503, json: ["error": true, "reason": "The kitchen is closed"])),
        ]),
    ]))
    func aMenuOutageIsReported() async throws {
        #expect(try await controller.fetchCategories().count == 6)
        await #expect(throws: MenuControllerError.menuItemsNotFound(status: 503)) {
            try await controller.fetchMenuItems(forCategory: "entrees")
        }
    }

    /// A broken body (the shipped `malformed-json` scenario) is an error, not an empty menu.
    @Test(.mockServer(scenario: "malformed-json"))
    func aMalformedMenuIsAnError() async throws {
        await #expect(throws: DecodingError.self) {
            try await controller.fetchMenuItems(forCategory: "entrees")
        }
    }
}

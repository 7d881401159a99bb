import Foundation
import MockFixtures
import Testing
@testable import BuiltInMockAPIs
@testable import MockCore

func makeRequest(_ method: String = "GET", _ uri: String, headers: HeaderFields = [:], body: String = "") -> MockRequest {
    MockRequest(method: method, uri: uri, headers: headers, body: Data(body.utf8), baseURL: "http://example.test:9")
}

@Suite struct PathPatternTests {
    @Test(arguments: [
        ("/menu", "/menu", [String: String]()),
        ("/menu", "/menu/", [:]),
        ("/api/products/{id}", "/api/products/17", ["id": "17"]),
        ("/api/products/{id}/{secret}", "/api/products/3/abc", ["id": "3", "secret": "abc"]),
        ("/images/{file}", "/images/a%20b.png", ["file": "a b.png"]),
        ("/images/*", "/images/1.png", [:]),
        ("/api/**", "/api/products/1/secret", [:]),
        ("/api/**", "/api", [:]),
    ])
    func matches(template: String, path: String, parameters: [String: String]) {
        #expect(PathPattern(template).match(path) == parameters)
    }

    @Test(arguments: [
        ("/menu", "/menus"),
        ("/menu", "/menu/extra"),
        ("/api/products/{id}", "/api/products"),
        ("/images/*", "/images/a/b"),
        ("/categories", "/"),
    ])
    func rejects(template: String, path: String) {
        #expect(PathPattern(template).match(path) == nil)
    }
}

@Suite struct RequestPatternTests {
    @Test func methodAndPath() {
        let pattern = RequestPattern.post("/order")
        #expect(pattern.matches(makeRequest("POST", "/order")))
        #expect(!pattern.matches(makeRequest("GET", "/order")))
        #expect(!pattern.matches(makeRequest("POST", "/orders")))
    }

    @Test func headMatchesGet() {
        #expect(RequestPattern.get("/menu").matches(makeRequest("HEAD", "/menu")))
    }

    @Test func queryMatchers() {
        let pattern = RequestPattern(method: "GET", path: "/api/products",
                                     query: ["page_no": .equalTo("2"), "items_per_page": .matches("[0-9]+"), "debug": .absent])
        #expect(pattern.matches(makeRequest("GET", "/api/products?page_no=2&items_per_page=20")))
        #expect(!pattern.matches(makeRequest("GET", "/api/products?page_no=3&items_per_page=20")))
        #expect(!pattern.matches(makeRequest("GET", "/api/products?page_no=2&items_per_page=2x")))
        #expect(!pattern.matches(makeRequest("GET", "/api/products?page_no=2&items_per_page=20&debug")))
    }

    @Test func queryValuesArePercentDecoded() {
        let request = makeRequest("GET", "/menu?category=ice%20cream&x=a+b")
        #expect(request.queryValue("category") == "ice cream")
        #expect(request.queryValue("x") == "a b")
    }

    @Test func headerMatchersAreCaseInsensitiveOnNames() {
        let pattern = RequestPattern(headers: ["identifier": .present, "Content-Type": .hasPrefix("multipart/form-data")])
        #expect(pattern.matches(makeRequest("POST", "/api/products", headers: ["Identifier": "x", "content-type": "multipart/form-data; boundary=b"])))
        #expect(!pattern.matches(makeRequest("POST", "/api/products", headers: ["content-type": "multipart/form-data; boundary=b"])))
    }

    @Test func jsonBodyMatchers() {
        let request = makeRequest("POST", "/order", body: #"{"menuIds":[1,2],"note":"x"}"#)
        #expect(RequestPattern(body: .json(["menuIds": [1, 2]])).matches(request))
        #expect(!RequestPattern(body: .json(["menuIds": [2, 1]])).matches(request))
        #expect(!RequestPattern(body: .jsonEqualTo(["menuIds": [1, 2]])).matches(request))
        #expect(RequestPattern(body: .jsonHasKey("menuIds")).matches(request))
        #expect(!RequestPattern(body: .jsonHasKey("menu")).matches(request))
        #expect(RequestPattern(body: .contains("note")).matches(request))
        #expect(!RequestPattern(body: .json(["menuIds": [1, 2]])).matches(makeRequest("POST", "/order", body: "not json")))
    }

    @Test func distanceRanksTheNearestRouteFirst() {
        let router = Router(routes: [
            Route("categories", .get("/categories")) { _, _ in .text("c") },
            Route("menu", .get("/menu")) { _, _ in .text("m") },
            Route("order", .post("/order")) { _, _ in .text("o") },
        ])
        #expect(router.nearest(to: makeRequest("GET", "/menus")).first?.name == "menu")
        #expect(router.nearest(to: makeRequest("GET", "/order")).first?.name == "order")
        let plan = router.respond(to: makeRequest("GET", "/menus"))
        #expect(plan.status == 404)
        #expect(plan.answeredBy == nil)
        let body = JSONValue(parsing: plan.body)
        #expect(body?["nearest"]?.arrayValue?.first?["route"] == "menu")
        #expect(body?["reason"]?.stringValue?.contains("GET /menus") == true)
    }
}

/// The router tries only the routes that can match a request's first path segment; the
/// answer must be the one a scan of every route in order gives.
@Suite struct RouterDispatchTests {
    static func route(_ name: String, _ pattern: RequestPattern) -> Route {
        Route(name, pattern) { _, _ in ResponsePlan(status: 200) }
    }

    @Test func firstMatchInDeclarationOrderWins() {
        let router = Router(routes: [
            Self.route("param-first", .get("/{anything}/products")),
            Self.route("literal", .get("/api/products")),
            Self.route("api-item", .get("/api/{x}")),
            Self.route("root", .get("/")),
            Self.route("catch-all", RequestPattern(path: "/**")),
            Self.route("after-catch-all", .get("/menu")),
        ])
        func answer(_ method: String, _ uri: String) -> String? { router.respond(to: makeRequest(method, uri)).answeredBy }
        #expect(answer("GET", "/api/products") == "param-first")
        #expect(answer("GET", "/api/7") == "api-item")
        #expect(answer("GET", "//api//7/") == "api-item", "empty segments are skipped, as the matcher does")
        #expect(answer("GET", "/") == "root")
        #expect(answer("GET", "") == "root")
        #expect(answer("POST", "/") == "catch-all")
        #expect(answer("GET", "/menu") == "catch-all")
        #expect(answer("GET", "/%61pi/7") == "catch-all", "literals are compared as sent")
        #expect(answer("GET", "/apx/7") == "catch-all", "a first segment of the same length is not the same segment")
        #expect(answer("GET", "/API/7") == "catch-all", "nor is one in other case")
        #expect(answer("GET", "/apis/7") == "catch-all")
    }

    @Test func agreesWithAScanOfEveryRouteOnTheShippedAPIs() throws {
        let fixtures = try FixtureSet.load(from: MockFixtures.directory)
        for variant in [OpenMarketVariant.jan2022, .late2022] {
            var configuration = EngineConfiguration(fixturesDirectory: MockFixtures.directory)
            configuration.openMarketVariant = variant
            let router = APIs(fixtures, configuration, starts: nil).router
            let methods = ["GET", "HEAD", "POST", "PATCH", "DELETE", "PUT"]
            let paths = Set(router.routes.compactMap { $0.pattern.path?.template }).flatMap { template in
                [template, template.replacingOccurrences(of: #"\{[^}]+\}"#, with: "12", options: .regularExpression),
                 template + "/extra", "/x" + template]
            } + ["/", "", "/nope", "/images/1.png", "/market-images/thumb/item18.jpg", "/api/products?page_no=2&items_per_page=5", "/api/products/3/secret"]
            for method in methods {
                for path in paths {
                    let request = makeRequest(method, path, headers: ["identifier": "x"], body: "{}")
                    let scanned = router.routes.first { $0.pattern.match(request) != nil }?.name
                    #expect(router.respond(to: request).answeredBy == scanned, "\(method) \(path)")
                }
            }
        }
    }
}

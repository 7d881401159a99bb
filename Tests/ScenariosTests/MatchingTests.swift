import Foundation
import Testing
@testable import Scenarios

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

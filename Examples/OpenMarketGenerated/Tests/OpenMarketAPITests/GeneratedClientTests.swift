import ContractTests
import ContractTestsTesting
import Foundation
import MockFixtures
import OpenAPIRuntime
@testable import OpenMarketAPI
import Scenarios
import Testing

/// The generated Open Market client against a mock server of its own per test, over
/// sockets and in process: what it decodes, and what the server saw.
@Suite(.mockServer())
struct GeneratedClientTests {
    @Test(arguments: Wire.allCases)
    func aPageNewestFirst(wire: Wire) async throws {
        let page = try await wire.client().getProducts(query: .init(pageNo: 1, itemsPerPage: 20)).ok.body.json

        #expect(page.pageNo == 1 && page.itemsPerPage == 20 && page.hasNext && !page.hasPrev)
        #expect(page.pages.count == 20)
        #expect(page.pages.map(\.id) == page.pages.map(\.id).sorted(by: >), "newest first")
        #expect(page.pages.allSatisfy { $0.thumbnail.hasPrefix(MockServer.current.baseURL.absoluteString + "/market-images/thumb/") })
        let seen = try await MockServer.current.expectations.expect(
            RequestPattern(method: "GET", path: "/api/products", query: ["page_no": .equalTo("1"), "items_per_page": .equalTo("20")]),
            .exactly(1))
        #expect((seen[0].connection != nil) == (wire == .sockets), "only a socket has a connection")
    }

    @Test(arguments: Wire.allCases)
    func aPagePastTheEndIsNoContent(wire: Wire) async throws {
        let output = try await wire.client().getProducts(query: .init(pageNo: 99, itemsPerPage: 20))
        guard case .noContent = output else {
            Issue.record("expected 204 No Content, got \(output)")
            return
        }
    }

    @Test(arguments: Wire.allCases)
    func aDetail(wire: Wire) async throws {
        let product = try await wire.client().getProduct(path: .init(id: 1)).ok.body.json

        #expect(product.id == 1 && product.name == "아이폰 13 1" && product.vendorId == 2)
        #expect(product.currency == .krw && product.price == 25000 && product.discountedPrice == 2500 && product.bargainPrice == 22500)
        // The API's dates have no zone (Korea time): the document types them as patterned strings.
        #expect(product.createdAt == "2021-12-27T00:00:00.00")
        #expect(product.vendors?.name == "dacodaco")
        #expect(product.images.map(\.id) == [10, 11])
        try await MockServer.current.expectations.expect(.get("/api/products/1"), .exactly(1))
    }

    /// The generated multipart API: one `params` JSON part, one `images` part per file,
    /// and the vendor's `identifier` header.
    @Test(arguments: Wire.allCases)
    func aProductIsCreatedWithAMultipartUpload(wire: Wire) async throws {
        let client = wire.client()
        let png = try Data(contentsOf: MockFixtures.openMarket.appendingPathComponent("images/origin/item01.png"))
        let params = Components.Schemas.Params(currency: .usd, descriptions: "A warm lamp for late-night coding", discountedPrice: 2.5,
                                               name: "Desk Lamp", price: 12.5, secret: FixtureVendor.password, stock: 3)

        let created = try await client.createProduct(
            headers: .init(identifier: FixtureVendor.identifier),
            body: .multipartForm([
                .params(.init(payload: .init(body: params))),
                .images(.init(payload: .init(body: HTTPBody(png)), filename: "lamp.png")),
            ])
        ).created.body.json

        #expect(created.name == "Desk Lamp" && created.currency == .usd && created.price == 12.5 && created.bargainPrice == 10)
        #expect(created.vendorId == FixtureVendor.id && created.stock == 3 && created.images.count == 1)

        let upload = try await MockServer.current.expectations.expect(
            RequestPattern(method: "POST", path: "/api/products", headers: ["identifier": .equalTo(FixtureVendor.identifier)]), .exactly(1))[0]
        let form = try MultipartForm.parse(try #require(upload.request.body.data), contentType: upload.request.headers["Content-Type"])
        #expect(form.parts.map(\.name) == ["params", "images"])
        #expect(form.parts[0].contentType == "application/json; charset=utf-8")
        #expect(JSONValue(parsing: form.parts[0].body) == [
            "name": "Desk Lamp", "descriptions": "A warm lamp for late-night coding", "price": 12.5, "currency": "USD",
            "discounted_price": 2.5, "stock": 3, "secret": .string(FixtureVendor.password),
        ])
        #expect(form.parts[1].filename == "lamp.png" && form.parts[1].contentType == "image/png" && form.parts[1].body == png)

        // The catalogue is stateful: the new product can be read back.
        #expect(try await client.getProduct(path: .init(id: created.id)).ok.body.json.name == "Desk Lamp")
    }

    @Test(arguments: Wire.allCases)
    func aMissingProductIsTheDocumented404(wire: Wire) async throws {
        let output = try await wire.client().getProduct(path: .init(id: 999_999))
        guard case .notFound(let notFound) = output else {
            Issue.record("expected 404, got \(output)")
            return
        }
        #expect(try notFound.body.json.error)
        #expect(try !notFound.body.json.reason.isEmpty)
        #expect(throws: (any Error).self, "`ok` throws on another status") { try output.ok }
    }

    /// A scenario built in Swift fails the page: the document's `500` (the training server's
    /// own failure) is decoded, error body and all.
    @Test(.mockServer(scenario: "page-fails",
                      scenarios: [Scenario(name: "page-fails", rules: [
                          Rule("page-500", .get("/api/products"), always: .status(500, json: ["error": true, "reason": "The market is closed"])),
                      ])]),
          arguments: Wire.allCases)
    func aFailingPageIsTheDocumented500(wire: Wire) async throws {
        let output = try await wire.client().getProducts(query: .init(pageNo: 1, itemsPerPage: 20))
        guard case .internalServerError(let failure) = output else {
            Issue.record("expected 500, got \(output)")
            return
        }
        #expect(try failure.body.json.reason == "The market is closed")
        try await MockServer.current.expectations.expect(.get("/api/products"), .exactly(1))
    }

    /// A reset connection reaches the caller as the generated client's `ClientError`, over
    /// `URLError(.networkConnectionLost)`, on both wires.
    @Test(.mockServer(scenario: "detail-resets",
                      scenarios: [Scenario(name: "detail-resets", rules: [Rule("reset", .get("/api/products/1"), always: .fault(.connectionReset))])]),
          arguments: Wire.allCases)
    func aResetConnectionIsAClientError(wire: Wire) async throws {
        let error = try await #require(throws: ClientError.self) { try await wire.client().getProduct(path: .init(id: 1)) }
        #expect(error.operationID == "getProduct")
        #expect((error.underlyingError as? URLError)?.code == .networkConnectionLost, "\(error.underlyingError)")
        try await MockServer.current.expectations.expect(.get("/api/products/1"), .exactly(1))
    }

    /// The shipped `hang` scenario never answers: the client's timeout fires, and the
    /// generated client reports `URLError(.timedOut)` under its `ClientError`.
    @Test(.mockServer(scenario: "hang"), arguments: Wire.allCases)
    func aHangTimesOut(wire: Wire) async throws {
        let error = try await #require(throws: ClientError.self) {
            try await wire.client(timeout: .milliseconds(500)).getProducts(query: .init(pageNo: 1, itemsPerPage: 20))
        }
        #expect((error.underlyingError as? URLError)?.code == .timedOut, "\(error.underlyingError)")
    }
}

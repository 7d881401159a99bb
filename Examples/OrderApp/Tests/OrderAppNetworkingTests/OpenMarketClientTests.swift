import ContractTests
import ContractTestsTesting
import Foundation
import OrderAppNetworking
import Scenarios
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// App tests of the Open Market client, each against a mock server of its own.
@Suite(.mockServer())
struct OpenMarketClientTests {
    /// Vendor 1 of the built-in fixtures (yagom-mart).
    let vendor = MarketVendor.fixtureVendor
    let client = OpenMarketClient(baseURL: MockServer.current.baseURL, identifier: MarketVendor.fixtureVendor.identifier,
                                  session: URLSession(configuration: .ephemeral))

    @Test func aPageAndADetail() async throws {
        let page = try await client.fetchPage(number: 1, itemsPerPage: 20)
        #expect(page.products.count == 20 && page.hasNext && !page.hasPrevious)
        #expect(page.products.map(\.id) == page.products.map(\.id).sorted(by: >), "newest first")

        let product = try await client.fetchProduct(id: 1)
        #expect(product.currency == .krw && product.price == 25000 && product.bargainPrice == 22500)
        // "2021-12-27T00:00:00.00" is midnight in Korea: 15:00 UTC the day before.
        #expect(product.createdAt == Date(timeIntervalSince1970: 1_640_530_800))
        #expect(product.vendor?.name == "dacodaco")
        #expect(product.images.count == 2)

        try await MockServer.current.expectations.expectInOrder([
            RequestPattern(method: "GET", path: "/api/products", query: ["page_no": .equalTo("1"), "items_per_page": .equalTo("20")]),
            .get("/api/products/1"),
        ])
    }

    @Test func aPagePastTheEndIsEmpty() async throws {
        let page = try await client.fetchPage(number: 99, itemsPerPage: 20)
        #expect(page.products.isEmpty && !page.hasNext)
    }

    /// `createProduct` sends one multipart upload: the `params` JSON part first, then one
    /// `images` part per file, with the vendor's `identifier` header.
    @Test func aNewProductIsUploadedAsMultipart() async throws {
        let png = try await client.fetchImage(from: MockServer.current.url("/market-images/origin/item01.png"))
        let jpeg = try await client.fetchImage(from: MockServer.current.url("/market-images/origin/item02.jpg"))
        let new = NewProduct(name: "Desk Lamp", description: "A warm lamp for late-night coding", price: 12.5, currency: .usd,
                             discountedPrice: 2.5, stock: 3, secret: vendor.password)

        let created = try await client.createProduct(new, images: [
            ImageFile(filename: "front.png", data: png, mimeType: "image/png"),
            ImageFile(filename: "back.jpg", data: jpeg, mimeType: "image/jpeg"),
        ])

        #expect(created.name == "Desk Lamp" && created.price == 12.5 && created.bargainPrice == 10)
        #expect(created.vendorID == vendor.id && created.images.count == 2)

        let upload = try await MockServer.current.expectations.expect(
            RequestPattern(method: "POST", path: "/api/products", headers: ["identifier": .equalTo(vendor.identifier)]), .exactly(1))[0]
        let form = try MultipartForm.parse(try #require(upload.request.body.data), contentType: upload.request.headers["Content-Type"])
        #expect(form.parts.map(\.name) == ["params", "images", "images"])
        let params = try #require(form.parts.first)
        #expect(params.contentType == "application/json")
        #expect(JSONValue(parsing: params.body) == [
            "name": "Desk Lamp", "descriptions": "A warm lamp for late-night coding", "price": 12.5, "currency": "USD",
            "discounted_price": 2.5, "stock": 3, "secret": .string(vendor.password),
        ])
        #expect(form.parts.dropFirst().map(\.filename) == ["front.png", "back.jpg"])
        #expect(form.parts.dropFirst().map(\.contentType) == ["image/png", "image/jpeg"])
        #expect(form.parts.dropFirst().map(\.body) == [png, jpeg])

        // The new product heads the list.
        #expect(try await client.fetchPage(number: 1, itemsPerPage: 1).products.first?.id == created.id)
    }

    @Test func aProductIsUpdatedWithOnlyTheChangedKeys() async throws {
        let updated = try await client.updateProduct(id: 4, ProductUpdate(stock: 42, secret: vendor.password))

        #expect(updated.stock == 42)
        try await MockServer.current.expectations.expect(
            RequestPattern(method: "PATCH", path: "/api/products/4", headers: ["identifier": .equalTo(vendor.identifier)],
                           body: .jsonEqualTo(["stock": 42, "secret": .string(vendor.password)])),
            .exactly(1))
    }

    /// The vendor password gives the product secret; the secret deletes the product.
    @Test func aProductIsDeletedWithItsSecret() async throws {
        let secret = try await client.secret(for: 4, password: vendor.password)
        let deleted = try await client.deleteProduct(id: 4, secret: secret)

        #expect(deleted.id == 4)
        await #expect(throws: OpenMarketError.unexpectedStatus(404)) { try await client.fetchProduct(id: 4) }
        try await MockServer.current.expectations.expectInOrder([
            RequestPattern(method: "POST", path: "/api/products/4/secret", body: .jsonEqualTo(["secret": .string(vendor.password)])),
            RequestPattern(method: "DELETE", path: "/api/products/4/\(secret)", headers: ["identifier": .equalTo(vendor.identifier)]),
        ])
    }

    /// The shipped `order-fails-then-succeeds` scenario also fails `POST /api/products`
    /// twice: each failure is reported, and each call reaches the server once.
    @Test(.mockServer(scenario: "order-fails-then-succeeds"))
    func aFailedUploadIsReportedAndNotRetried() async throws {
        let new = NewProduct(name: "Desk Lamp", description: "A warm lamp for late-night coding", price: 12.5, currency: .usd,
                             secret: vendor.password)
        let png = try await client.fetchImage(from: MockServer.current.url("/market-images/origin/item01.png"))
        let images = [ImageFile(filename: "lamp.png", data: png, mimeType: "image/png")]

        await #expect(throws: OpenMarketError.unexpectedStatus(500)) { try await client.createProduct(new, images: images) }
        await #expect(throws: OpenMarketError.unexpectedStatus(503)) { try await client.createProduct(new, images: images) }
        #expect(try await client.createProduct(new, images: images).name == "Desk Lamp")
        try await MockServer.current.expectations.expect(.post("/api/products"), .exactly(3))
    }
}

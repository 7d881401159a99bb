import Foundation
import BuiltInMockAPIs
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct OpenMarketReadTests {
    static let listKeys: Set<String> = ["id", "vendor_id", "name", "thumbnail", "currency", "price", "bargain_price",
                                        "discounted_price", "stock", "created_at", "issued_at"]

    @Test func healthCheckerAnswersQuotedOK() async throws {
        try await withServer { server in
            let (data, response) = try await HTTP.get(server.url("/healthChecker"))
            #expect(response.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == "\"OK\"")
        }
    }

    @Test func firstPageHasAllNineKeysNewestFirst() async throws {
        try await withServer { server in
            let client = OpenMarketClient(base: server.address.url)
            let (data, response) = try await client.page(1, 20)
            #expect(response.statusCode == 200)
            let page = try object(data)
            #expect(Set(page.keys) == ["page_no", "items_per_page", "total_count", "offset", "limit", "last_page", "has_next", "has_prev", "pages"])
            #expect(page["page_no"] as? Int == 1)
            #expect(page["items_per_page"] as? Int == 20)
            #expect(page["total_count"] as? Int == 126)
            #expect(page["offset"] as? Int == 0)
            #expect(page["limit"] as? Int == 20)
            #expect(page["last_page"] as? Int == 7)
            #expect(page["has_next"] as? Bool == true)
            #expect(page["has_prev"] as? Bool == false)
            let items = try #require(page["pages"] as? [[String: Any]])
            #expect(items.count == 20)
            let ids = items.compactMap { $0["id"] as? Int }
            #expect(ids == ids.sorted(by: >))
            #expect(ids.first == 137)
            for item in items {
                #expect(Set(item.keys) == Self.listKeys)
                #expect((item["created_at"] as? String)?.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{2}/) != nil)
                let price = try #require(item["price"] as? Double)
                let discounted = try #require(item["discounted_price"] as? Double)
                #expect(item["bargain_price"] as? Double == price - discounted)
                #expect((item["thumbnail"] as? String)?.hasPrefix(server.address.baseURL + "/market-images/thumb/") == true)
            }
            #expect(Set(items.compactMap { $0["currency"] as? String }) == ["KRW", "USD"])
        }
    }

    @Test(arguments: [(2, 20, 20, 40, true, true, 20), (7, 20, 120, 140, false, true, 6), (1, 126, 0, 126, false, false, 126),
                      (3, 50, 100, 150, false, true, 26), (1, 1000, 0, 1000, false, false, 126)])
    func pageMath(page: Int, perPage: Int, offset: Int, limit: Int, hasNext: Bool, hasPrev: Bool, count: Int) async throws {
        try await withServer { server in
            let (data, _) = try await OpenMarketClient(base: server.address.url).page(page, perPage)
            let object = try object(data)
            #expect(object["offset"] as? Int == offset)
            #expect(object["limit"] as? Int == limit)
            #expect(object["has_next"] as? Bool == hasNext)
            #expect(object["has_prev"] as? Bool == hasPrev)
            #expect(object["last_page"] as? Int == (126 + perPage - 1) / perPage)
            #expect((object["pages"] as? [Any])?.count == count)
        }
    }

    @Test func pagesDoNotOverlapAndCoverTheCatalog() async throws {
        try await withServer { server in
            let client = OpenMarketClient(base: server.address.url)
            var seen: [Int] = []
            for number in 1...7 {
                let (data, _) = try await client.page(number, 20)
                seen += (try object(data)["pages"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
            }
            #expect(seen.count == 126)
            #expect(Set(seen).count == 126)
            #expect(seen == seen.sorted(by: >))
        }
    }

    @Test func pagePastTheEndIs204WithAnEmptyBody() async throws {
        try await withServer { server in
            let (data, response) = try await OpenMarketClient(base: server.address.url).page(8, 20)
            #expect(response.statusCode == 204)
            #expect(data.isEmpty)
        }
    }

    /// (A page number below 1 is the training server's 500 unless strict: FaithfulVariantTests.)
    /// Each refusal names the parameter that is wrong (page_no is checked first).
    @Test(arguments: [("", "page_no"), ("?page_no=1", "items_per_page"), ("?items_per_page=20", "page_no"),
                      ("?page_no=0&items_per_page=20", "page_no"), ("?page_no=-1&items_per_page=20", "page_no"),
                      ("?page_no=1&items_per_page=0", "items_per_page"), ("?page_no=x&items_per_page=20", "page_no"),
                      ("?page_no=1&items_per_page=1e3", "items_per_page"), ("?page_no=1&items_per_page=1001", "items_per_page"),
                      ("?page_no=99999999999999999999&items_per_page=20", "page_no"),
                      ("?page_no=1000001&items_per_page=20", "page_no"), ("?page_no=1.5&items_per_page=20", "page_no")])
    func invalidPageQueriesGet400(query: String, names parameter: String) async throws {
        try await withServer(strict: true) { server in
            let (data, response) = try await HTTP.get(server.url("/api/products" + query))
            #expect(response.statusCode == 400)
            let message = reason(data)
            #expect(message.contains(parameter), "\(message)")
            let other = parameter == "page_no" ? "items_per_page" : "page_no"
            #expect(!message.contains(other), "only \(parameter) is wrong: \(message)")
        }
    }

    @Test func detailHasDescriptionImagesAndVendors() async throws {
        try await withServer { server in
            let (data, response) = try await OpenMarketClient(base: server.address.url).detail(16)
            #expect(response.statusCode == 200)
            let detail = try object(data)
            #expect(Set(detail.keys) == Self.listKeys.union(["description", "images", "vendors"]))
            let images = try #require(detail["images"] as? [[String: Any]])
            #expect(!images.isEmpty)
            for image in images {
                #expect(Set(image.keys) == ["id", "url", "thumbnail_url", "succeed", "issued_at"])
                #expect(image["succeed"] as? Bool == true)
            }
            let vendor = try #require(detail["vendors"] as? [String: Any])
            #expect(Set(vendor.keys) == ["name", "id", "created_at", "issued_at"])
            #expect(vendor["id"] as? Int == detail["vendor_id"] as? Int)
        }
    }

    @Test(arguments: [9999, 5, 0])
    func unknownProductIs404(id: Int) async throws {
        try await withServer { server in
            let (data, response) = try await OpenMarketClient(base: server.address.url).detail(id)
            #expect(response.statusCode == 404)
            #expect(reason(data).contains("No product"))
        }
    }

    @Test func productImagesAreRealFilesWithCacheHeadersAnd304() async throws {
        try await withServer { server in
            let (data, _) = try await OpenMarketClient(base: server.address.url).detail(3)
            let images = try #require(try object(data)["images"] as? [[String: Any]])
            for image in images {
                for key in ["url", "thumbnail_url"] {
                    let url = try #require((image[key] as? String).flatMap(URL.init(string:)))
                    let (bytes, response) = try await HTTP.get(url)
                    #expect(response.statusCode == 200)
                    let format = ImageFormat(sniffing: bytes)
                    #expect(format != nil)
                    #expect(response.value(forHTTPHeaderField: "Content-Type") == format?.mimeType)
                    if format == .png { _ = try PNGCheck.validate(bytes) }
                    if format == .jpeg { #expect(bytes.suffix(2) == Data([0xFF, 0xD9])) }
                    let etag = try #require(response.value(forHTTPHeaderField: "ETag"))
                    #expect(response.value(forHTTPHeaderField: "Cache-Control") != nil)
                    let (_, revalidated) = try await HTTP.get(url, headers: ["If-None-Match": etag])
                    #expect(revalidated.statusCode == 304)
                }
            }
        }
    }

    @Test func legacyVariantSendsTheOldDateFormat() async throws {
        try await withServer(openMarket: .legacyDates) { server in
            let (data, _) = try await OpenMarketClient(base: server.address.url).detail(16)
            let detail = try object(data)
            #expect(detail["created_at"] as? String == "2022-01-04 00:00:00.000")
            #expect((detail["vendors"] as? [String: Any])?["created_at"] as? String == "2021-12-20 00:00:00.000")
            struct Product: Decodable { let created_at: Date }
            let decoder = JSONDecoder()
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SS"
            decoder.dateDecodingStrategy = .formatted(formatter)
            // A client written for the live server fails on it, which is the point.
            #expect(throws: DecodingError.self) { try decoder.decode(Product.self, from: data) }
        }
    }
}

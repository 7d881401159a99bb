import Foundation
import BuiltInMockAPIs
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each variant answers as its real server did, edge cases included; `strict` keeps the
/// validating answers (#14). The evidence for each is in Fixtures/README.md.
@Suite struct FaithfulVariantTests {
    static func order(_ server: TestServer, _ body: String) async throws -> (Int, [String: Any]?) {
        let (data, response) = try await HTTP.post(server.url("/order"), json: body)
        return (response.statusCode, try? HTTP.json(data) as? [String: Any])
    }

    /// The community server starts at 1 and skips ids it does not know.
    @Test func communityOrdersOfNothingOrUnknownIdsAreOnePlusTheKnown() async throws {
        try await withServer(restaurant: .community) { server in
            let empty = try await Self.order(server, #"{"menuIds":[]}"#)
            #expect(empty.0 == 200)
            #expect(empty.1?["preparation_time"] as? Int == 1)
            let unknown = try await Self.order(server, #"{"menuIds":[999]}"#)
            #expect(unknown.0 == 200)
            #expect(unknown.1?["preparation_time"] as? Int == 1)
            let mixed = try await Self.order(server, #"{"menuIds":[1,999,5]}"#)
            #expect(mixed.1?["preparation_time"] as? Int == 1 + 20 + 5)
            let missing = try await Self.order(server, #"{"ids":[1]}"#)
            #expect(missing.0 == 404, "the community route answers 404 without menuIds")
        }
    }

    @Test func strictCommunityOrdersAreValidated() async throws {
        try await withServer(restaurant: .community, strict: true) { server in
            for body in [#"{"menuIds":[]}"#, #"{"menuIds":[999]}"#, #"{"ids":[1]}"#] {
                let (status, json) = try await Self.order(server, body)
                #expect(status == 400, "\(body)")
                #expect((json?["reason"] as? String)?.isEmpty == false)
            }
            #expect(try await Self.order(server, #"{"menuIds":[5]}"#).1?["preparation_time"] as? Int == 6)
        }
    }

    /// The training server failed with a 5xx below page 1; strict says why with a 400.
    @Test(arguments: OpenMarketVariant.allCases)
    func aPageNumberBelowOneIsAServerError(variant: OpenMarketVariant) async throws {
        try await withServer(openMarket: variant) { server in
            for number in ["-1", "0"] {
                let (_, response) = try await HTTP.get(server.url("/api/products?page_no=\(number)&items_per_page=10"))
                #expect(response.statusCode == 500, "page_no=\(number)")
            }
        }
        try await withServer(openMarket: variant, strict: true) { server in
            let (data, response) = try await HTTP.get(server.url("/api/products?page_no=-1&items_per_page=10"))
            #expect(response.statusCode == 400)
            #expect(String(decoding: data, as: UTF8.self).contains("page_no"))
        }
    }

    /// January 2022 wrote whole amounts as integers, late 2022 always with a fraction.
    @Test func moneyShapesFollowTheServerVersion() async throws {
        try await withServer(openMarket: .jan2022) { server in
            let (data, _) = try await HTTP.get(server.url("/api/products/16"))
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.contains(#""price":25000,"#), "\(text)")
            #expect(text.contains(#""created_at":"2022-01-04T00:00:00.00""#), "\(text)")
        }
        try await withServer(openMarket: .late2022) { server in
            let (data, _) = try await HTTP.get(server.url("/api/products/16"))
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.contains(#""price":25000.0,"#), "\(text)")
            #expect(text.contains(#""discounted_price":0.0,"#), "\(text)")
            #expect(text.contains(#""created_at":"2022-01-04T00:00:00""#), "\(text)")
            let detail = try #require(try HTTP.json(data) as? [String: Any])
            #expect(detail["price"] as? Double == 25000)
            #expect((detail["images"] as? [[String: Any]])?.first?["succeed"] == nil)
            #expect((detail["vendors"] as? [String: Any]).map { Set($0.keys) } == ["id", "name"])
        }
    }

    /// Money is written with its fraction by marking it while encoding; a product named like
    /// the mark stays a string (the real mark carries a nonce made at start-up).
    @Test func aNameLikeTheMoneyMarkStaysAString() async throws {
        try await withServer(openMarket: .late2022) { server in
            let name = "@@MOCKSERVER_MONEY:1@@"   // the mark, had it no nonce
            let client = OpenMarketClient(base: server.address.url)
            let (created, response) = try await client.create(params: OpenMarketClient.params(name: name, descriptionKey: "description"))
            #expect(response.statusCode == 201, "\(reason(created))")
            let product = try object(created)
            #expect(product["name"] as? String == name)
            #expect(product["price"] as? Double == 1000)
        }
    }

    /// The late-2022 page: camelCase page keys; list items with description and vendorName.
    @Test func late2022PagesUseCamelCaseKeysAndRicherItems() async throws {
        try await withServer(openMarket: .late2022) { server in
            let (data, _) = try await HTTP.get(server.url("/api/products?page_no=1&items_per_page=10"))
            let page = try #require(try HTTP.json(data) as? [String: Any])
            #expect(Set(page.keys) == ["pageNo", "itemsPerPage", "totalCount", "offset", "limit", "lastPage", "hasNext", "hasPrev", "pages"])
            #expect(page["pageNo"] as? Int == 1)
            #expect(page["hasNext"] as? Bool == true)
            let item = try #require((page["pages"] as? [[String: Any]])?.first)
            #expect(item["description"] is String)
            #expect(item["vendorName"] is String)
            #expect(item["vendor_id"] is Int)
            #expect(item["images"] == nil)
        }
    }
}

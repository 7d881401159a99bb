import Foundation
import BuiltInMockAPIs
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct RestaurantOriginalTests {
    @Test func categoriesAreStrings() async throws {
        try await withServer { server in
            let (data, response) = try await HTTP.get(server.url("/categories"))
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("application/json") == true)
            let object = try #require(try HTTP.json(data) as? [String: Any])
            #expect(Set(object.keys) == ["categories"])
            #expect(object["categories"] as? [String] == ["appetizers", "salads", "soups", "entrees", "desserts", "sandwiches"])
        }
    }

    @Test func menuHasExactKeysAndAbsoluteImageURLsOnTheRealPort() async throws {
        try await withServer { server in
            let (data, response) = try await HTTP.get(server.url("/menu"))
            #expect(response.statusCode == 200)
            let object = try #require(try HTTP.json(data) as? [String: Any])
            #expect(Set(object.keys) == ["items"])
            let items = try #require(object["items"] as? [[String: Any]])
            #expect(items.count == 6)
            // Every price is a JSON number (read as the JSON says it, not as NSNumber bridges it).
            let prices = JSONValue(parsing: data)?["items"]?.arrayValue?.map { $0["price"]?.doubleValue }
            #expect(prices?.count == 6)
            #expect(prices?.allSatisfy { $0 != nil } == true, "\(String(describing: prices))")
            for item in items {
                #expect(Set(item.keys) == ["id", "name", "description", "price", "category", "image_url"])
                #expect(item["id"] is Int)
                #expect(item["name"] is String)
                #expect(item["description"] is String)
                #expect(item["price"] != nil)
                #expect(item["category"] is String)
                let imageURL = try #require(item["image_url"] as? String)
                #expect(imageURL == "\(server.address.baseURL)/images/\(item["id"]!).png")
            }
            #expect(server.port != 0 && server.port != 8080)
            let trout = try #require(items.first { $0["id"] as? Int == 3 })
            #expect(trout["price"] as? Double == 12.75)
        }
    }

    @Test(arguments: [
        ("entrees", [1, 2, 3]), ("appetizers", [4]), ("soups", [5]), ("salads", [6]),
        ("desserts", []), ("sandwiches", []), ("no-such-category", []),
    ])
    func menuFiltersByCategory(category: String, ids: [Int]) async throws {
        try await withServer { server in
            let (data, response) = try await HTTP.get(server.url("/menu?category=\(category)"))
            #expect(response.statusCode == 200)
            let items = try #require((try HTTP.json(data) as? [String: Any])?["items"] as? [[String: Any]])
            #expect(items.compactMap { $0["id"] as? Int } == ids)
            #expect(items.allSatisfy { $0["category"] as? String == category })
        }
    }

    @Test(arguments: [([5], 5), ([1, 2], 50), ([3, 3], 30), ([1, 2, 3, 4, 5, 6], 87)])
    func orderPreparationTimeIsTheSumOfPrepTimes(ids: [Int], minutes: Int) async throws {
        try await withServer { server in
            let body = "{\"menuIds\": [\(ids.map(String.init).joined(separator: ","))]}"
            let (data, response) = try await HTTP.post(server.url("/order"), json: body)
            #expect(response.statusCode == 200)
            let object = try #require(try HTTP.json(data) as? [String: Any])
            #expect(Set(object.keys) == ["preparation_time"])
            #expect(object["preparation_time"] as? Int == minutes)
        }
    }

    @Test(arguments: [
        ("", "empty"),
        ("{}", "Missing key \"menuIds\""),
        (#"{"menuIds": "1"}"#, "must be an array of integers"),
        (#"{"menuIds": [1, "x"]}"#, "\"menuIds[1]\" must be an integer"),
        (#"{"menuIds": []}"#, "must not be empty"),
        (#"{"menuIds": [42]}"#, "Unknown menu id: 42"),
        ("menuIds=1", "not valid JSON"),
    ])
    func badOrdersGet400WithAReason(body: String, reason: String) async throws {
        try await withServer { server in
            let (data, response) = try await HTTP.post(server.url("/order"), json: body)
            #expect(response.statusCode == 400)
            let object = try #require(try HTTP.json(data) as? [String: Any])
            #expect(object["error"] as? Bool == true)
            let message = try #require(object["reason"] as? String)
            #expect(message.contains(reason), "\(message)")
        }
    }

    @Test(arguments: 1...6)
    func imagesAreValidPNGsWithCacheHeaders(id: Int) async throws {
        try await withServer { server in
            let (data, response) = try await HTTP.get(server.url("/images/\(id).png"))
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "image/png")
            #expect(response.value(forHTTPHeaderField: "Content-Length") == String(data.count))
            #expect(response.value(forHTTPHeaderField: "ETag")?.hasPrefix("\"") == true)
            #expect(response.value(forHTTPHeaderField: "Last-Modified").flatMap(HTTPDate.parse) != nil)
            #expect(response.value(forHTTPHeaderField: "Cache-Control")?.contains("max-age") == true)
            let size = try PNGCheck.validate(data)
            #expect(size.width == 120 && size.height == 120)
        }
    }

    @Test func imagesRevalidateWith304() async throws {
        try await withServer { server in
            let (_, first) = try await HTTP.get(server.url("/images/2.png"))
            let etag = try #require(first.value(forHTTPHeaderField: "ETag"))
            let lastModified = try #require(first.value(forHTTPHeaderField: "Last-Modified"))

            let (body1, byTag) = try await HTTP.get(server.url("/images/2.png"), headers: ["If-None-Match": etag])
            #expect(byTag.statusCode == 304)
            #expect(body1.isEmpty)
            #expect(byTag.value(forHTTPHeaderField: "ETag") == etag)

            let (body2, byDate) = try await HTTP.get(server.url("/images/2.png"), headers: ["If-Modified-Since": lastModified])
            #expect(byDate.statusCode == 304)
            #expect(body2.isEmpty)

            let (body3, changed) = try await HTTP.get(server.url("/images/2.png"), headers: ["If-None-Match": "\"stale\""])
            #expect(changed.statusCode == 200)
            #expect(!body3.isEmpty)
        }
    }

    @Test func unknownImageIs404() async throws {
        try await withServer { server in
            let (data, response) = try await HTTP.get(server.url("/images/99.png"))
            #expect(response.statusCode == 404)
            #expect((try HTTP.json(data) as? [String: Any])?["reason"] as? String == "No image named \"99.png\"")
        }
    }

    @Test(arguments: [
        "/images/../Package.swift", "/images/../../Package.swift", "/images/..%2F..%2FPackage.swift",
        "/images/%2e%2e%2fmenu.json", "/images/..%2fmenu.json", "/images/../menu.json", "/images//etc/passwd",
        "/images/%2Fetc%2Fpasswd",
    ])
    func pathsLeavingTheImagesFolderAre404(path: String) async throws {
        try await withServer { server in
            let connection = try RawConnection(port: server.port)
            connection.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            let read = await connection.read()
            let response = try #require(read.responses.first)
            #expect(response.status == 404)
            #expect(!read.text.contains("PackageDescription"))
            #expect(!read.text.contains("root:"))
            #expect(!read.text.contains("Spaghetti"))
        }
    }
}

@Suite struct RestaurantCommunityTests {
    @Test func categoriesAreObjects() async throws {
        try await withServer(restaurant: .community) { server in
            let (data, _) = try await HTTP.get(server.url("/categories"))
            let categories = try #require((try HTTP.json(data) as? [String: Any])?["categories"] as? [[String: Any]])
            #expect(categories.count == 6)
            #expect(categories.first?["id"] as? Int == 1)
            #expect(categories.first?["name"] as? String == "appetizers")
            #expect(categories.allSatisfy { Set($0.keys) == ["id", "name"] })
        }
    }

    @Test func menuItemsCarryCategoryObjectsAndRelativeImageURLs() async throws {
        try await withServer(restaurant: .community) { server in
            let (data, _) = try await HTTP.get(server.url("/menu?category=soups"))
            let items = try #require((try HTTP.json(data) as? [String: Any])?["items"] as? [[String: Any]])
            let soup = try #require(items.first)
            #expect(items.count == 1)
            #expect(soup["image_url"] as? String == "/images/5.png")
            let category = try #require(soup["category"] as? [String: Any])
            #expect(category["id"] as? Int == 3)
            #expect(category["name"] as? String == "soups")
            // The community server's item type has no prep time (#14).
            #expect(soup["estimated_prep_time"] == nil)
            #expect(Set(soup.keys) == ["id", "name", "description", "price", "category", "image_url"])
        }
    }

    @Test func orderIsOnePlusTheSum() async throws {
        try await withServer(restaurant: .community) { server in
            let (data, _) = try await HTTP.post(server.url("/order"), json: #"{"menuIds":[5]}"#)
            #expect((try HTTP.json(data) as? [String: Any])?["preparation_time"] as? Int == 6)
            let (data2, _) = try await HTTP.post(server.url("/order"), json: #"{"menuIds":[1,2]}"#)
            #expect((try HTTP.json(data2) as? [String: Any])?["preparation_time"] as? Int == 51)
        }
    }

    @Test func imagesAreLabelledJPEGAsTheCommunityServerDoes() async throws {
        try await withServer(restaurant: .community) { server in
            let (data, response) = try await HTTP.get(server.url("/images/1.png"))
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "image/jpeg")
            _ = try PNGCheck.validate(data)
        }
    }
}

/// The Vapor re-implementation of older textbook editions (port 8090).
@Suite struct RestaurantVapor8090Tests {
    @Test func categoriesAreStringsAndItemsCarryPrepTimesAndJPEGURLs() async throws {
        try await withServer(restaurant: .vapor8090) { server in
            let (categoriesData, _) = try await HTTP.get(server.url("/categories"))
            let categories = try #require((try HTTP.json(categoriesData) as? [String: Any])?["categories"] as? [String])
            #expect(categories == ["appetizers", "salads", "soups", "entrees", "desserts", "sandwiches"])
            let (data, _) = try await HTTP.get(server.url("/menu?category=entrees"))
            let items = try #require((try HTTP.json(data) as? [String: Any])?["items"] as? [[String: Any]])
            #expect(items.map { $0["estimated_prep_time"] as? Int } == [20, 30, 15])
            #expect(items.first?["category"] as? String == "entrees")
            #expect(items.first?["image_url"] as? String == server.address.baseURL + "/images/1.jpg")
        }
    }

    @Test func imagesAreRealJPEGsWithValidators() async throws {
        try await withServer(restaurant: .vapor8090) { server in
            let (data, response) = try await HTTP.get(server.url("/images/3.jpg"))
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "image/jpeg")
            #expect(ImageFormat(sniffing: data) == .jpeg)
            let etag = try #require(response.value(forHTTPHeaderField: "ETag"))
            #expect(try await HTTP.get(server.url("/images/3.jpg"), headers: ["If-None-Match": etag]).1.statusCode == 304)
            #expect(try await HTTP.get(server.url("/images/9.jpg")).1.statusCode == 404)
        }
    }

    @Test func orderIsFivePlusTheLargestPrepTime() async throws {
        try await withServer(restaurant: .vapor8090) { server in
            for (ids, minutes) in [("[5]", 10), ("[1,2]", 35), ("[4,4,3]", 20)] {
                let (data, _) = try await HTTP.post(server.url("/order"), json: #"{"menuIds":\#(ids)}"#)
                #expect((try HTTP.json(data) as? [String: Any])?["preparation_time"] as? Int == minutes, "\(ids)")
            }
            let (missing, response) = try await HTTP.post(server.url("/order"), json: #"{"items":[1]}"#)
            #expect(response.statusCode == 400)
            #expect(reason(missing).contains("menuIds"))
        }
    }
}

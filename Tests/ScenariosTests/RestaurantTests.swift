import Foundation
import MockFixtures
import Testing
@testable import BuiltInMockAPIs
@testable import MockCore

@Suite struct RestaurantOrderTests {
    static let known = [1: 20, 2: 30, 5: 5]

    @Test(arguments: [
        ("", "empty"),
        ("nope", "not valid JSON"),
        ("[1,2]", "must be a JSON object"),
        (#"{"ids":[1]}"#, "Missing key \"menuIds\""),
        (#"{"menuIds":"1,2"}"#, "must be an array of integers, found a string"),
        (#"{"menuIds":[1,"2"]}"#, "\"menuIds[1]\" must be an integer, found a string"),
        (#"{"menuIds":[1.5]}"#, "\"menuIds[0]\" must be an integer"),
        (#"{"menuIds":[]}"#, "must not be empty"),
        (#"{"menuIds":[1,99,100]}"#, "Unknown menu ids: 99, 100"),
    ])
    func badOrdersSayWhatIsWrong(body: String, reason: String) {
        guard case .failure(let message) = OrderRequest.parse(Data(body.utf8), knownIDs: Self.known) else {
            Issue.record("\(body) was accepted")
            return
        }
        #expect(message.contains(reason), "\(message)")
    }

    @Test func preparationTimeRules() {
        #expect(RestaurantVariant.original.preparationTime(for: [5]) == 5)
        #expect(RestaurantVariant.community.preparationTime(for: [5]) == 6)
        #expect(RestaurantVariant.original.preparationTime(for: [20, 30, 30]) == 80)
        #expect(RestaurantVariant.community.preparationTime(for: [20, 30]) == 51)
    }
}

@Suite struct RestaurantFixtureTests {
    @Test func builtInFixturesLoad() throws {
        let fixtures = try RestaurantFixtures.load(from: MockFixtures.restaurant)
        #expect(fixtures.items.count == 6)
        #expect(fixtures.categories.map(\.name) == ["appetizers", "salads", "soups", "entrees", "desserts", "sandwiches"])
        // A PNG per item, and its JPEG for the vapor-8090 variant.
        #expect(fixtures.images.count == 12)
        #expect(fixtures.images.filter { $0.key.hasSuffix(".png") }.values.allSatisfy { $0.contentType == "image/png" })
        #expect(fixtures.images.filter { $0.key.hasSuffix(".jpg") }.values.allSatisfy { $0.contentType == "image/jpeg" })
    }

    /// A copy of the built-in restaurant fixtures in a temporary folder, edited by `edit`.
    func brokenCopy(_ file: String, _ edit: (String) -> String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fixtures-\(UUID().uuidString)")
        let restaurant = folder.appendingPathComponent("restaurant")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: MockFixtures.restaurant, to: restaurant)
        let url = restaurant.appendingPathComponent(file)
        let text = try String(contentsOf: url, encoding: .utf8)
        try edit(text).write(to: url, atomically: true, encoding: .utf8)
        return folder
    }

    @Test func wrongTypeIsReportedWithFileAndJSONPath() throws {
        let folder = try brokenCopy("menu.json") { $0.replacingOccurrences(of: #""price": 12.75"#, with: #""price": "12.75""#) }
        #expect {
            try FixtureSet.load(from: folder)
        } throws: { error in
            let problem = (error as? FixtureError)?.problems.first
            return problem?.file.hasSuffix("restaurant/menu.json") == true
                && problem?.jsonPath == "$.items[2].price"
                && problem?.reason.contains("expected a number") == true
        }
    }

    @Test func missingKeyAndInvalidJSON() throws {
        let missing = try brokenCopy("categories.json") { $0.replacingOccurrences(of: #"{"id": 3, "name": "soups"}"#, with: #"{"id": 3}"#) }
        let error1 = try #require(throws: FixtureError.self) { try FixtureSet.load(from: missing) }
        #expect(error1.problems.first?.jsonPath == "$.categories[2].name")
        #expect(error1.problems.first?.reason.contains("missing") == true)

        let garbage = try brokenCopy("menu.json") { String($0.dropLast(10)) }
        let error2 = try #require(throws: FixtureError.self) { try FixtureSet.load(from: garbage) }
        #expect(error2.problems.first?.file.hasSuffix("menu.json") == true)
        #expect(error2.problems.first?.reason.contains("not valid JSON") == true)
    }

    @Test func semanticProblemsAreAllReported() throws {
        let folder = try brokenCopy("menu.json") {
            $0.replacingOccurrences(of: #""category": "soups""#, with: #""category": "stews""#)
                .replacingOccurrences(of: #""image": "6.png""#, with: #""image": "../../Package.swift""#)
                .replacingOccurrences(of: #""id": 2,"#, with: #""id": 1,"#)
        }
        let error = try #require(throws: FixtureError.self) { try FixtureSet.load(from: folder) }
        let paths = error.problems.map(\.jsonPath)
        #expect(paths.contains("$.items[4].category"))
        #expect(paths.contains("$.items[5].image"))
        #expect(paths.contains("$.items[1].id"))
        #expect(error.description.contains("\"stews\" is not in categories.json"))
    }

    @Test func folderWithoutFixturesIsAnError() {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(throws: FixtureError.self) { try FixtureSet.load(from: empty) }
        #expect(throws: FixtureError.self) { try FixtureSet.load(from: empty.appendingPathComponent("nope")) }
    }
}

@Suite struct StaticAssetTests {
    let asset = StaticAsset(name: "1.png", data: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]),
                            contentType: "image/png", lastModified: Date(timeIntervalSince1970: 1_641_254_400.7))

    func get(_ headers: HeaderFields) -> ResponsePlan {
        asset.respond(to: makeRequest("GET", "/images/1.png", headers: headers), cacheControl: "public, max-age=60")
    }

    @Test func fullResponseCarriesValidators() {
        let plan = get([:])
        #expect(plan.status == 200)
        #expect(plan.headers["ETag"] == asset.etag)
        #expect(plan.headers["Last-Modified"] == "Tue, 04 Jan 2022 00:00:00 GMT")
        #expect(plan.headers["Cache-Control"] == "public, max-age=60")
        #expect(plan.headers["Content-Type"] == "image/png")
        #expect(plan.body == asset.data)
    }

    @Test func conditionalRequests() {
        #expect(get(["If-None-Match": asset.etag]).status == 304)
        #expect(get(["If-None-Match": "W/\(asset.etag)"]).status == 304)
        #expect(get(["If-None-Match": "\"other\", \(asset.etag)"]).status == 304)
        #expect(get(["If-None-Match": "*"]).status == 304)
        #expect(get(["If-None-Match": "\"other\""]).status == 200)
        #expect(get(["If-Modified-Since": "Tue, 04 Jan 2022 00:00:00 GMT"]).status == 304)
        #expect(get(["If-Modified-Since": "Mon, 03 Jan 2022 23:59:59 GMT"]).status == 200)
        // If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2).
        #expect(get(["If-None-Match": "\"other\"", "If-Modified-Since": "Tue, 04 Jan 2030 00:00:00 GMT"]).status == 200)
        #expect(get(["If-Modified-Since": "garbage"]).status == 200)
        #expect(get(["If-None-Match": asset.etag]).body.isEmpty)
    }

    @Test func imageFormatsAreSniffedFromBytes() {
        #expect(ImageFormat(sniffing: asset.data) == .png)
        #expect(ImageFormat(sniffing: Data([0xFF, 0xD8, 0xFF, 0xE0])) == .jpeg)
        #expect(ImageFormat(sniffing: Data("GIF89a".utf8)) == nil)
    }

    @Test func bodyTemplateFillsTheBaseURL() {
        let template = BodyTemplate(encoding: ["url": BodyTemplate.baseURLMarker + "/images/1.png", "b": "x"])
        #expect(String(decoding: template.render(baseURL: "http://h:1"), as: UTF8.self) == #"{"b":"x","url":"http://h:1/images/1.png"}"#)
        let plain = BodyTemplate(encoding: ["a": 1])
        #expect(String(decoding: plain.render(baseURL: "http://h:1"), as: UTF8.self) == #"{"a":1}"#)
    }
}

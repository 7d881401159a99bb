import Foundation
import MockFixtures
import Testing
@testable import BuiltInMockAPIs
@testable import MockCore

@Suite struct OpenMarketFixtureTests {
    @Test func builtInCatalogueIsBigEnoughForRealPaging() throws {
        let fixtures = try OpenMarketFixtures.load(from: MockFixtures.openMarket)
        #expect(fixtures.products.count >= 120)
        #expect(Set(fixtures.products.map(\.vendorID)).count >= 3)
        #expect(Set(fixtures.products.map(\.currency)) == ["KRW", "USD"])
        #expect(fixtures.products.contains { $0.discountedPrice > 0 })
        #expect(fixtures.products.contains { $0.stock == 0 })
        #expect(fixtures.images.values.contains { $0.contentType == "image/png" })
        #expect(fixtures.images.values.contains { $0.contentType == "image/jpeg" })
    }

    func brokenCopy(_ file: String, _ edit: (String) -> String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("om-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: MockFixtures.openMarket, to: folder.appendingPathComponent("openmarket"))
        let url = folder.appendingPathComponent("openmarket/\(file)")
        try edit(try String(contentsOf: url, encoding: .utf8)).write(to: url, atomically: true, encoding: .utf8)
        return folder
    }

    @Test func problemsNameFileAndJSONPath() throws {
        let folder = try brokenCopy("products.json") { text in
            var lines = text.components(separatedBy: "\n")
            lines[2] = lines[2].replacingOccurrences(of: "\"currency\": \"KRW\"", with: "\"currency\": \"EUR\"")
                .replacingOccurrences(of: "\"currency\": \"USD\"", with: "\"currency\": \"EUR\"")
            lines[3] = lines[3].replacingOccurrences(of: #""vendor_id": \d+"#, with: "\"vendor_id\": 99", options: .regularExpression)
            lines[4] = lines[4].replacingOccurrences(of: "\"file\": \"item", with: "\"file\": \"missing")
            lines[5] = lines[5].replacingOccurrences(of: "\"created_at\": \"2021-12-", with: "\"created_at\": \"2021/12/")
            return lines.joined(separator: "\n")
        }
        let error = try #require(throws: FixtureError.self) { try FixtureSet.load(from: folder) }
        let paths = error.problems.map(\.jsonPath)
        #expect(paths.contains("$.products[0].currency"))
        #expect(paths.contains("$.products[1].vendor_id"))
        #expect(paths.contains { $0.hasPrefix("$.products[2].images[0].file") })
        #expect(paths.contains("$.products[3].created_at"))
        #expect(error.problems.allSatisfy { $0.file.hasSuffix("openmarket/products.json") })
    }

    /// Shape problems are all reported at once, each with its own path, not just the first.
    @Test func everyShapeProblemIsReported() throws {
        let folder = try brokenCopy("products.json") { text in
            var lines = text.components(separatedBy: "\n")
            lines[2] = lines[2].replacingOccurrences(of: #""price": (\d+)"#, with: "\"price\": \"$1\"", options: .regularExpression)
            lines[3] = lines[3].replacingOccurrences(of: #""stock": \d+, "#, with: "", options: .regularExpression)
            lines[4] = lines[4].replacingOccurrences(of: #"{"id": 3,"#, with: #"{"id": 3.5,"#)
            lines[5] = lines[5].replacingOccurrences(of: #""images": \[\{"id": \d+"#, with: #""images": [{"id": null"#, options: .regularExpression)
            return lines.joined(separator: "\n")
        }
        let error = try #require(throws: FixtureError.self) { try FixtureSet.load(from: folder) }
        let found = Dictionary(error.problems.map { ($0.jsonPath, $0.reason) }, uniquingKeysWith: { first, _ in first })
        #expect(found["$.products[0].price"] == "expected a number, found a string")
        #expect(found["$.products[1].stock"] == "required key \"stock\" is missing")
        #expect(found["$.products[2].id"] == "expected an integer, found 3.5")
        #expect(found["$.products[3].images[0].id"] == "expected an integer, found null")
        #expect(error.problems.count == 4, "\(error.problems)")
    }

    /// An image missing from a folder is reported for every product that shows it, in
    /// that folder only; files found in both are read once however many products share
    /// them (#24).
    @Test func aMissingImageIsReportedForEveryProductThatShowsIt() throws {
        let folder = try brokenCopy("products.json") { text in
            var lines = text.components(separatedBy: "\n")
            lines[2] = lines[2].replacingOccurrences(of: #""file": "item\d+\.(jpg|png)""#, with: #""file": "gone.jpg""#, options: .regularExpression)
            lines[3] = lines[3].replacingOccurrences(of: #""file": "item\d+\.(jpg|png)""#, with: #""file": "gone.jpg""#, options: .regularExpression)
            return lines.joined(separator: "\n")
        }
        let thumb = folder.appendingPathComponent("openmarket/images/thumb/item02.jpg")
        try FileManager.default.removeItem(at: thumb)
        let products = try OpenMarketFixtures.load(from: MockFixtures.openMarket).products
        // Every product after the two rewritten ones that shows item02.jpg.
        let showingItem02 = products.enumerated().dropFirst(2).flatMap { index, product in
            product.images.enumerated().filter { $0.element.file == "item02.jpg" }.map { "$.products[\(index)].images[\($0.offset)].file" }
        }
        #expect(showingItem02.count >= 2, "the shipped catalogue shows item02.jpg more than once after its first two products")
        let error = try #require(throws: FixtureError.self) { try FixtureSet.load(from: folder) }
        let gone = error.problems.filter { $0.reason.contains("gone.jpg") }
        #expect(Set(gone.map(\.jsonPath)) == Set(["$.products[0].images[0].file", "$.products[0].images[1].file",
                                                   "$.products[1].images[0].file", "$.products[1].images[1].file",
                                                   "$.products[1].images[2].file"]))
        #expect(gone.filter { $0.reason.contains("images/origin/") }.count == 5)
        #expect(gone.filter { $0.reason.contains("images/thumb/") }.count == 5)
        let thumbless = error.problems.filter { $0.reason.contains("images/thumb/item02.jpg") }
        #expect(thumbless.map(\.jsonPath) == showingItem02)
        #expect(!error.problems.contains { $0.reason.contains("images/origin/item02.jpg") })
    }

    @Test func wrongTypeInVendors() throws {
        let folder = try brokenCopy("vendors.json") { $0.replacingOccurrences(of: "\"id\": 3,", with: "\"id\": \"3\",") }
        let error = try #require(throws: FixtureError.self) { try FixtureSet.load(from: folder) }
        #expect(error.problems.first?.jsonPath == "$.vendors[2].id")
        #expect(error.problems.first?.file.hasSuffix("openmarket/vendors.json") == true)
    }
}

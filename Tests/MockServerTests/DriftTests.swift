import Foundation
import MockRecording
import BuiltInMockAPIs
import MockCore
import TestSupport
import Testing

/// `mock-server drift` against a second mock-server as the upstream (#14): the same
/// variant shows no drift and is named closest; every other variant shows the differences
/// that tell them apart, each with its JSON path.
@Suite struct DriftTests {
    static let vendor = (identifier: "c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1", password: "mart1234")

    static func outcome(_ api: DriftCheck.API, upstream: String, against variant: String) async throws -> DriftOutcome {
        let server = try await TestServer.start(restaurant: RestaurantVariant(rawValue: upstream) ?? .original,
                                                openMarket: OpenMarketVariant(rawValue: upstream) ?? .jan2022)
        defer { Task { await server.stop() } }
        let check = DriftCheck(api: api, credentials: api == .openmarket ? Self.vendor : nil)
        return try await check.check(upstream: DriftCheck.upstream(server.address.url), variant: variant)
    }

    static let restaurant = RestaurantVariant.allCases.map(\.rawValue)
    static let openMarket = OpenMarketVariant.allCases.map(\.rawValue)

    @Test(arguments: restaurant.map { (DriftCheck.API.restaurant, $0) } + openMarket.map { (DriftCheck.API.openmarket, $0) })
    func theSameVariantHasNoDrift(api: DriftCheck.API, variant: String) async throws {
        let outcome = try await Self.outcome(api, upstream: variant, against: variant)
        #expect(!outcome.drifted, "\(outcome.report)")
        #expect(outcome.closest == variant, "\(outcome.report)")
    }

    /// A difference (probe, path, kind) each mismatched pair must show.
    static let pairs: [(DriftCheck.API, String, String, String, String, DriftDifference.Kind)] = [
        (.restaurant, "community", "original", "GET /categories", "$.categories[]", .type),
        (.restaurant, "original", "community", "GET /menu", "$.items[].category", .type),
        (.restaurant, "vapor-8090", "original", "GET /menu", "$.items[].estimated_prep_time", .missingKey),
        (.restaurant, "original", "vapor-8090", "GET <its first item's image_url>", "Content-Type", .contentType),
        (.restaurant, "vapor-8090", "community", "GET /menu", "$.items[].estimated_prep_time", .missingKey),
        (.restaurant, "community", "vapor-8090", "GET /categories", "$.categories[]", .type),
        (.openmarket, "openmarket-2022-late", "openmarket-2022-01", "GET /api/products?page_no=1&items_per_page=10", "$.pageNo", .missingKey),
        (.openmarket, "openmarket-2022-late", "openmarket-2022-01", "GET /api/products/<its newest product>", "$.price", .numberShape),
        (.openmarket, "openmarket-2022-01", "openmarket-2022-late", "GET /api/products?page_no=1&items_per_page=10", "$.page_no", .missingKey),
        (.openmarket, "openmarket-legacy-dates", "openmarket-2022-01", "GET /api/products/<its newest product>", "$.created_at", .dateFormat),
        (.openmarket, "openmarket-2022-01", "openmarket-legacy-dates", "GET /api/products?page_no=1&items_per_page=10", "$.pages[].issued_at", .dateFormat),
        (.openmarket, "openmarket-legacy-dates", "openmarket-2022-late", "GET /api/products/<its newest product>", "$.images[].succeed", .missingKey),
    ]

    @Test(arguments: pairs.indices)
    func everyMismatchedPairShowsItsDifferences(index: Int) async throws {
        let (api, upstream, mock, probe, path, kind) = Self.pairs[index]
        let outcome = try await Self.outcome(api, upstream: upstream, against: mock)
        #expect(outcome.drifted)
        #expect(outcome.closest == upstream, "\(outcome.report)")
        #expect(outcome.differences.contains { $0.probe == probe && $0.path == path && $0.kind == kind },
                "\(upstream) vs the mock's \(mock): no \(kind.rawValue) at \(probe) \(path)\n\(outcome.report)")
        let xml = outcome.junitXML()
        #expect(xml.contains("failures=\"") && xml.contains("<failure"))
    }

    /// Every pair of the same API that differs is told apart (not only the listed ones).
    @Test func everyOtherVariantDrifts() async throws {
        for (api, names) in [(DriftCheck.API.restaurant, Self.restaurant), (.openmarket, Self.openMarket)] {
            for upstream in names {
                let outcome = try await Self.outcome(api, upstream: upstream, against: upstream)
                for (variant, count) in outcome.distances where variant != upstream {
                    #expect(count > 0, "\(api) \(upstream) looks like \(variant)")
                }
            }
        }
    }

    @Test func numberShapesAndDatesAreReadOffTheText() throws {
        let shape = try #require(ResponseShape(json: Data(#"{"a":1,"b":1.0,"c":"12.5","d":-2e3,"e":"2022-01-04T00:00:00.00","f":"say \"1\"","g":null}"#.utf8)))
        guard case .object(let members) = shape else { Issue.record("not an object"); return }
        #expect(members["a"] == .integer)
        #expect(members["b"] == .fraction)
        #expect(members["c"] == .string)
        #expect(members["d"] == .fraction)
        #expect(members["e"] == .date(format: "dddd-dd-ddTdd:dd:dd.dd"))
        #expect(members["f"] == .string)
        #expect(members["g"] == .null)
        #expect(ResponseShape(json: Data("not json".utf8)) == nil)
    }
}

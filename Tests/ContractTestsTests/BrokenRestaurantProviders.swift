import ContractTests
import Foundation
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One defect per shipped Restaurant check, and the checks it must fail (exactly).
enum RestaurantDefect: String, CaseIterable, Sendable {
    case fetchesCategoriesTwice, filtersMenuOnTheClient, sendsOrderAsTextPlain, corruptsImageBytes
    case sortsCategories, dropsDescriptions, orderOffByOne
    case swallowsCategoryErrors, swallowsMenuErrors, swallowsOrderErrors, acceptsAnyImageStatus
    case noTimeout, timeoutTooShort, retriesOrders, collapsesRepeatedIDs
    case noImageCache, singleSlotImageCache, cachesFailures, noCoalescing, ignores304, unboundedImageCache
    case imageCacheKeyedByFileName, imageLoadsWithoutTimeout, cancelLeavesInFlightTask, retriesCancelledMenu, requiresPrepTime
    /// `GET /categories?lang=en`: a query name the API does not have, which the server ignores.
    case sendsUndocumentedQuery

    /// The failing checks, and a phrase the first one's message must contain.
    var expectation: (failing: Set<String>, phrase: String) {
        let cache = "restaurant.image-cache."
        switch self {
        case .fetchesCategoriesTwice: return (["restaurant.categories.request"], "the server saw 2 matching requests")
        case .filtersMenuOnTheClient: return (["restaurant.menu.request"], "GET /menu?category == \"soups\"")
        // The document takes application/json: the conformance check sees it too.
        case .sendsOrderAsTextPlain: return (["restaurant.order.request", "restaurant.request.conforms"], "Content-Type is text/plain")
        // Every check that compares image bytes sees it.
        case .corruptsImageBytes:
            return (["restaurant.image.request", "restaurant.image-cache.full-url-key", "restaurant.image-cache.cancellation"], "different bytes")
        case .sortsCategories: return (["restaurant.categories.decoding"], "returned [\"appetizers\", \"desserts\"")
        case .dropsDescriptions: return (["restaurant.menu.decoding"], "got #1 Spaghetti and Meatballs")
        case .orderOffByOne: return (["restaurant.order.decoding"], "returned 6")
        case .swallowsCategoryErrors: return (["restaurant.categories.errors"], "the failure was swallowed")
        // Swallowing menu errors swallows the timeout too: the hang check fails with it.
        case .swallowsMenuErrors: return (["restaurant.menu.errors", "restaurant.timeout.hang"], "the failure was swallowed")
        case .swallowsOrderErrors: return (["restaurant.order.errors"], "the failure was swallowed")
        case .acceptsAnyImageStatus: return (["restaurant.image.errors"], "under a 4xx the provider returned")
        case .noTimeout: return (["restaurant.timeout.hang"], "no timeout?")
        case .timeoutTooShort: return (["restaurant.timeout.slow-in-time"], "is the timeout shorter than the one given?")
        case .retriesOrders: return (["restaurant.order.no-retry"], "under a 500 the server saw POST /order 3 times")
        // The decoding check orders [1, 2] and [5]: no repeats, so only the request check sees it.
        case .collapsesRepeatedIDs: return (["restaurant.order.request"], "the repeated id 1 was dropped")
        // A model written against the vapor-8090 server, whose items carry estimated_prep_time.
        case .requiresPrepTime:
            return (["restaurant.menu.request", "restaurant.menu.decoding", "restaurant.image.request", "restaurant.timeout.slow-in-time"],
                    "has no key \"estimated_prep_time\"")
        case .retriesCancelledMenu: return (["restaurant.menu.cancellation"], "the server saw GET /menu 2 times")
        // The server answers as if the name were not there: only the document says no.
        case .sendsUndocumentedQuery:
            return (["restaurant.request.conforms"], "GET /categories?lang=en: $.query.lang: a query parameter the document does not have (it has none)")
        case .noImageCache, .singleSlotImageCache, .cachesFailures, .noCoalescing, .ignores304, .unboundedImageCache,
             .imageCacheKeyedByFileName, .imageLoadsWithoutTimeout, .cancelLeavesInFlightTask:
            return FaultyImageLoader.expectation(for: rawValue, prefix: cache)!
        }
    }
}

/// The original variant's menu, decoded by defects that fetch it themselves.
struct MenuDTO: Decodable {
    struct Item: Decodable {
        let id: Int
        let name, description: String
        let price: Double
        let category, image_url: String
    }
    let items: [Item]
}

/// An item as a client of the vapor-8090 server models it.
struct PrepTimed: Decodable { let estimated_prep_time: Int }

/// The reference provider with one defect.
struct BrokenRestaurantProvider: RestaurantProvider {
    let defect: RestaurantDefect
    let context: ProviderContext
    let reference: ReferenceRestaurantProvider
    /// Used for menu calls: the timeout defects affect only those.
    let menuReference: ReferenceRestaurantProvider
    let raw: RawClient
    let images: FaultyImageLoader

    init(_ defect: RestaurantDefect, context: ProviderContext) {
        self.defect = defect
        self.context = context
        reference = ReferenceRestaurantProvider(context: context)
        switch defect {
        case .noTimeout: menuReference = ReferenceRestaurantProvider(context: RawClient.context(context, timeout: 60))
        case .timeoutTooShort: menuReference = ReferenceRestaurantProvider(context: RawClient.context(context, timeout: 1))
        default: menuReference = reference
        }
        raw = RawClient(context)
        images = FaultyImageLoader(habits: FaultyImageLoader.habits(for: defect.rawValue), session: raw.session, timeout: context.timeout)
    }

    var imageCacheLimit: Int? { defect == .unboundedImageCache ? nil : 4 }

    func categories() async throws -> [String] {
        switch defect {
        case .fetchesCategoriesTwice:
            _ = try await reference.categories()
            return try await reference.categories()
        case .sortsCategories: return try await reference.categories().sorted()
        case .swallowsCategoryErrors: return (try? await reference.categories()) ?? []
        case .sendsUndocumentedQuery:
            let (data, status) = try await raw.send("GET", "/categories?lang=en")
            guard status == 200 else { throw URLError(.badServerResponse) }
            return try JSONDecoder().decode([String: [String]].self, from: data)["categories"] ?? []
        default: return try await reference.categories()
        }
    }

    func menuItems(category: String) async throws -> [RestaurantItem] {
        switch defect {
        case .filtersMenuOnTheClient:
            let (data, status) = try await raw.send("GET", "/menu")
            guard status == 200 else { throw URLError(.badServerResponse) }
            guard let items = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["items"] as? [[String: Any]] else {
                throw URLError(.cannotDecodeContentData)
            }
            return items.filter { $0["category"] as? String == category }.map {
                RestaurantItem(id: $0["id"] as? Int ?? 0, name: $0["name"] as? String ?? "", description: $0["description"] as? String ?? "",
                               price: $0["price"] as? Double ?? 0, category: category, imageURL: URL(string: $0["image_url"] as? String ?? "")!)
            }
        case .dropsDescriptions:
            return try await reference.menuItems(category: category).map {
                var item = $0
                item.description = ""
                return item
            }
        case .swallowsMenuErrors: return (try? await reference.menuItems(category: category)) ?? []
        case .requiresPrepTime:
            let (data, status) = try await raw.send("GET", "/menu?category=\(category)")
            guard status == 200 else { throw URLError(.badServerResponse) }
            _ = try JSONDecoder().decode([String: [PrepTimed]].self, from: data)
            return try await reference.menuItems(category: category)
        case .retriesCancelledMenu:
            var components = URLComponents(string: context.baseURL.absoluteString + "/menu")!
            components.queryItems = [URLQueryItem(name: "category", value: category)]
            let request = URLRequest(url: components.url!, timeoutInterval: context.timeout)
            let data = try await RetryingFetcher(session: raw.session).data(for: request)
            return try JSONDecoder().decode(MenuDTO.self, from: data).items.map {
                RestaurantItem(id: $0.id, name: $0.name, description: $0.description, price: $0.price, category: $0.category,
                               imageURL: URL(string: $0.image_url, relativeTo: context.baseURL)!.absoluteURL)
            }
        default: return try await menuReference.menuItems(category: category)
        }
    }

    func submitOrder(menuIDs: [Int]) async throws -> Int {
        switch defect {
        case .sendsOrderAsTextPlain:
            let (data, status) = try await raw.send("POST", "/order", headers: ["Content-Type": "text/plain"], body: Data("{\"menuIds\":\(menuIDs)}".utf8))
            guard status == 200 else { throw URLError(.badServerResponse) }
            guard let minutes = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["preparation_time"] as? Int else {
                throw URLError(.cannotDecodeContentData)
            }
            return minutes
        case .orderOffByOne: return try await reference.submitOrder(menuIDs: menuIDs) + 1
        case .swallowsOrderErrors: return (try? await reference.submitOrder(menuIDs: menuIDs)) ?? 0
        case .collapsesRepeatedIDs: return try await reference.submitOrder(menuIDs: Array(Set(menuIDs)).sorted())
        case .retriesOrders:
            // A common "resilience" helper: three tries on any error, POSTs included.
            var lastError: (any Error)?
            for _ in 0..<3 {
                do { return try await reference.submitOrder(menuIDs: menuIDs) } catch { lastError = error }
            }
            throw lastError ?? URLError(.unknown)
        default: return try await reference.submitOrder(menuIDs: menuIDs)
        }
    }

    func imageData(from url: URL) async throws -> Data {
        let data = try await images.data(from: url)
        return defect == .corruptsImageBytes ? data.dropFirst() : data
    }
}

@Suite(.serialized) struct BrokenRestaurantProviderTests {
    @Test(arguments: RestaurantDefect.allCases)
    func eachDefectFailsExactlyItsCheck(defect: RestaurantDefect) async throws {
        let report = await RestaurantContract.suite(configuration()).run { BrokenRestaurantProvider(defect, context: $0) }
        let (failing, phrase) = defect.expectation
        #expect(Set(report.failures.map(\.id)) == failing, "\(defect): \(report)")
        let messages = report.failures.compactMap(\.message).joined(separator: "\n")
        #expect(messages.contains(phrase), "\(defect): the failure does not say \"\(phrase)\":\n\(messages)")
    }

    /// Every shipped check is the target of at least one defect.
    @Test func everyCheckHasADefect() {
        let checks = Set(RestaurantContract.checks(configuration()).map(\.id))
        let covered = RestaurantDefect.allCases.reduce(into: Set<String>()) { $0.formUnion($1.expectation.failing) }
        #expect(checks == covered, "checks without a defect: \(checks.subtracting(covered).sorted())")
    }
}

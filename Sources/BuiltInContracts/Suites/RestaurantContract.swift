import BuiltInMockAPIs
import ContractHarness
import Foundation
import MockCore

/// The shipped contract for Restaurant providers.
///
///     let report = await RestaurantContract.suite().run { context in
///         MyRestaurantAdapter(baseURL: context.baseURL, timeout: context.timeout)
///     }
///     #expect(report.passed, "\(report)")
public enum RestaurantContract {
    /// A check of a Restaurant provider.
    public typealias Check = ContractCheck<any RestaurantProvider>

    /// The shipped suite for the variant `configuration` names.
    public static func suite(_ configuration: SuiteConfiguration) -> ContractSuite<any RestaurantProvider> {
        ContractSuite(name: "Restaurant (\(configuration.restaurantVariant.rawValue))", checks: checks(configuration), configuration: configuration)
    }

    /// The shipped checks for `configuration`'s variant, in report order.
    public static func checks(_ configuration: SuiteConfiguration) -> [Check] {
        requestShape + [conformance] + decoding(configuration.restaurantVariant) + errorHandling
            + timeouts(configuration)
            + ImageCacheChecks.checks(prefix: "restaurant.image-cache", paths: (1...5).map { "/images/\($0).png" },
                                      sameName: ("/images/1.png?v=1", "/images/1.png?v=2"),
                                      limit: { $0.imageCacheLimit }, load: { try await $0.provider.imageData(from: $1) })
    }

    // MARK: Request shape

    static let requestShape: [Check] = [
        Check("restaurant.categories.request", .required, "categories() sends one GET /categories") { run in
            _ = try await run.call("categories()") { try await run.provider.categories() }
            try await run.expectations.expect(.get("/categories"), .exactly(1))
        },
        Check("restaurant.menu.request", .required, "menuItems(category:) sends GET /menu?category=NAME") { run in
            _ = try await run.call("menuItems(category: \"soups\")") { try await run.provider.menuItems(category: "soups") }
            try await run.expectations.expect(RequestPattern(method: "GET", path: "/menu", query: ["category": .equalTo("soups")]), .exactly(1))
        },
        // A repeated id is two of that dish: an order kept in a Set loses one.
        Check("restaurant.order.request", .required, "submitOrder sends POST /order with JSON {\"menuIds\": [...]}, repeated ids and order kept") { run in
            _ = try await run.call("submitOrder(menuIDs: [1, 1, 5])") { try await run.provider.submitOrder(menuIDs: [1, 1, 5]) }
            let seen = try await run.expectations.expect(.post("/order"), .exactly(1))
            let request = seen[0].request
            var differences: [String] = []
            if request.headers["Content-Type"]?.lowercased().hasPrefix("application/json") != true {
                differences.append("Content-Type is \(request.headers["Content-Type"] ?? "missing"), not application/json")
            }
            let body = request.body.data.flatMap(JSONValue.init(parsing:))
            if body != ["menuIds": [1, 1, 5]] {
                let keys = body?.objectValue.map { $0.keys.sorted().joined(separator: ", ") } ?? "not JSON"
                var difference = "the body is \(request.body.data.map { String(decoding: $0, as: UTF8.self) } ?? "?") (keys: \(keys)); expected exactly {\"menuIds\":[1,1,5]}"
                if let ids = body?["menuIds"]?.arrayValue?.compactMap(\.intValue), Set(ids) == [1, 5], ids.count < 3 {
                    difference += " — the repeated id 1 was dropped (kept in a Set?): two of a dish is two ids"
                }
                differences.append(difference)
            }
            try run.require(differences.isEmpty, "POST /order with Content-Type: application/json and body {\"menuIds\":[1,1,5]}",
                            actual: "sent a request that differs", differences: differences)
        },
        Check("restaurant.image.request", .required, "imageData(from:) GETs the item's image_url and returns its bytes") { run in
            let items = try await run.call("menuItems(category: \"soups\")") { try await run.provider.menuItems(category: "soups") }
            let url = try items.first.map(\.imageURL) ?? { throw run.expectations.violation("one soup", actual: "no items") }()
            let data = try await run.call("imageData(from: \(url))") { try await run.provider.imageData(from: url) }
            // The soup's image as this variant names it (`5.png`, or `5.jpg` for vapor-8090).
            let image = "/images/" + (run.engine.restaurant?.variant ?? .original).imageName("5.png")
            try await run.expectations.expect(.get(image), .exactly(1))
            try run.require(data == run.truth("GET", image).body, "the image's bytes", actual: "returned \(data.count) different bytes")
        },
    ]

    /// Every call, judged against the Restaurant document of the suite's variant.
    static let conformance: Check = CommonChecks.requestsConform("restaurant.request.conforms", api: "Restaurant", calls: [
        ("categories()", { _ = try await $0.provider.categories() }),
        ("menuItems(category: \"soups\") and its first image", { run in
            let items = try await run.provider.menuItems(category: "soups")
            if let url = items.first?.imageURL { _ = try await run.provider.imageData(from: url) }
        }),
        ("submitOrder(menuIDs: [1, 5])", { _ = try await $0.provider.submitOrder(menuIDs: [1, 5]) }),
    ])

    // MARK: Decoding

    static func decoding(_ variant: RestaurantVariant) -> [Check] {
        [
            Check("restaurant.categories.decoding", .required, "categories() returns every category name, in order (\(variant.rawValue))") { run in
                let names = try await run.call("categories()") { try await run.provider.categories() }
                let expected = run.engine.restaurant?.fixtures.categories.map(\.name) ?? []
                try run.require(names == expected, "\(expected)", actual: "returned \(names)")
            },
            Check("restaurant.menu.decoding", .required, "menuItems decodes id, name, description, price, category and image URL of every item, and empty categories") { run in
                guard let fixtures = run.engine.restaurant?.fixtures else { return }
                var differences: [String] = []
                for category in fixtures.categories {
                    let items = try await run.call("menuItems(category: \"\(category.name)\")") { try await run.provider.menuItems(category: category.name) }
                    let expected = fixtures.items.filter { $0.category == category.name }.map {
                        RestaurantItem(id: $0.id, name: $0.name, description: $0.description, price: $0.price, category: $0.category,
                                       imageURL: URL(string: run.baseURL.absoluteString + "/images/" + variant.imageName($0.image))!)
                    }
                    if items.count != expected.count { differences.append("\(category.name): \(items.count) items, expected \(expected.count)") }
                    for (got, want) in zip(items, expected) where got != want {
                        differences.append("\(category.name): got \(got.summary)\n      want \(want.summary)")
                    }
                }
                try run.require(differences.isEmpty, "every field of every item as the server sent it", actual: "decoded differently", differences: differences)
            },
            Check("restaurant.order.decoding", .required, "submitOrder returns preparation_time in minutes (\(variant.rawValue) rule)") { run in
                for ids in [[5], [1, 2]] {
                    let minutes = try await run.call("submitOrder(menuIDs: \(ids))") { try await run.provider.submitOrder(menuIDs: ids) }
                    let truth = JSONValue(parsing: run.truth("POST", "/order", body: Data("{\"menuIds\":\(ids)}".utf8)).body)
                    let expected = truth?["preparation_time"]?.intValue ?? -1
                    try run.require(minutes == expected, "\(expected) minutes for \(ids)", actual: "returned \(minutes)")
                }
            },
        ]
    }

    // MARK: Errors and timeouts

    static let errorHandling: [Check] = [
        CommonChecks.errorHandling("restaurant.categories.errors", call: "categories()", pattern: .get("/categories")) { run, _ in
            try await run.provider.categories()
        },
        CommonChecks.errorHandling("restaurant.menu.errors", call: "menuItems(category:)", pattern: .get("/menu")) { run, _ in
            try await run.provider.menuItems(category: "entrees")
        },
        CommonChecks.errorHandling("restaurant.order.errors", call: "submitOrder(menuIDs:)", pattern: .post("/order")) { run, _ in
            try await run.provider.submitOrder(menuIDs: [1])
        },
        CommonChecks.writeIsNotRetried("restaurant.order.no-retry", call: "submitOrder(menuIDs:)", pattern: .post("/order")) { run in
            try await run.provider.submitOrder(menuIDs: [1])
        },
        CommonChecks.errorHandling("restaurant.image.errors", call: "imageData(from:)", pattern: .get("/images/{file}"), kinds: FailureKind.forImages) { run, kind in
            // A fresh URL per kind, so nothing cached from an earlier kind answers.
            try await run.provider.imageData(from: run.url("/images/1.png?failure=\(kind.scenarioName)"))
        },
    ]

    static func timeouts(_ configuration: SuiteConfiguration) -> [Check] {
        [
            CommonChecks.hangTimesOut("restaurant.timeout.hang", call: "menuItems(category:)", pattern: .get("/menu"), margin: configuration.timeoutMargin) { run in
                try await run.provider.menuItems(category: "entrees")
            },
            CommonChecks.slowButInTime("restaurant.timeout.slow-in-time", call: "menuItems(category:)", pattern: .get("/menu"),
                                       delay: configuration.timeout * 0.6) { run in
                try await run.provider.menuItems(category: "entrees")
            },
            CommonChecks.hangTimesOut("restaurant.image.timeout", call: "imageData(from:)", pattern: .get("/images/{file}"),
                                      margin: configuration.timeoutMargin) { run in
                try await run.provider.imageData(from: run.url("/images/2.png"))
            },
            CommonChecks.cancellationSendsNothingMore("restaurant.menu.cancellation", call: "menuItems(category:)", pattern: .get("/menu"),
                                                      delay: configuration.timeout * 0.6) { run in
                try await run.provider.menuItems(category: "entrees")
            },
        ]
    }
}

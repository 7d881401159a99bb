import Foundation
import MockFixtures
import Testing
@testable import BuiltInMockAPIs
@testable import MockCore

/// Engines sharing one `Preloaded` (a server per test) make the Restaurant's bodies and
/// the Open Market's starting catalogue once (`StartingStates`), and each still starts
/// from the fixtures, whatever the engines before it changed.
@Suite struct StartingStatesTests {
    static let shared = Result { try Preloaded.load(EngineConfiguration(fixturesDirectory: MockFixtures.directory)) }

    static func engine(_ preloaded: Preloaded?, restaurant: RestaurantVariant = .original, openMarket: OpenMarketVariant = .jan2022,
                       seed: UInt64 = 0) throws -> MockEngine {
        var configuration = EngineConfiguration(fixturesDirectory: MockFixtures.directory, seed: seed, preloaded: preloaded)
        configuration.restaurantVariant = restaurant
        configuration.openMarketVariant = openMarket
        return try MockEngine(configuration: configuration)
    }

    /// The engine's Open Market catalogue (products with their delete tokens, counters, the
    /// generator, uploads), as `--state` saves it.
    static func state(_ engine: MockEngine) throws -> JSONValue {
        try #require(JSONValue(parsing: engine.snapshot())?["openMarket"])
    }

    static func body(_ engine: MockEngine, _ uri: String) -> Data {
        engine.respond(to: makeRequest("GET", uri)).body
    }

    /// Removes the newest product and draws from the store's generator, as a delete and a
    /// create would.
    static func change(_ engine: MockEngine) throws {
        let store = try #require(engine.openMarket).store
        store.withState { state in
            let newest = state.order.removeFirst()
            state.entries[newest] = nil
            _ = state.random.next()
        }
    }

    @Test func enginesSharingFixturesMakeTheirStartsOnce() throws {
        let preloaded = Preloaded(fixtures: try Self.shared.get().fixtures)
        #expect(preloaded.starts.counts.restaurant == 0 && preloaded.starts.counts.openMarket == 0)
        for _ in 0..<3 { _ = try Self.engine(preloaded) }
        #expect(preloaded.starts.counts.restaurant == 1 && preloaded.starts.counts.openMarket == 1)
        _ = try Self.engine(preloaded, openMarket: .late2022)
        _ = try Self.engine(preloaded, restaurant: .community)
        #expect(preloaded.starts.counts.restaurant == 2 && preloaded.starts.counts.openMarket == 2)
    }

    /// Each start is made once per key, and asked again it is the one kept.
    @Test func aStartIsMadeOncePerKey() throws {
        let fixtures = try Self.shared.get().fixtures
        let restaurant = try #require(fixtures.restaurant), openMarket = try #require(fixtures.openMarket)
        let starts = StartingStates()
        let made = Locked<[String]>([])
        func bodies(_ variant: RestaurantVariant) -> RestaurantSimulator.Bodies {
            starts.kept(RestaurantSimulator.Bodies.key(variant)) {
                made.withLock { $0.append("\(variant)") }
                return RestaurantSimulator.Bodies(restaurant, variant)
            }
        }
        func start(_ variant: OpenMarketVariant, _ seed: UInt64) -> OpenMarketStore.Start {
            starts.kept(OpenMarketStore.Start.key(variant, seed)) {
                made.withLock { $0.append("\(variant) \(seed)") }
                return OpenMarketStore.start(openMarket, variant, seed)
            }
        }
        for _ in 0..<3 {
            #expect(bodies(.original).categories == RestaurantSimulator.Bodies(restaurant, .original).categories)
            #expect(bodies(.community).categories == RestaurantSimulator.Bodies(restaurant, .community).categories)
            #expect(start(.jan2022, 0).state.random == OpenMarketStore.start(openMarket, .jan2022, 0).state.random)
            #expect(start(.jan2022, 1).state.random == OpenMarketStore.start(openMarket, .jan2022, 1).state.random)
            #expect(start(.late2022, 0).wire.variant == .late2022)
        }
        #expect(made.current == ["original", "community", "jan2022 0", "jan2022 1", "late2022 0"])
    }

    @Test func eachEngineStartsFromTheFixturesWhateverTheOneBeforeChanged() throws {
        let preloaded = Preloaded(fixtures: try Self.shared.get().fixtures)
        let own = try Self.engine(nil)
        let first = try Self.engine(preloaded)
        try Self.change(first)
        #expect(try Self.state(first) != Self.state(own))
        _ = Self.body(first, "/api/products?page_no=1&items_per_page=5")

        let second = try Self.engine(preloaded)
        #expect(try Self.state(second) == Self.state(own))
        #expect(Self.body(second, "/api/products?page_no=1&items_per_page=5") == Self.body(own, "/api/products?page_no=1&items_per_page=5"))
        #expect(Self.body(second, "/api/products/1") == Self.body(own, "/api/products/1"))
        #expect(Self.body(second, "/menu") == Self.body(own, "/menu"))
        #expect(Self.body(second, "/categories") == Self.body(own, "/categories"))

        // A reset goes back to the same start.
        try Self.change(second)
        second.resetState()
        #expect(try Self.state(second) == Self.state(own))
    }

    @Test func eachVariantAndSeedHasItsOwnStart() throws {
        let preloaded = Preloaded(fixtures: try Self.shared.get().fixtures)
        for (restaurant, openMarket, seed) in [(RestaurantVariant.community, OpenMarketVariant.late2022, UInt64(0)),
                                                (.vapor8090, .legacyDates, 7), (.original, .jan2022, 7)] {
            let own = try Self.engine(nil, restaurant: restaurant, openMarket: openMarket, seed: seed)
            // The first engine makes the starts, the second is given the kept ones.
            for _ in 0..<2 {
                let sharing = try Self.engine(preloaded, restaurant: restaurant, openMarket: openMarket, seed: seed)
                #expect(try Self.state(sharing) == Self.state(own), "\(openMarket), seed \(seed)")
                #expect(Self.body(sharing, "/api/products/1") == Self.body(own, "/api/products/1"), "\(openMarket)")
                #expect(Self.body(sharing, "/api/products?page_no=1&items_per_page=3") == Self.body(own, "/api/products?page_no=1&items_per_page=3"),
                        "\(openMarket)")
                #expect(Self.body(sharing, "/menu") == Self.body(own, "/menu"), "\(restaurant)")
                #expect(Self.body(sharing, "/categories") == Self.body(own, "/categories"), "\(restaurant)")
            }
        }
    }

    @Test func theOpenMarketStartsAreBounded() throws {
        let preloaded = Preloaded(fixtures: try Self.shared.get().fixtures)
        let limit = StartingStates.limit
        for seed in 0..<UInt64(limit + 2) {
            let sharing = try Self.engine(preloaded, seed: seed)
            #expect(preloaded.starts.keys.count <= limit)
            #expect(try Self.state(sharing) == Self.state(Self.engine(nil, seed: seed)), "seed \(seed)")
        }
        // The Restaurant's bodies and 15 catalogues fill it; emptied, it keeps the 16th
        // catalogue, then the bodies again and two more catalogues.
        #expect(preloaded.starts.counts.openMarket == 3 && preloaded.starts.counts.restaurant == 1)
    }
}

extension StartingStates {
    /// How many values each built-in API keeps.
    var counts: (restaurant: Int, openMarket: Int) {
        (keys.filter { $0.hasPrefix("restaurant.") }.count, keys.filter { $0.hasPrefix("openmarket.") }.count)
    }
}

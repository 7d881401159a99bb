import Foundation

/// What every engine built from one shared `Preloaded` makes the same way, made by the
/// first and reused by the rest: the Restaurant's encoded bodies per variant, and the Open
/// Market's starting catalogue (products, delete tokens, id counters) per variant and seed.
///
/// A server per test (`TestMockServer`, each contract check) builds its APIs from
/// fixtures read once per process. Profiled (`contract-timing servers` under callgrind),
/// encoding the menu and building the catalogue were about 2 M of the 4.7 M instructions
/// such a server cost from start to stop (#24). Both are values: an engine's store changes
/// its own copy, and a product's rendering made for one engine serves the next
/// (`OpenMarketStore.Rendered`).
///
/// Kept only for a `Preloaded` that engines share: its fixtures are `let`s, so what is
/// made here stays true of them. An engine that reads its own fixtures keeps no second,
/// unchanging catalogue beside the one it changes.
///
/// Bounded: one entry per Restaurant variant (an enum), and at most `openMarketLimit`
/// Open Market starts (variant and seed); a full table is emptied before the next is kept.
final class StartingStates: Sendable {
    static let openMarketLimit = 8

    private struct OpenMarketKey: Hashable {
        let variant: OpenMarketVariant
        let seed: UInt64
    }

    private let restaurant = Locked<[RestaurantVariant: RestaurantSimulator.Bodies]>([:])
    private let openMarket = Locked<[OpenMarketKey: OpenMarketStore.Start]>([:])

    init() {}

    /// The bodies kept for `variant`, or `make()`'s, kept.
    func restaurant(_ variant: RestaurantVariant, make: () -> RestaurantSimulator.Bodies) -> RestaurantSimulator.Bodies {
        Self.kept(variant, in: restaurant, limit: nil, make: make)
    }

    /// The starting catalogue kept for `variant` and `seed`, or `make()`'s, kept.
    func openMarket(_ variant: OpenMarketVariant, seed: UInt64, make: () -> OpenMarketStore.Start) -> OpenMarketStore.Start {
        Self.kept(OpenMarketKey(variant: variant, seed: seed), in: openMarket, limit: Self.openMarketLimit, make: make)
    }

    /// Made outside the lock: two engines starting at once may both make it, and the first
    /// kept wins. A table at `limit` is emptied before the next is kept.
    private static func kept<Key: Hashable, Value>(_ key: Key, in table: Locked<[Key: Value]>, limit: Int?,
                                                   make: () -> Value) -> Value {
        if let kept = table.withLock({ $0[key] }) { return kept }
        let made = make()
        return table.withLock { kept in
            if let earlier = kept[key] { return earlier }
            if let limit, kept.count >= limit { kept.removeAll() }
            kept[key] = made
            return made
        }
    }

    /// How many starts are kept (for tests): Restaurant variants, Open Market starts.
    var counts: (restaurant: Int, openMarket: Int) {
        (restaurant.withLock { $0.count }, openMarket.withLock { $0.count })
    }
}

import Foundation

/// What every engine built from one shared `Preloaded` makes the same way, made by the
/// first and reused by the rest (`APIContext.shared(_:make:)`): an API's encoded bodies
/// per variant, its starting catalogue per variant and seed.
///
/// A server per test (`TestMockServer`, each contract check) builds its APIs from
/// fixtures read once per process; encoding fixed bodies and building a catalogue are
/// most of what such a server costs from start to stop (`Benchmarks/README.md`). What is
/// kept are values: an engine's store changes its own copy.
///
/// Kept only for a `Preloaded` that engines share: its fixtures are `let`s, so what is
/// made here stays true of them. An engine that reads its own fixtures keeps no second,
/// unchanging catalogue beside the one it changes.
///
/// Bounded: at most `limit` values; a full table is emptied before the next is kept.
final class StartingStates: Sendable {
    static let limit = 16

    private let kept = Locked<[String: any Sendable]>([:])

    init() {}

    /// The value kept for `key`, or `make()`'s, kept. Made outside the lock: two engines
    /// starting at once may both make it, and the first kept wins. A key names one API's
    /// value (its name first); a kept value of another type is made again, not trusted.
    func kept<Value: Sendable>(_ key: String, make: () -> Value) -> Value {
        if let kept = kept.withLock({ $0[key] }) as? Value { return kept }
        let made = make()
        return kept.withLock { kept in
            if let earlier = kept[key] as? Value { return earlier }
            if kept.count >= Self.limit { kept.removeAll() }
            kept[key] = made
            return made
        }
    }

    /// The keys kept (for tests).
    var keys: [String] { kept.withLock { Array($0.keys) } }
}

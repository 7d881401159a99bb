import Foundation

/// Where the engine reads the time. Inject a `ManualTimeSource` in tests so anything
/// timed (journal timestamps, creation dates, scenario timing) is exact and instant.
public protocol TimeSource: Sendable {
    /// The current date on this clock.
    func now() -> Date
}

/// The wall clock: `Date()`.
public struct SystemTimeSource: TimeSource {
    /// Makes the wall clock.
    public init() {}
    /// The current date.
    public func now() -> Date { Date() }
}

/// A clock that moves only when told to.
public final class ManualTimeSource: TimeSource {
    private let current: Locked<Date>

    /// Makes a clock stopped at `start` (by default 2022-01-04 00:00:00 UTC).
    public init(_ start: Date = Date(timeIntervalSince1970: 1_641_254_400)) { current = Locked(start) }

    /// The clock's current date; it changes only through `advance(by:)` and `set(_:)`.
    public func now() -> Date { current.current }

    /// Moves the clock forward by `seconds` (backward when negative).
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// Sets the clock to `date`.
    public func set(_ date: Date) { current.withLock { $0 = date } }
}

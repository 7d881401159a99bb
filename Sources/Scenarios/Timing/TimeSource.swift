import Foundation

/// Where the engine reads the time. Inject a `ManualTimeSource` in tests so anything
/// timed (journal timestamps, creation dates, scenario timing) is exact and instant.
public protocol TimeSource: Sendable {
    func now() -> Date
}

public struct SystemTimeSource: TimeSource {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that moves only when told to.
public final class ManualTimeSource: TimeSource {
    private let current: Locked<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_641_254_400)) { current = Locked(start) }

    public func now() -> Date { current.current }

    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    public func set(_ date: Date) { current.withLock { $0 = date } }
}

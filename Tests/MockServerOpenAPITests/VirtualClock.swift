import MockCore

/// A clock whose sleeps return at once and move its time forward: delays are exact and
/// cost nothing. `slept` is the total time asked for.
final class VirtualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private let time = Locked(Instant(offset: .zero))
    var now: Instant { time.current }
    var minimumResolution: Duration { .zero }
    var slept: Duration { time.current.offset }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        time.withLock { $0 = max($0, deadline) }
    }
}

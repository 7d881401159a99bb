import Foundation

/// A clock that stands still until the test moves it: for an API that takes a `Clock`
/// (the contract harness's `SuiteConfiguration.clock`, `MockEngineTransport`).
///
/// A sleep on it ends only when `advance(by:)` (or `advance(to:)`,
/// `advanceToNextDeadline()`) passes its deadline, or when its task is cancelled (it then
/// throws `CancellationError`, as `Task.sleep` does). A busy machine can make such a test
/// slower, never different: nothing happens between two moves of the clock.
///
/// The test learns that the code under test is waiting from the clock itself, not from a
/// pause of its own: `sleepers(atLeast:)` returns once that many sleeps are pending.
///
///     let clock = TestClock()
///     async let report = suite.run { ... }          // its time limit sleeps on `clock`
///     await clock.sleepers(atLeast: 2)              // the limit and the check's own wait
///     clock.advance(by: .seconds(1))                // the limit passes: the check is stopped
public final class TestClock: Clock, @unchecked Sendable {
    /// A point on the clock: the time it was moved by since it was made.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
        public var description: String { "\(offset)" }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var pending: [Sleeper] = []
    /// Sleeps and waits cancelled before they were registered (their cancel handler ran first).
    private var cancelledEarly: Set<UInt64> = []
    private var lastID: UInt64 = 0
    private var watchers: [(id: UInt64, count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init() {}

    public var now: Instant { lock.withLock { current } }
    public var minimumResolution: Duration { .zero }

    /// How many sleeps are pending now.
    public var sleeperCount: Int { lock.withLock { pending.count } }

    /// The earliest deadline a pending sleep waits for, if any.
    public var nextDeadline: Instant? { lock.withLock { pending.map(\.deadline).min() } }

    /// Waits until `deadline` is reached by a move of the clock, or throws
    /// `CancellationError` when the task is cancelled first. A deadline already reached
    /// returns at once.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = lock.withLock { () -> UInt64 in
            lastID += 1
            return lastID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = lock.withLock { () -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if cancelledEarly.remove(id) != nil { return (.failure(CancellationError()), []) }
                    if deadline <= current { return (.success(()), []) }
                    pending.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (nil, takeSatisfiedWatchers())
                }
                if let result = outcome.0 { continuation.resume(with: result) }
                outcome.1.forEach { $0.resume() }
            }
        } onCancel: {
            let sleeper = lock.withLock { () -> Sleeper? in
                guard let index = pending.firstIndex(where: { $0.id == id }) else {
                    cancelledEarly.insert(id)
                    return nil
                }
                return pending.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns once at least `count` sleeps are pending (at once if they are now), or when
    /// the task is cancelled (a test past its time limit).
    public func sleepers(atLeast count: Int) async {
        let id = lock.withLock { () -> UInt64 in
            lastID += 1
            return lastID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = lock.withLock { () -> Bool in
                    guard pending.count < count, cancelledEarly.remove(id) == nil else { return true }
                    watchers.append((id, count, continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let watcher = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                guard let index = watchers.firstIndex(where: { $0.id == id }) else {
                    cancelledEarly.insert(id)
                    return nil
                }
                return watchers.remove(at: index).continuation
            }
            watcher?.resume()
        }
    }

    /// Moves the clock forward by `duration`, ending every sleep whose deadline that
    /// reaches (earliest first).
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }

    /// Moves the clock to `instant` (never back), ending every sleep whose deadline that
    /// reaches (earliest first).
    public func advance(to instant: Instant) {
        let due = lock.withLock { () -> [Sleeper] in
            current = max(current, instant)
            let due = pending.filter { $0.deadline <= current }.sorted { $0.deadline < $1.deadline }
            pending.removeAll { $0.deadline <= current }
            return due
        }
        due.forEach { $0.continuation.resume() }
    }

    /// Moves the clock to the earliest pending deadline, ending the sleeps due then (and
    /// no other); returns that instant, or nil (and stays put) when nothing sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> Instant? {
        guard let next = nextDeadline else { return nil }
        advance(to: next)
        return next
    }

    /// The time since the clock was made, in seconds.
    public var elapsedSeconds: Double {
        let components = now.offset.components
        return Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// Called with the lock held: the watchers whose count the pending sleeps now reach.
    private func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
        let satisfied = watchers.filter { pending.count >= $0.count }.map(\.continuation)
        watchers.removeAll { pending.count >= $0.count }
        return satisfied
    }
}

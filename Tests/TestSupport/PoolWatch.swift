import Dispatch
import Foundation

/// Measures, from a thread of its own, how long a new task waits for a thread of Swift's
/// shared pool while it runs.
///
/// A test whose claim needs the pool to act within a margin (a server's `stop()` reaching
/// its connections before a delayed answer is due) cannot tell a broken feature from a
/// run that held the pool for longer than the margin: a neighbour blocking the pool on
/// purpose, or the backlog of hundreds of tests after one did. CI once showed every test
/// of the run finishing at the same instant after 18.6 s. This tells the two apart: an
/// attempt during which the pool answered slower than the margin proves nothing either way.
public final class PoolWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var longestNanoseconds: UInt64 = 0
    private var stopped = false
    private var joined = false
    private let finished = DispatchSemaphore(value: 0)

    /// Starts probing: a task every `interval`, each waited for before the next. The probes
    /// run at `priority`, which should be that of the work being judged: the pool gives a
    /// thread at once to a task whose priority no busy thread has (Darwin's kernel pool, and
    /// the Swift runtime's queue per priority on Linux).
    public init(interval: TimeInterval = 0.05, priority: TaskPriority? = nil) {
        let thread = Thread { [self] in
            probe(interval: interval, priority: priority)
            finished.signal()
        }
        thread.start()
    }

    /// The longest any probe waited for a pool thread so far, in seconds (a probe still
    /// waiting counts with its wait up to now).
    public var longestWait: TimeInterval {
        lock.withLock { Double(longestNanoseconds) / 1e9 }
    }

    /// Stops probing and returns the longest wait.
    @discardableResult
    public func stop() -> TimeInterval {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true; joined = true }
            return !joined
        }
        if first { finished.wait() }
        return longestWait
    }

    private func probe(interval: TimeInterval, priority: TaskPriority?) {
        while !lock.withLock({ stopped }) {
            let start = DispatchTime.now().uptimeNanoseconds
            let ran = DispatchSemaphore(value: 0)
            Task.detached(priority: priority) { ran.signal() }
            var waiting = true
            while waiting {
                waiting = ran.wait(timeout: .now() + 0.02) == .timedOut
                let waited = DispatchTime.now().uptimeNanoseconds - start
                let stop = lock.withLock {
                    longestNanoseconds = max(longestNanoseconds, waited)
                    return stopped
                }
                if stop { return }
            }
            Thread.sleep(forTimeInterval: interval)
        }
    }
}

import Foundation
import MockCore

/// Waits for what another task does, each bounded: a test whose awaited event never
/// comes fails with `TimedOut` (the run goes on) instead of hanging the run. The bound is
/// no timing of the code under test: a passing test never reaches it, so it is 5 minutes,
/// which a loaded 2-core machine does not use up (a full run here once held a task for
/// over 3 minutes).
let waitLimitSeconds = 300

/// What a bounded wait throws when its limit passes first.
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "\(what) did not happen within \(waitLimitSeconds) s" }
}

/// What `body` returns, or `TimedOut` (named `what`) once `waitLimitSeconds` pass first.
/// `body` runs in a task of its own, which inherits the caller's task-locals (its test's
/// interception scope); at the limit that task is cancelled but not waited for, so a wait
/// that ignores cancellation fails the test rather than hanging the run.
func bounded<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let first = FirstResult<T>()
    let work = Task { try await body() }
    Task { first.offer(await work.result) }
    let timer = Task {
        try await Task.sleep(nanoseconds: UInt64(waitLimitSeconds) * 1_000_000_000)
        first.offer(.failure(TimedOut(what: what)))
        work.cancel()
    }
    defer { timer.cancel() }
    return try await withTaskCancellationHandler {
        try await first.value()
    } onCancel: {
        work.cancel()
    }
}

/// The first of the results offered; later ones are dropped.
private final class FirstResult<T: Sendable>: Sendable {
    private let state = Locked<(result: Result<T, any Error>?, waiter: CheckedContinuation<T, any Error>?)>((nil, nil))

    func offer(_ result: Result<T, any Error>) {
        let waiter: CheckedContinuation<T, any Error>?? = state.withLock { state in
            guard state.result == nil else { return .none }
            state.result = result
            defer { state.waiter = nil }
            return .some(state.waiter)
        }
        if case .some(.some(let waiter)) = waiter { waiter.resume(with: result) }
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let result = state.withLock { state in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let result { continuation.resume(with: result) }
        }
    }
}

/// A one-way signal: `wait()` returns once `fire()` was called.
final class Signal: Sendable {
    private let state = Locked((fired: false, waiters: [CheckedContinuation<Void, Never>]()))

    func fire() {
        let waiters = state.withLock { state in
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns once `fire()` was called; throws `TimedOut` if it is not within the limit.
    func wait() async throws {
        try await bounded("a signal") { await self.unboundedWait() }
    }

    private func unboundedWait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let fired = state.withLock { state in
                if !state.fired { state.waiters.append(continuation) }
                return state.fired
            }
            if fired { continuation.resume() }
        }
    }

    var fired: Bool { state.withLock { $0.fired } }
}

/// Whether `condition` holds within the limit, looked at every 10 ms: a bound for a state
/// another task reaches, so that a test fails instead of hanging when it never does.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<(waitLimitSeconds * 100) {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return condition()
}

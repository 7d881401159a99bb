import Foundation

/// Runs a long, CPU-bound check (thousands of generated inputs) on a thread of its own,
/// and suspends until it is done.
///
/// Done inside a test's task, it would hold one of the cooperative pool's threads (as
/// many as cores) for seconds of a debug build: on 2 cores the other tests' tasks then
/// wait, and the ones that time a client fail. (`TestSupport.onOwnThread` does the same
/// for the targets that depend on it.)
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}

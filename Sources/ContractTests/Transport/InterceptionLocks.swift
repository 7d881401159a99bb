import Foundation
import Scenarios

/// One lock per intercepted host name, process-wide: tests that intercept the same host
/// run one at a time, in the order they asked, while tests that intercept other hosts (or
/// none) run beside them. A test takes the locks of all its host names in sorted order,
/// so two tests never each hold a lock the other waits for. Holds only the names held or
/// waited for now.
final class InterceptionLocks: Sendable {
    static let shared = InterceptionLocks()

    private struct State {
        var held: Set<String> = []
        /// Waiters per held name, first come first served.
        var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
    }

    private let state = Locked(State())

    /// Takes the lock of every name in `names`, waiting while another test holds one.
    /// The wait is not cancellable: the test holding the name ends in its own time.
    func acquire(_ names: [String]) async {
        for name in Set(names).sorted() {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let granted = state.withLock { state in
                    if state.held.insert(name).inserted { return true }
                    state.waiting[name, default: []].append(continuation)
                    return false
                }
                if granted { continuation.resume() }
            }
        }
    }

    /// Gives the locks of `names` back; each goes straight to its next waiter, if any.
    func release(_ names: [String]) {
        for name in Set(names) {
            let next: CheckedContinuation<Void, Never>? = state.withLock { state in
                guard var queue = state.waiting[name], !queue.isEmpty else {
                    state.held.remove(name)
                    return nil
                }
                let next = queue.removeFirst()
                state.waiting[name] = queue.isEmpty ? nil : queue
                return next
            }
            next?.resume()
        }
    }

    /// Whether a test holds `name` now.
    func isHeld(_ name: String) -> Bool { state.withLock { $0.held.contains(name) } }

    /// How many tests wait for `name` now.
    func waiting(for name: String) -> Int { state.withLock { $0.waiting[name]?.count ?? 0 } }
}

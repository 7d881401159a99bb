import Foundation
import Scenarios

/// One lock per intercepted host name, process-wide: tests that intercept the same host
/// run one at a time, in the order they asked, while tests that intercept other hosts (or
/// none) run beside them. A test takes the locks of all the host names it asks for at
/// once in sorted order, so two tests that name their hosts at once never each hold a
/// lock the other waits for. Holds only the names held or waited for now.
///
/// The locks are re-entrant per test. Locks are held by a `Holder`: one test's scope and
/// every task that runs in it (`current`, a task-local that child tasks inherit). A
/// holder that asks again for a name it holds gets it at once, and the name is free again
/// only when the last of the holder's holds on it is given back; so a test inside a suite
/// that intercepts the same host, or `intercepting` nested in itself, never waits for
/// itself. Any other holder, and a task that runs in no holder's scope, waits as before.
final class InterceptionLocks: Sendable {
    static let shared = InterceptionLocks()

    /// Who holds locks: one test's scope and the tasks that run in it. Compared by identity.
    final class Holder: Sendable {}

    /// The holder whose scope the current task runs in, if any.
    @TaskLocal static var current: Holder?

    private struct Hold {
        let holder: Holder
        /// How many holds on the name the holder has not given back.
        var count: Int
    }

    private struct Waiter {
        let holder: Holder
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var held: [String: Hold] = [:]
        /// Waiters per held name, first come first served.
        var waiting: [String: [Waiter]] = [:]
    }

    private let state = Locked(State())

    /// Takes the lock of every name in `names` for `holder`, waiting while another holder
    /// has one; a name `holder` has already is taken again at once. The wait is not
    /// cancellable: the test holding the name ends in its own time.
    func acquire(_ names: [String], for holder: Holder) async {
        for name in Set(names).sorted() {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let granted = state.withLock { state in
                    guard var hold = state.held[name] else {
                        state.held[name] = Hold(holder: holder, count: 1)
                        return true
                    }
                    if hold.holder === holder {
                        hold.count += 1
                        state.held[name] = hold
                        return true
                    }
                    state.waiting[name, default: []].append(Waiter(holder: holder, continuation: continuation))
                    return false
                }
                if granted { continuation.resume() }
            }
        }
    }

    /// Gives back one of `holder`'s holds on each name in `names`. A name whose last hold
    /// is given back goes straight to its next waiter, if any (with every other waiter of
    /// that waiter's holder).
    func release(_ names: [String], for holder: Holder) {
        for name in Set(names) {
            let granted: [CheckedContinuation<Void, Never>] = state.withLock { state in
                guard var hold = state.held[name], hold.holder === holder else { return [] }
                hold.count -= 1
                guard hold.count == 0 else {
                    state.held[name] = hold
                    return []
                }
                guard let queue = state.waiting.removeValue(forKey: name), let next = queue.first else {
                    state.held[name] = nil
                    return []
                }
                let (theirs, others) = (queue.filter { $0.holder === next.holder }, queue.filter { $0.holder !== next.holder })
                state.held[name] = Hold(holder: next.holder, count: theirs.count)
                if !others.isEmpty { state.waiting[name] = others }
                return theirs.map(\.continuation)
            }
            granted.forEach { $0.resume() }
        }
    }

    /// Whether a test holds `name` now.
    func isHeld(_ name: String) -> Bool { state.withLock { $0.held[name] != nil } }

    /// How many tests wait for `name` now.
    func waiting(for name: String) -> Int { state.withLock { $0.waiting[name]?.count ?? 0 } }
}

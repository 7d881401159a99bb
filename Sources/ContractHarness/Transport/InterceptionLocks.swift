import Foundation
import MockCore

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
/// itself. Any other holder, and a task that runs in no holder's scope, waits.
///
/// No wait lasts forever unseen: a wait that would close a cycle (holders each waiting
/// for a name another of them holds) fails at once with `InterceptionError.wouldDeadlock`,
/// and a waiting task that is cancelled stops waiting with `InterceptionError.cancelled`.
final class InterceptionLocks: Sendable {
    static let shared = InterceptionLocks()

    /// Who holds locks: one test's scope and the tasks that run in it. Compared by identity.
    final class Holder: Sendable {
        /// For the holder of one interception made outside any scope: the task that made
        /// it, taken to be the one that ends it. A wait of that task is a wait of this
        /// holder too, so that task asking for one of its hosts again fails rather than
        /// waits for itself. Nil for a test's scope. Once the maker has finished, a later
        /// task may have its identity (`TaskIdentity`) and be taken for it.
        let maker: TaskIdentity?

        init(madeBy maker: TaskIdentity? = nil) { self.maker = maker }
    }

    /// The holder whose scope the current task runs in, if any.
    @TaskLocal static var current: Holder?

    fileprivate struct Hold {
        let holder: Holder
        /// How many holds on the name the holder has not given back.
        var count: Int
    }

    fileprivate struct Waiter {
        let id: UInt64
        let holder: Holder
        let task: TaskIdentity?
        /// Resumed once: nil when the name is granted, else why the wait failed.
        let continuation: CheckedContinuation<InterceptionError?, Never>

        /// Whether this wait keeps `holder` from going on: the wait is one of its own
        /// tasks', or that of the task that made it.
        func blocks(_ holder: Holder) -> Bool {
            self.holder === holder || (holder.maker != nil && task == holder.maker)
        }
    }

    fileprivate struct State {
        var held: [String: Hold] = [:]
        /// Waiters per held name, first come first served.
        var waiting: [String: [Waiter]] = [:]
        var nextWaiter: UInt64 = 0
    }

    /// What asking for one name came to at once.
    private enum Outcome {
        case granted
        case failed(InterceptionError)
        case queued
    }

    private let state = Locked(State())

    /// Takes the lock of every name in `names` for `holder`, waiting while another holder
    /// has one; a name `holder` has already is taken again at once.
    ///
    /// - Throws: `InterceptionError.wouldDeadlock` when waiting for a name would never
    ///   end, `InterceptionError.cancelled` when the task is cancelled while it waits.
    ///   Either way `holder` holds none of `names` more than it did before.
    func acquire(_ names: [String], for holder: Holder) async throws(InterceptionError) {
        let task = TaskIdentity.current
        var taken: [String] = []
        for name in Set(names).sorted() {
            if let failure = await take(name, for: holder, in: task) {
                release(taken, for: holder)
                throw failure
            }
            taken.append(name)
        }
    }

    /// Takes `name` for `holder`, waiting for it if need be: nil once taken, else why not.
    private func take(_ name: String, for holder: Holder, in task: TaskIdentity?) async -> InterceptionError? {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<InterceptionError?, Never>) in
                let outcome: Outcome = state.withLock { state in
                    guard var hold = state.held[name] else {
                        state.held[name] = Hold(holder: holder, count: 1)
                        return .granted
                    }
                    if hold.holder === holder {
                        hold.count += 1
                        state.held[name] = hold
                        return .granted
                    }
                    // Checked under the lock, so a cancellation either comes before this
                    // (and fails the wait here) or finds the waiter queued.
                    if Task.isCancelled { return .failed(.cancelled(host: name)) }
                    if let cycle = state.cycle(closedBy: holder, in: task, waitingFor: name) {
                        return .failed(.wouldDeadlock(host: name, cycle: cycle))
                    }
                    state.waiting[name, default: []].append(Waiter(id: id, holder: holder, task: task, continuation: continuation))
                    return .queued
                }
                switch outcome {
                case .granted: continuation.resume(returning: nil)
                case .failed(let error): continuation.resume(returning: error)
                case .queued: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.removeWaiter(id, of: name) }
            waiter?.continuation.resume(returning: .cancelled(host: name))
        }
    }

    /// Gives back one of `holder`'s holds on each name in `names`. A name whose last hold
    /// is given back goes straight to its next waiter, if any (with every other waiter of
    /// that waiter's holder); a waiter left behind for whom the new holder closes a cycle
    /// fails with `InterceptionError.wouldDeadlock`.
    func release(_ names: [String], for holder: Holder) {
        for name in Set(names) {
            let resumed: [(CheckedContinuation<InterceptionError?, Never>, InterceptionError?)] = state.withLock { state in
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
                var resumed = theirs.map { ($0.continuation, InterceptionError?.none) }
                // The others now wait for the new holder, which may wait for one of them.
                for waiter in others {
                    guard let cycle = state.cycle(closedBy: waiter.holder, in: waiter.task, waitingFor: name) else { continue }
                    _ = state.removeWaiter(waiter.id, of: name)
                    resumed.append((waiter.continuation, .wouldDeadlock(host: name, cycle: cycle)))
                }
                return resumed
            }
            resumed.forEach { $0.0.resume(returning: $0.1) }
        }
    }

    /// Whether a test holds `name` now.
    func isHeld(_ name: String) -> Bool { state.withLock { $0.held[name] != nil } }

    /// How many tests wait for `name` now.
    func waiting(for name: String) -> Int { state.withLock { $0.waiting[name]?.count ?? 0 } }
}

extension InterceptionLocks.State {
    /// The names held around the cycle that `holder`, in `task`, would close by waiting
    /// for `name` (from `name` on), or nil if the wait would end once the holders ahead
    /// of it give their names back.
    ///
    /// A cycle is a chain of holders, each kept from going on by a wait for a name the
    /// next holds, back to one that the waiting `holder` or `task` keeps from going on.
    func cycle(closedBy holder: InterceptionLocks.Holder, in task: TaskIdentity?, waitingFor name: String) -> [String]? {
        var visited: Set<ObjectIdentifier> = []
        func search(from name: String) -> [String]? {
            guard let owner = held[name]?.holder else { return nil }
            if owner === holder || (owner.maker != nil && owner.maker == task) { return [name] }
            guard visited.insert(ObjectIdentifier(owner)).inserted else { return nil }
            for waited in waiting.keys.sorted() where waiting[waited]?.contains(where: { $0.blocks(owner) }) == true {
                if let rest = search(from: waited) { return [name] + rest }
            }
            return nil
        }
        return search(from: name)
    }

    /// Takes waiter `id` off the queue of `name`, if it is still there.
    mutating func removeWaiter(_ id: UInt64, of name: String) -> InterceptionLocks.Waiter? {
        guard var queue = waiting[name], let index = queue.firstIndex(where: { $0.id == id }) else { return nil }
        let waiter = queue.remove(at: index)
        waiting[name] = queue.isEmpty ? nil : queue
        return waiter
    }
}

/// Which task runs: what the locks tell apart the task that made a holder by. Equal
/// while both tasks run; a finished task's identity may come back as a later task's.
struct TaskIdentity: Hashable, Sendable {
    private let hash: Int

    /// The current task's, or nil outside any task.
    static var current: TaskIdentity? { withUnsafeCurrentTask { $0.map { TaskIdentity(hash: $0.hashValue) } } }
}

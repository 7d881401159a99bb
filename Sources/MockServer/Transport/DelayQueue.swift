import MockCore
import NIOCore

/// The delayed responses of one event loop, in deadline order, behind one NIO timer armed
/// for the earliest.
///
/// Why not one `scheduleTask` per response: NIO keeps scheduled tasks in a binary heap of
/// structs holding two closures, and every sift copies them. With thousands of delayed
/// responses pending, those copies and their reference counting take a real share of
/// the server's CPU, and they lengthen the wave that the last response waits behind.
/// Scenario delays are mostly the same per route, so deadlines nearly always arrive in
/// order: appending and taking the first are O(1) (a ring buffer), and an earlier
/// deadline is put in place by a binary search. Equal deadlines keep their arrival order.
///
/// Used only on its event loop (each connection's handler reaches its own loop's queue).
final class DelayQueue {
    private struct Entry {
        let deadline: NIODeadline
        let action: () -> Void
    }

    private let eventLoop: any EventLoop
    /// The loop's whole answers kept for reuse (`ResponseCache`): like the delays, shared
    /// by the loop's connections and used only on the loop, so it lives beside them.
    let responses = ResponseCache()
    @exclusivity(unchecked) private var entries = CircularBuffer<Entry>(initialCapacity: 64)
    @exclusivity(unchecked) private var armed: (deadline: NIODeadline, task: Scheduled<Void>)?

    /// Deadlines are on the loop's clock (`EventLoop.now`: an `EmbeddedEventLoop`'s own in tests).
    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// How many actions wait (for tests).
    var count: Int { entries.count }

    /// Runs `action` on the event loop at `deadline` (at once if it has passed).
    func schedule(at deadline: NIODeadline, _ action: @escaping () -> Void) {
        eventLoop.assertInEventLoop()
        let entry = Entry(deadline: deadline, action: action)
        if let last = entries.last, last.deadline > deadline {
            var low = 0, high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if entries[entries.index(entries.startIndex, offsetBy: middle)].deadline <= deadline { low = middle + 1 } else { high = middle }
            }
            entries.insert(entry, at: entries.index(entries.startIndex, offsetBy: low))
        } else {
            entries.append(entry)
        }
        arm()
    }

    private func arm() {
        guard let first = entries.first?.deadline else { return }
        if let armed {
            if armed.deadline <= first { return }
            armed.task.cancel()
        }
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        armed = (first, eventLoop.scheduleTask(deadline: first) { bound.value.fire() })
    }

    private func fire() {
        armed = nil
        let now = eventLoop.now
        while let first = entries.first, first.deadline <= now {
            entries.removeFirst()
            first.action()
        }
        arm()
    }
}

/// One `DelayQueue` per event loop of a server.
final class DelayQueues: Sendable {
    private let queues: Locked<[ObjectIdentifier: NIOLoopBound<DelayQueue>]>

    init() {
        queues = Locked([:])
    }

    /// Queues whose one for `queue`'s loop is `queue` (an `EmbeddedEventLoop`'s, which
    /// keeps that loop's clock); call on that loop.
    init(_ queue: DelayQueue, on eventLoop: any EventLoop) {
        queues = Locked([ObjectIdentifier(eventLoop): NIOLoopBound(queue, eventLoop: eventLoop)])
    }

    /// The queue of `eventLoop`; call on that loop (once per connection).
    func queue(for eventLoop: any EventLoop) -> DelayQueue {
        let key = ObjectIdentifier(eventLoop)
        return queues.withLock { queues in
            if let bound = queues[key] { return bound.value }
            let queue = DelayQueue(eventLoop: eventLoop)
            queues[key] = NIOLoopBound(queue, eventLoop: eventLoop)
            return queue
        }
    }
}

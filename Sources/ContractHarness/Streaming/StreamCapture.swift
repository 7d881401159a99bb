import Foundation
import MockCore

/// What a provider handed over during one stream call, as it came: the events before
/// the call returned, any after, and waiters for a count of events.
final class StreamCapture: Sendable {
    private struct State {
        var events: [ReceivedEvent] = []
        var late: [ReceivedEvent] = []
        var returned = false
        var cancelledAfter: Int?
        var cancelledAt: Date?
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    /// The `onEvent` a check hands the provider.
    var sink: @Sendable (ReceivedEvent) -> Void { { [self] event in add(event) } }

    /// Events handed over before the call returned.
    var events: [ReceivedEvent] { state.current.events }
    /// Events handed over after the call returned (the provider promises none).
    var late: [ReceivedEvent] { state.current.late }
    /// Events handed over before the check cancelled the call (nil: not cancelled).
    var cancelledAfter: Int? { state.current.cancelledAfter }
    /// When the check cancelled the call.
    var cancelledAt: Date? { state.current.cancelledAt }

    private func add(_ event: ReceivedEvent) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if state.returned {
                state.late.append(event)
                return []
            }
            state.events.append(event)
            let count = state.events.count
            let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// The call returned: later events are late, and every waiter goes on.
    func returned() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.returned = true
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Notes when, and after how many events, the check cancelled the call.
    func noteCancel() {
        state.withLock { state in
            state.cancelledAfter = state.events.count
            state.cancelledAt = Date()
        }
    }

    /// Returns once `count` events have come, or the call returned.
    func wait(for count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.returned || state.events.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}

extension Array where Element == ReceivedEvent {
    /// `message "a" (id 1), message "b" (id 2)`, or `none`.
    var listed: String { isEmpty ? "none" : map(\.description).joined(separator: ", ") }
}

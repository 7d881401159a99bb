import Foundation

/// Every request the server received, matched or not, with what answered it.
/// Bounded: the oldest entries are evicted past `capacity`, while `totalCount` stays
/// exact, so a count that might include evicted requests can say so.
public final class Journal: Sendable {
    public let capacity: Int
    /// Request bodies up to this size are kept whole; larger ones as size and digest.
    public let bodyLimit: Int

    private struct Storage {
        var ring: [ServeEvent] = []
        var head = 0            // index of the oldest entry once the ring is full
        var total: UInt64 = 0
        /// The id that went into slot 0 when the ring last started (1, or after a clear).
        var firstID: UInt64 = 1
    }

    private let storage = Locked(Storage())

    public init(capacity: Int = 10_000, bodyLimit: Int = 64 * 1024) {
        precondition(capacity > 0, "journal capacity must be positive")
        self.capacity = capacity
        self.bodyLimit = bodyLimit
    }

    @discardableResult
    public func record(_ request: MockRequest, plan: ResponsePlan) -> ServeEvent {
        let recorded = RecordedRequest(request, bodyLimit: bodyLimit)
        return storage.withLock { storage in
            storage.total += 1
            let event = ServeEvent(
                id: storage.total, receivedAt: request.receivedAt, request: recorded,
                status: plan.status, responseHeaders: plan.headers,
                responseBodySize: plan.body.count, answeredBy: plan.answeredBy,
                scenarioStep: plan.scenarioStep, fault: plan.fault, delay: plan.delay,
                session: request.headers[ScenarioEngine.sessionHeader], duration: nil)
            if storage.ring.count < capacity {
                storage.ring.append(event)
            } else {
                storage.ring[storage.head] = event
                storage.head = (storage.head + 1) % capacity
            }
            return event
        }
    }

    /// Notes how long entry `id` took; nothing happens if it was evicted or cleared meanwhile.
    /// Entries are numbered in order, so entry `id` sits at `(id - firstID) % capacity`.
    @discardableResult
    public func complete(_ id: UInt64, duration: TimeInterval) -> Bool {
        storage.withLock { storage in
            guard id >= storage.firstID, id <= storage.total, storage.total - id < UInt64(storage.ring.count) else { return false }
            let index = Int((id - storage.firstID) % UInt64(capacity))
            guard index < storage.ring.count, storage.ring[index].id == id else { return false }
            storage.ring[index].duration = duration
            return true
        }
    }

    /// Every request ever recorded, including evicted ones.
    public var totalCount: UInt64 { storage.withLock { $0.total } }

    /// Whether some recorded requests are no longer kept.
    public var hasEvicted: Bool { storage.withLock { $0.total > UInt64($0.ring.count) } }

    /// The kept entries, oldest first.
    public func entries() -> [ServeEvent] {
        storage.withLock { storage in
            Array(storage.ring[storage.head...] + storage.ring[..<storage.head])
        }
    }

    public func entries(matching pattern: RequestPattern) -> [ServeEvent] {
        entries().filter { pattern.matches($0.request.asRequest) }
    }

    /// How many of `patterns` arrived in that order (other requests may come between).
    public func matchedInOrder(_ patterns: [RequestPattern]) -> Int {
        var index = 0
        for event in entries() where index < patterns.count && patterns[index].matches(event.request.asRequest) {
            index += 1
        }
        return index
    }

    /// Entries no route answered.
    public func unmatched() -> [ServeEvent] { entries().filter { !$0.wasMatched } }

    public func clear() {
        storage.withLock { storage in
            storage.ring.removeAll(keepingCapacity: true)
            storage.head = 0
            storage.firstID = storage.total + 1
        }
    }
}

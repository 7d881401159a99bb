import Foundation

/// Every request the server received, matched or not, with what answered it.
///
/// Bounded twice: at most `capacity` entries and at most `byteBudget` bytes of kept
/// requests (bodies, headers, path). Past either, the oldest entries are evicted, while
/// `totalCount` stays exact, so a count that might include evicted requests can say so.
/// Clearing is not eviction: after `clear()` the journal is complete again for whatever
/// arrives next.
public final class Journal: Sendable {
    /// The most entries kept (at least 1); past it the oldest are evicted.
    public let capacity: Int
    /// Request bodies up to this size are kept whole; larger ones as size and digest.
    public let bodyLimit: Int
    /// The most bytes the kept entries may hold (request bodies, header fields and paths,
    /// plus a fixed allowance per entry).
    public let byteBudget: Int
    /// Response bodies up to this size are kept too, charged to the budget (0: none).
    public let responseBodyLimit: Int
    /// Records kept per stream (``StreamTranscript/capacity``); later ones are counted.
    public let transcriptCapacity: Int

    /// What one entry is charged against the budget besides its own bytes.
    static let entryOverhead = 256

    private struct Storage {
        /// Slot `(id - firstID) % capacity` holds entry `id`; nil once evicted by size.
        var ring: [ServeEvent?] = []
        /// Per slot: the id of the entry it holds (0: none) and the bytes it is charged.
        /// Kept beside the ring so that finding an entry reads no `ServeEvent`: reading
        /// `ring[slot]?.id` copied the whole entry out and destroyed the copy.
        var ids: [UInt64] = []
        var bytes: [Int] = []
        var total: UInt64 = 0
        /// The first id recorded since the journal started or was last cleared.
        var firstID: UInt64 = 1
        /// The oldest id still kept (`total + 1` when nothing is kept).
        var oldestID: UInt64 = 1
        var keptBytes = 0
        /// Requests per answerer (a route's or rule's name, `unmatched`) since the start or
        /// the last clear; evictions do not lower them.
        var hits = AnswererCounts()
        /// Per slot, beside `ring`: the transcript of the entry there if it opened a stream.
        /// Transcripts grow in place here as their streams go on (found by slot, with no
        /// hashing, on every frame), and go with their entry. Empty until the first stream,
        /// so a journal that never holds one pays nothing for it; then as long as `ring`.
        var transcripts: [StreamTranscript?] = []
        /// How many slots hold a transcript: reading entries looks for none while it is 0.
        var streams = 0

        func slot(_ id: UInt64, capacity: Int) -> Int { Int((id - firstID) % UInt64(capacity)) }
    }

    private let storage = Locked(Storage())

    /// Makes an empty journal with its limits: entries, whole-body size, bytes in all, kept
    /// response body size (0: none) and records per stream transcript. Traps when `capacity` is not positive.
    public init(capacity: Int = 10_000, bodyLimit: Int = 64 * 1024, byteBudget: Int = 64 * 1024 * 1024, responseBodyLimit: Int = 0,
                transcriptCapacity: Int = StreamTranscript.defaultCapacity) {
        precondition(capacity > 0, "journal capacity must be positive")
        precondition(byteBudget > 0, "journal byte budget must be positive")
        self.capacity = capacity
        self.bodyLimit = bodyLimit
        self.byteBudget = byteBudget
        self.responseBodyLimit = max(0, responseBodyLimit)
        self.transcriptCapacity = max(0, transcriptCapacity)
    }

    /// The bytes an entry is charged.
    static func cost(of request: RecordedRequest) -> Int {
        var size = entryOverhead + request.path.utf8.count
        if case .bytes(let data) = request.body { size += data.count }
        for field in request.headers { size += field.name.utf8.count + field.value.utf8.count }
        for item in request.query { size += item.name.utf8.count + item.value.utf8.count }
        return size
    }

    /// Records one exchange: `request` as the engine saw it, the `plan` it was answered with,
    /// and how it broke the API's document. Returns the entry, whose `id` the transport completes later.
    @discardableResult
    public func record(_ request: MockRequest, plan: ResponsePlan, violations: [RequestViolation] = []) -> ServeEvent {
        record(request, plan: plan, conformance: .found(violations))
    }

    /// Whether an entry keeps `request` whole (its body within the limit), so that what the
    /// request is can be worked out again from the entry.
    func keepsWhole(_ request: MockRequest) -> Bool { RecordedBody.keepsWhole(request.body, limit: bodyLimit) }

    func record(_ request: MockRequest, plan: ResponsePlan, conformance: ServeEvent.Conformance) -> ServeEvent {
        store(request, plan: plan, conformance: conformance) { $0 }
    }

    /// Records and returns only the entry's id: the request path, where nobody reads the
    /// entry back (returning it copied it, retaining every field).
    func recordID(_ request: MockRequest, plan: ResponsePlan, conformance: ServeEvent.Conformance) -> UInt64 {
        store(request, plan: plan, conformance: conformance) { $0.id }
    }

    /// Stores an entry for `request` and returns what `result` takes from it.
    private func store<Answer>(_ request: MockRequest, plan: ResponsePlan, conformance: ServeEvent.Conformance,
                               _ result: (ServeEvent) -> Answer) -> Answer {
        let recorded = RecordedRequest(request, bodyLimit: bodyLimit)
        let responseBody = responseBodyLimit > 0 && !plan.body.isEmpty && plan.body.count <= responseBodyLimit ? plan.body : nil
        let cost = Self.cost(of: recorded) + (responseBody?.count ?? 0)
        let capacity = capacity, budget = byteBudget
        let transcript = plan.streaming == nil ? nil : StreamTranscript(plan: plan, capacity: transcriptCapacity)
        return storage.withLock { storage in
            storage.total += 1
            let answerer = plan.answeredBy ?? Self.unmatched
            // Answerers are routes and rules, a fixed set; the bound is a safeguard.
            // No lookup for the answerer counted last, one for another known one (each
            // hashes the name).
            storage.hits.count(answerer, limit: Self.maxHitKeys, overflow: Self.otherAnswerers)
            let event = ServeEvent(
                id: storage.total, receivedAt: request.receivedAt, request: recorded,
                status: plan.status, responseHeaders: plan.headers,
                responseBodySize: plan.body.count, answeredBy: plan.answeredBy,
                scenarioStep: plan.scenarioStep, fault: plan.fault, delay: plan.delay,
                session: request.headers[ScenarioEngine.sessionHeader], network: plan.sharedNetwork?.name, connection: request.connection,
                conformance: conformance, duration: nil, responseBody: responseBody)
            // The slot of the entry `capacity` older than this one: evict it first.
            if storage.total - storage.firstID >= UInt64(capacity) {
                Self.evictOldest(&storage, capacity: capacity, through: storage.total - UInt64(capacity))
            }
            let slot = storage.slot(storage.total, capacity: capacity)
            let answer = result(event)
            // Moved into the ring: a copy retains every field of the entry.
            if slot == storage.ring.count {
                storage.ring.append(consume event)
                storage.ids.append(storage.total)
                storage.bytes.append(cost)
            } else {
                storage.ring[slot] = consume event
                storage.ids[slot] = storage.total
                storage.bytes[slot] = cost
            }
            // Eviction emptied the slot: only a stream, or slots kept for streams, need a write.
            if transcript != nil || !storage.transcripts.isEmpty {
                if storage.transcripts.count < storage.ring.count {
                    storage.transcripts.append(contentsOf: repeatElement(nil, count: storage.ring.count - storage.transcripts.count))
                }
                storage.transcripts[slot] = transcript
                if transcript != nil { storage.streams += 1 }
            }
            storage.keptBytes += cost
            Self.trim(&storage, capacity: capacity, budget: budget)
            return answer
        }
    }

    /// Over the byte budget: drops the oldest entries, but always keeps the newest.
    private static func trim(_ storage: inout Storage, capacity: Int, budget: Int) {
        while storage.keptBytes > budget && storage.oldestID < storage.total {
            evictOldest(&storage, capacity: capacity, through: storage.oldestID)
        }
    }

    /// Evicts every kept entry up to and including `id`.
    private static func evictOldest(_ storage: inout Storage, capacity: Int, through id: UInt64) {
        while storage.oldestID <= id && storage.oldestID <= storage.total {
            let slot = storage.slot(storage.oldestID, capacity: capacity)
            if slot < storage.ids.count, storage.ids[slot] == storage.oldestID {
                storage.keptBytes -= storage.bytes[slot]
                storage.ring[slot] = nil
                storage.ids[slot] = 0
                storage.bytes[slot] = 0
                if storage.streams > 0, slot < storage.transcripts.count, storage.transcripts[slot] != nil {
                    storage.transcripts[slot] = nil
                    storage.streams -= 1
                }
            }
            storage.oldestID += 1
        }
    }

    /// Notes how long entry `id` took; nothing happens if it was evicted or cleared meanwhile.
    @discardableResult
    public func complete(_ id: UInt64, duration: TimeInterval) -> Bool {
        let capacity = capacity
        return storage.withLock { storage in
            guard id >= storage.oldestID, id <= storage.total else { return false }
            let slot = storage.slot(id, capacity: capacity)
            guard slot < storage.ids.count, storage.ids[slot] == id else { return false }
            storage.ring[slot]?.duration = duration
            return true
        }
    }

    /// Entry `id`, if it is still kept.
    public func entry(_ id: UInt64) -> ServeEvent? {
        let capacity = capacity
        return storage.withLock { storage in
            guard id >= storage.oldestID, id <= storage.total else { return nil }
            let slot = storage.slot(id, capacity: capacity)
            guard slot < storage.ids.count, storage.ids[slot] == id else { return nil }
            return Self.withTranscript(storage.ring[slot], slot: slot, storage)
        }
    }

    /// `event` with its stream's transcript as it stands, if it has one.
    private static func withTranscript(_ event: ServeEvent?, slot: Int, _ storage: Storage) -> ServeEvent? {
        guard storage.streams > 0, slot < storage.transcripts.count, var event, let transcript = storage.transcripts[slot] else { return event }
        event.sharedTranscript = SharedTranscript(transcript)
        return event
    }

    /// Adds `record` to the transcript of entry `id`'s stream, charging its bytes to the
    /// budget; false when the entry is gone (evicted, cleared) or opened no stream.
    @discardableResult
    public func append(_ record: StreamTranscript.Record, to id: UInt64) -> Bool {
        append(record.direction, record.kind, offset: record.offset, size: record.size, payload: { record.payload }, note: record.note, to: id)
    }

    /// Adds a record of `size` payload bytes to the transcript of entry `id`'s stream, as
    /// ``append(_:to:)`` does; `payload` (the first ``StreamTranscript/payloadLimit`` bytes
    /// are enough) is called only when the transcript keeps the record (a full one counts
    /// it), so a long stream's records past the cap cost no copy. It runs with the journal
    /// locked: it must be quick and must not touch the journal. False when the entry is
    /// gone (evicted, cleared) or opened no stream.
    @discardableResult
    public func append(_ direction: StreamTranscript.Direction, _ kind: StreamTranscript.Kind, offset: TimeInterval, size: Int,
                       payload: () -> Data, note: String? = nil, to id: UInt64) -> Bool {
        let capacity = capacity, budget = byteBudget
        return storage.withLock { storage in
            guard id >= storage.oldestID, id <= storage.total else { return false }
            let slot = storage.slot(id, capacity: capacity)
            guard slot < storage.ids.count, storage.ids[slot] == id, slot < storage.transcripts.count else { return false }
            // One access to the transcript, in place (reading it out would copy it).
            guard let cost = storage.transcripts[slot]?.append(direction, kind, offset: offset, size: size, payload: payload, note: note) else {
                return false
            }
            guard cost > 0 else { return true }
            storage.bytes[slot] += cost
            storage.keptBytes += cost
            Self.trim(&storage, capacity: capacity, budget: budget)
            return true
        }
    }

    /// Notes how entry `id`'s stream ended, `offset` seconds after the request arrived
    /// (the first ending counts); false when the entry is gone or opened no stream.
    @discardableResult
    public func endStream(_ id: UInt64, _ how: StreamTranscript.Ending, offset: TimeInterval) -> Bool {
        let capacity = capacity
        return storage.withLock { storage in
            guard id >= storage.oldestID, id <= storage.total else { return false }
            let slot = storage.slot(id, capacity: capacity)
            guard slot < storage.ids.count, storage.ids[slot] == id, slot < storage.transcripts.count else { return false }
            return storage.transcripts[slot]?.end(how, offset: offset) != nil
        }
    }

    /// Every request ever recorded, including evicted and cleared ones.
    public var totalCount: UInt64 { storage.withLock { $0.total } }

    /// Requests recorded since the journal started or was last cleared.
    public var countSinceClear: UInt64 { storage.withLock { $0.total + 1 - $0.firstID } }

    /// Whether requests recorded since the last clear were evicted (by count or bytes):
    /// only then can a count over the journal be short.
    public var hasEvicted: Bool { storage.withLock { $0.oldestID > $0.firstID } }

    /// The bytes the kept entries are charged against `byteBudget`.
    public var keptBytes: Int { storage.withLock { $0.keptBytes } }

    /// The kept entries, oldest first.
    public func entries() -> [ServeEvent] {
        let capacity = capacity
        return storage.withLock { storage in
            guard storage.oldestID <= storage.total else { return [] }
            var kept: [ServeEvent] = []
            kept.reserveCapacity(Int(storage.total - storage.oldestID + 1))
            for id in storage.oldestID...storage.total {
                let slot = storage.slot(id, capacity: capacity)
                if let event = Self.withTranscript(storage.ring[slot], slot: slot, storage) { kept.append(event) }
            }
            return kept
        }
    }

    /// The kept entries whose request matches `pattern`, oldest first.
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

    /// Forgets every kept entry. The total stays; what arrives next is counted from here,
    /// and the journal is complete again until something is evicted.
    public func clear() {
        storage.withLock { storage in
            storage.ring.removeAll(keepingCapacity: true)
            storage.ids.removeAll(keepingCapacity: true)
            storage.bytes.removeAll(keepingCapacity: true)
            storage.firstID = storage.total + 1
            storage.oldestID = storage.total + 1
            storage.keptBytes = 0
            storage.hits = AnswererCounts()
            storage.transcripts.removeAll()
            storage.streams = 0
        }
    }

    static let unmatched = "unmatched"
    static let otherAnswerers = "other"
    /// The most answerers counted apart.
    public static let maxHitKeys = 1024

    /// How many requests each route or rule answered (`unmatched`: nothing did), counted
    /// for every request since the start or the last `clear()`, evicted ones included.
    public func hitCounts() -> [String: Int] { storage.withLock { $0.hits.all } }
}

/// Requests per answerer (a route's or rule's name, `unmatched`), at most `limit` names
/// apart and the rest under `overflow` (so `limit + 1` names in all). Each name has a fixed place in `counts`, and the
/// last name counted is kept with its place: a run of requests to one route counts
/// without hashing its name each time. A place never moves or goes stale; only a
/// new value of the whole (a clear) forgets them.
struct AnswererCounts {
    private var places: [String: Int] = [:]
    private var counts: [Int] = []
    private var last: (answerer: String, place: Int)?

    mutating func count(_ answerer: String, limit: Int, overflow: String) {
        if let last, last.answerer == answerer {
            counts[last.place] += 1
            return
        }
        let place: Int
        if let known = places[answerer] {
            place = known
        } else {
            let name = places.count < limit ? answerer : overflow
            if let known = places[name] {
                place = known
            } else {
                place = counts.count
                places[name] = place
                counts.append(0)
            }
        }
        counts[place] += 1
        // An answerer counted under `overflow` stays there until a clear (the places only
        // grow), so its run takes the fast path too.
        last = (answerer, place)
    }

    var all: [String: Int] { places.mapValues { counts[$0] } }
}

import Foundation
import Testing
@testable import MockCore

@Suite struct JournalTests {
    @Test func recordsEveryRequestWithWhatAnsweredIt() {
        let journal = Journal(capacity: 10)
        journal.record(makeRequest("GET", "/menu"), plan: ResponsePlan(status: 200, answeredBy: "restaurant.menu"))
        journal.record(makeRequest("GET", "/nope"), plan: ResponsePlan(status: 404))
        let entries = journal.entries()
        #expect(entries.map(\.id) == [1, 2])
        #expect(entries[0].answeredBy == "restaurant.menu")
        #expect(entries[1].wasMatched == false)
        #expect(journal.unmatched().map(\.request.path) == ["/nope"])
    }

    @Test func evictsOldestButKeepsAnExactTotal() {
        let journal = Journal(capacity: 3)
        for index in 1...7 {
            journal.record(makeRequest("GET", "/r/\(index)"), plan: ResponsePlan(status: 200))
        }
        #expect(journal.totalCount == 7)
        #expect(journal.hasEvicted)
        #expect(journal.entries().map(\.request.path) == ["/r/5", "/r/6", "/r/7"])
        #expect(journal.entries().map(\.id) == [5, 6, 7])
    }

    @Test func concurrentRecordsAreAllCounted() async {
        let journal = Journal(capacity: 50)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<1000 {
                group.addTask { journal.record(makeRequest("GET", "/c/\(index)"), plan: ResponsePlan(status: 200)) }
            }
        }
        #expect(journal.totalCount == 1000)
        #expect(journal.entries().count == 50)
        #expect(Set(journal.entries().map(\.id)).count == 50)
    }

    @Test func largeBodiesAreKeptAsSizeAndDigest() {
        let journal = Journal(capacity: 4, bodyLimit: 8)
        journal.record(makeRequest("POST", "/order", body: "short"), plan: ResponsePlan(status: 200))
        journal.record(makeRequest("POST", "/order", body: "a body longer than eight"), plan: ResponsePlan(status: 200))
        let bodies = journal.entries().map(\.request.body)
        #expect(bodies[0] == .bytes(Data("short".utf8)))
        guard case .summary(let size, let digest) = bodies[1] else {
            Issue.record("expected a summary, got \(bodies[1])")
            return
        }
        #expect(size == 24)
        #expect(digest.count == 16)
    }

    @Test func patternsQueryTheJournal() {
        let journal = Journal()
        journal.record(makeRequest("GET", "/menu?category=soups"), plan: ResponsePlan(status: 200))
        journal.record(makeRequest("GET", "/menu"), plan: ResponsePlan(status: 200))
        journal.record(makeRequest("POST", "/order", body: #"{"menuIds":[1]}"#), plan: ResponsePlan(status: 200))
        #expect(journal.entries(matching: .get("/menu")).count == 2)
        #expect(journal.entries(matching: RequestPattern(path: "/menu", query: ["category": .equalTo("soups")])).count == 1)
        #expect(journal.entries(matching: RequestPattern(method: "POST", body: .json(["menuIds": [1]]))).count == 1)
    }
}

@Suite struct TimingTests {
    @Test func seededRandomIsReproducible() {
        var a = SeededRandom(seed: 42), b = SeededRandom(seed: 42), c = SeededRandom(seed: 43)
        let first = (0..<8).map { _ in a.next() }
        #expect(first == (0..<8).map { _ in b.next() })
        #expect(first != (0..<8).map { _ in c.next() })
        // Fixed values: the same on every platform and in every run.
        var d = SeededRandom(seed: 0)
        #expect(d.next() == 0xE220_A839_7B1D_CDAF)
    }

    @Test func streamsAreIndependentAndStable() {
        var menu = SeededRandom(seed: 7, stream: "GET /menu")
        var order = SeededRandom(seed: 7, stream: "POST /order")
        #expect(menu.next() != order.next())
        var again = SeededRandom(seed: 7, stream: "GET /menu")
        var menu2 = SeededRandom(seed: 7, stream: "GET /menu")
        #expect(again.next() == menu2.next())
        var unit = SeededRandom(seed: 1)
        for _ in 0..<1000 { #expect((0..<1).contains(unit.nextUnit())) }
    }

    @Test func manualTimeSourceMovesOnlyWhenTold() {
        let clock = ManualTimeSource(Date(timeIntervalSince1970: 100))
        #expect(clock.now() == Date(timeIntervalSince1970: 100))
        clock.advance(by: 2.5)
        #expect(clock.now() == Date(timeIntervalSince1970: 102.5))
    }
}

@Suite struct JournalCompletionTests {
    @Test func durationsLandOnTheRightEntryAndEvictedOnesAreSkipped() {
        let journal = Journal(capacity: 3)
        for index in 1...5 { journal.record(makeRequest("GET", "/r/\(index)"), plan: ResponsePlan(status: 200)) }
        #expect(journal.complete(5, duration: 0.25))
        #expect(journal.complete(3, duration: 1.5))
        #expect(!journal.complete(2, duration: 9))    // evicted
        #expect(!journal.complete(6, duration: 9))    // not yet recorded
        let durations = journal.entries().map(\.duration)
        #expect(durations == [1.5, nil, 0.25])
        #expect(journal.entries().first?.json["durationMs"] == 1500)
    }

    /// `entry(_:)` reads one kept entry by id: what a live subscriber is sent. An entry
    /// evicted by count or by bytes, cleared, or not yet recorded is nil.
    @Test func oneEntryIsFoundByItsIdWhileItIsKept() {
        let journal = Journal(capacity: 3, byteBudget: 3 * Journal.entryOverhead + 200)
        for index in 1...4 { journal.record(makeRequest("GET", "/r/\(index)"), plan: ResponsePlan(status: 200)) }
        #expect(journal.entry(1) == nil)                        // evicted by count
        #expect(journal.entry(2)?.request.path == "/r/2")
        #expect(journal.entry(4)?.request.path == "/r/4")
        #expect(journal.entry(5) == nil)                        // not yet recorded
        // Entry 5 pushes entry 2 out by count, and its large body entry 3 out by bytes.
        var large = makeRequest("POST", "/big")
        large.body = Data(repeating: 0x41, count: 400)
        journal.record(large, plan: ResponsePlan(status: 200))
        #expect(journal.entry(2) == nil && journal.entry(3) == nil)
        #expect(journal.entry(4)?.request.path == "/r/4")
        #expect(!journal.complete(3, duration: 1))
        #expect(journal.entry(5)?.request.path == "/big")
        journal.clear()
        #expect(journal.entry(5) == nil)
    }

    /// A clear restarts the ring while ids go on; completion must still find entries
    /// (this crashed once: the slot was computed from id 1).
    @Test func completionAfterAClearFindsTheEntry() {
        let journal = Journal(capacity: 4)
        for index in 1...3 { journal.record(makeRequest("GET", "/a/\(index)"), plan: ResponsePlan(status: 200)) }
        journal.clear()
        #expect(!journal.complete(2, duration: 1))   // cleared
        for index in 1...6 { journal.record(makeRequest("GET", "/b/\(index)"), plan: ResponsePlan(status: 200)) }
        #expect(journal.complete(9, duration: 0.5))
        #expect(journal.complete(6, duration: 0.25))
        #expect(!journal.complete(5, duration: 1))   // evicted
        #expect(journal.entries().map(\.id) == [6, 7, 8, 9])
        #expect(journal.entries().map(\.duration) == [0.25, nil, nil, 0.5])
    }
}

/// Clearing is not eviction (#12), and the journal is bounded in bytes as well as entries.
@Suite struct JournalBoundsTests {
    @Test func aClearedJournalIsCompleteForWhatArrivesNext() {
        let journal = Journal(capacity: 3)
        for index in 1...2 { journal.record(makeRequest("GET", "/a/\(index)"), plan: ResponsePlan(status: 200)) }
        journal.clear()
        #expect(!journal.hasEvicted)
        journal.record(makeRequest("POST", "/order"), plan: ResponsePlan(status: 200))
        #expect(!journal.hasEvicted, "one request after a clear must not look evicted")
        #expect(journal.countSinceClear == 1)
        #expect(journal.totalCount == 3)
        for index in 1...3 { journal.record(makeRequest("GET", "/b/\(index)"), plan: ResponsePlan(status: 200)) }
        #expect(journal.hasEvicted, "four since the clear in a journal of three")
    }

    @Test func theByteBudgetEvictsTheOldestAndKeepsTheTotal() {
        let body = String(repeating: "x", count: 10_000)
        let journal = Journal(capacity: 1_000, bodyLimit: 64 * 1024, byteBudget: 50_000)
        for index in 1...20 {
            journal.record(makeRequest("POST", "/p/\(index)", body: body), plan: ResponsePlan(status: 201))
        }
        #expect(journal.totalCount == 20)
        #expect(journal.keptBytes <= 50_000)
        #expect(journal.hasEvicted)
        let ids = journal.entries().map(\.id)
        #expect(ids.count == 4, "\(ids)")
        #expect(ids == Array(17...20))
        // Completion finds kept entries and skips those evicted by size.
        #expect(journal.complete(20, duration: 0.1))
        #expect(!journal.complete(3, duration: 0.1))
    }

    @Test func theNewestEntryIsKeptEvenWhenAloneOverTheBudget() {
        let journal = Journal(capacity: 10, bodyLimit: 64 * 1024, byteBudget: 1_000)
        journal.record(makeRequest("GET", "/small"), plan: ResponsePlan(status: 200))
        journal.record(makeRequest("POST", "/big", body: String(repeating: "y", count: 5_000)), plan: ResponsePlan(status: 200))
        #expect(journal.entries().map(\.request.path) == ["/big"])
    }

    /// The worst case at the defaults: every request carries a body just under the body
    /// limit. Kept bytes stay under the budget however many arrive.
    @Test func keptBytesStayUnderTheBudgetUnderLoad() {
        let journal = Journal(capacity: 10_000, bodyLimit: 64 * 1024, byteBudget: 4 * 1024 * 1024)
        let body = String(repeating: "z", count: 64 * 1024)
        for index in 1...500 {
            journal.record(makeRequest("POST", "/load/\(index)", body: body), plan: ResponsePlan(status: 200))
            #expect(journal.keptBytes <= 4 * 1024 * 1024)
        }
        #expect(journal.entries().count < 70)
        #expect(journal.totalCount == 500)
    }

    /// The count per answerer keeps the last answerer's place (#24): runs of one route,
    /// interleaved routes and unmatched requests all count where they belong, past
    /// `maxHitKeys` names the rest count as "other", and a clear starts from nothing.
    @Test func countsPerAnswererStayExactAndBounded() {
        let journal = Journal(capacity: 10)
        let answerers: [String?] = ["restaurant.menu", "restaurant.menu", nil, "restaurant.menu", "openmarket.page", nil, nil, "openmarket.page"]
        for answerer in answerers {
            journal.record(makeRequest("GET", "/x"), plan: ResponsePlan(status: 200, answeredBy: answerer))
        }
        #expect(journal.hitCounts() == ["restaurant.menu": 3, "unmatched": 3, "openmarket.page": 2])

        for index in 0..<(Journal.maxHitKeys + 10) {
            journal.record(makeRequest("GET", "/x"), plan: ResponsePlan(status: 200, answeredBy: "route.\(index)"))
        }
        journal.record(makeRequest("GET", "/x"), plan: ResponsePlan(status: 200, answeredBy: "restaurant.menu"))
        let counts = journal.hitCounts()
        #expect(counts.count == Journal.maxHitKeys + 1)
        #expect(counts["restaurant.menu"] == 4)
        // 3 names were counted before; the first maxHitKeys - 3 new ones have their own.
        #expect(counts["route.\(Journal.maxHitKeys - 4)"] == 1)
        #expect(counts["route.\(Journal.maxHitKeys - 3)"] == nil)
        #expect(counts["other"] == 13)

        journal.clear()
        #expect(journal.hitCounts().isEmpty)
        journal.record(makeRequest("GET", "/x"), plan: ResponsePlan(status: 200, answeredBy: "restaurant.menu"))
        #expect(journal.hitCounts() == ["restaurant.menu": 1])
    }
}

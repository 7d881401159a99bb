@testable import ContractHarness
import ContractTestsTesting
import Foundation
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Interception is process-wide, so tests intercepting the same host take turns; the rest
/// stay parallel. Each test here uses host names of its own, so no other test waits on
/// them. The gates are signals, not timings, and every wait is bounded (`BoundedWaits`):
/// a broken lock fails the test instead of hanging the run.
@Suite struct InterceptionLockTests {
    struct Boom: Error {}

    static func uniqueHost(_ label: String) -> String { "\(label)-\(UUID().uuidString.lowercased()).invalid" }

    /// What `body` throws, if anything.
    static func thrown(_ body: () async throws -> Void) async -> (any Error)? {
        do {
            try await body()
            return nil
        } catch {
            return error
        }
    }

    @Test func testsInterceptingTheSameHostRunOneAtATime() async throws {
        let host = Self.uniqueHost("same")
        let first = try await TestMockServer.start()
        let second = try await TestMockServer.start()
        let firstInside = Signal(), firstMayEnd = Signal(), secondInside = Signal()
        defer { firstMayEnd.fire() }
        let firstTest = Task { try await first.intercepting([host]) { firstInside.fire(); try await firstMayEnd.wait() } }
        try await firstInside.wait()
        let secondTest = Task { try await second.intercepting([host]) { secondInside.fire() } }
        #expect(await eventually { InterceptionLocks.shared.waiting(for: host) == 1 })
        #expect(!secondInside.fired)
        _ = try await URLSession.shared.data(from: URL(string: "http://\(host)/categories")!)
        #expect(first.journal.entries().count == 1)
        firstMayEnd.fire()
        try await bounded("the first test") { try await firstTest.value }
        try await bounded("the second test") { try await secondTest.value }
        #expect(secondInside.fired)
        #expect(second.journal.entries().isEmpty)
        #expect(!InterceptionLocks.shared.isHeld(host))
        await first.stop()
        await second.stop()
    }

    @Test func testsInterceptingOtherHostsRunTogether() async throws {
        let first = try await TestMockServer.start()
        let second = try await TestMockServer.start()
        let firstInside = Signal(), secondInside = Signal()
        let firstTest = Task {
            try await first.intercepting([Self.uniqueHost("one")]) {
                firstInside.fire()
                return await eventually { secondInside.fired }
            }
        }
        try await firstInside.wait()
        try await bounded("the second test") { try await second.intercepting([Self.uniqueHost("two")]) { secondInside.fire() } }
        #expect(try await bounded("the first test") { try await firstTest.value }, "the second test waited for the first")
        await first.stop()
        await second.stop()
    }

    /// A test that intercepts nothing takes no lock: it starts while every host is held.
    @Test func aTestThatInterceptsNothingNeverWaits() async throws {
        let host = Self.uniqueHost("held")
        let first = try await TestMockServer.start()
        let second = try await TestMockServer.start()
        let held = try await first.intercept([host])
        let none = try await bounded("intercepting nothing") { try await second.intercept([]) }
        #expect(none.hosts.isEmpty)
        #expect(InterceptionLocks.shared.waiting(for: host) == 0)
        none.end()
        held.end()
        #expect(!InterceptionLocks.shared.isHeld(host))
        await first.stop()
        await second.stop()
    }

    @Test func theLockIsGivenBackWhenTheBodyThrows() async throws {
        let host = Self.uniqueHost("throws")
        let server = try await TestMockServer.start()
        await #expect(throws: Boom.self) {
            try await server.intercepting([host]) {
                #expect(InterceptionLocks.shared.isHeld(host))
                throw Boom()
            }
        }
        #expect(!InterceptionLocks.shared.isHeld(host))
        #expect(InterceptionTable.shared.answerer(for: URL(string: "http://\(host)/")) == nil)
        let again = try await bounded("intercepting the host again") { try await server.intercept([host]) }
        again.end()
        await server.stop()
    }

    #if compiler(>=6.2)
    /// The trait's own scope: a test that throws gives its hosts back.
    @Test func theTraitGivesTheLockBackWhenTheTestThrows() async throws {
        let test = try #require(Test.current)
        let host = Self.uniqueHost("trait")
        await #expect(throws: Boom.self) {
            try await MockServerTrait.mockServer(intercepting: [host]).provideScope(for: test, testCase: Test.Case.current) {
                _ = try await URLSession.shared.data(from: URL(string: "http://\(host)/categories")!)
                #expect(MockServer.current.journal.entries().count == 1)
                throw Boom()
            }
        }
        #expect(!InterceptionLocks.shared.isHeld(host))
        #expect(InterceptionTable.shared.answerer(for: URL(string: "http://\(host)/")) == nil)
    }

    /// A suite's trait gives each of its tests a scope of its own: two tests of one suite
    /// that intercepts a host take turns like any two tests.
    @Test func twoTestsOfOneInterceptingSuiteTakeTurns() async throws {
        let test = try #require(Test.current), testCase = Test.Case.current
        let host = Self.uniqueHost("suite")
        let suiteTrait = MockServerTrait.mockServer(intercepting: [host])
        let firstInside = Signal(), firstMayEnd = Signal(), secondInside = Signal()
        defer { firstMayEnd.fire() }
        let firstTest = Task { try await suiteTrait.provideScope(for: test, testCase: testCase) { firstInside.fire(); try await firstMayEnd.wait() } }
        try await firstInside.wait()
        let secondTest = Task { try await suiteTrait.provideScope(for: test, testCase: testCase) { secondInside.fire() } }
        #expect(await eventually { InterceptionLocks.shared.waiting(for: host) == 1 })
        #expect(!secondInside.fired, "the suite's second test ran while its first held the host")
        firstMayEnd.fire()
        try await bounded("the first test") { try await firstTest.value }
        try await bounded("the second test") { try await secondTest.value }
        #expect(secondInside.fired)
        #expect(!InterceptionLocks.shared.isHeld(host))
    }
    #endif

    /// Nested on the same host, the inner scope neither waits for the outer one nor frees
    /// the host when it ends: the inner server answers while it lasts, then the outer again.
    @Test(.timeLimit(.minutes(1)))
    func interceptingAHostTheScopeHoldsAnswersFromTheInnerServerUntilItEnds() async throws {
        let host = Self.uniqueHost("nested")
        let url = URL(string: "http://\(host)/categories")!
        let outer = try await TestMockServer.start()
        let inner = try await TestMockServer.start()
        try await bounded("the nested interceptions") {
            try await outer.intercepting([host]) {
                try await inner.intercepting([host]) {
                    _ = try await URLSession.shared.data(from: url)
                }
                #expect(inner.journal.entries().count == 1)
                #expect(outer.journal.entries().isEmpty)
                #expect(InterceptionLocks.shared.isHeld(host))
                _ = try await URLSession.shared.data(from: url)
                #expect(outer.journal.entries().count == 1)
                #expect(inner.journal.entries().count == 1)
            }
        }
        #expect(!InterceptionLocks.shared.isHeld(host))
        #expect(InterceptionTable.shared.answerer(for: url) == nil)
        await outer.stop()
        await inner.stop()
    }

    /// Holding locks of its own lets a test skip none of another test's: a test inside
    /// its own interception still waits for a host another test holds.
    @Test(.timeLimit(.minutes(1)))
    func aTestInsideItsOwnInterceptionStillWaitsForAnotherTestsHost() async throws {
        let host = Self.uniqueHost("shared"), own = Self.uniqueHost("own")
        let first = try await TestMockServer.start()
        let second = try await TestMockServer.start()
        let firstInside = Signal(), firstMayEnd = Signal(), secondInside = Signal()
        defer { firstMayEnd.fire() }
        let firstTest = Task { try await first.intercepting([host]) { firstInside.fire(); try await firstMayEnd.wait() } }
        try await firstInside.wait()
        let secondTest = Task {
            try await second.intercepting([own]) {
                try await second.intercepting([host]) { secondInside.fire() }
            }
        }
        #expect(await eventually { InterceptionLocks.shared.waiting(for: host) == 1 })
        #expect(!secondInside.fired)
        firstMayEnd.fire()
        try await bounded("the first test") { try await firstTest.value }
        try await bounded("the second test") { try await secondTest.value }
        #expect(secondInside.fired)
        #expect(!InterceptionLocks.shared.isHeld(host))
        #expect(!InterceptionLocks.shared.isHeld(own))
        await first.stop()
        await second.stop()
    }

    /// A task started in a test's scope inherits the scope, but not past the test's hold:
    /// once the test has given the host back and another test holds it, the task waits.
    @Test(.timeLimit(.minutes(1)))
    func aTaskThatOutlivesItsTestsScopeWaitsLikeAnyOtherTest() async throws {
        let host = Self.uniqueHost("outlives")
        let first = try await TestMockServer.start()
        let second = try await TestMockServer.start()
        let lateMayStart = Signal(), lateInside = Signal(), secondInside = Signal(), secondMayEnd = Signal()
        defer { lateMayStart.fire(); secondMayEnd.fire() }
        let late = try await bounded("the first test") {
            try await first.intercepting([host]) {
                Task {
                    try await lateMayStart.wait()
                    try await first.intercepting([host]) { lateInside.fire() }
                }
            }
        }
        let secondTest = Task { try await second.intercepting([host]) { secondInside.fire(); try await secondMayEnd.wait() } }
        try await secondInside.wait()
        lateMayStart.fire()
        #expect(await eventually { InterceptionLocks.shared.waiting(for: host) == 1 })
        #expect(!lateInside.fired)
        secondMayEnd.fire()
        try await bounded("the second test") { try await secondTest.value }
        try await bounded("the late task") { try await late.value }
        #expect(lateInside.fired)
        #expect(!InterceptionLocks.shared.isHeld(host))
        await first.stop()
        await second.stop()
    }

    /// Tasks of one test that wait for a host another test holds get it together when it
    /// is given back: neither waits for the other.
    @Test(.timeLimit(.minutes(1)))
    func waitersOfOneTestAreLetInTogether() async throws {
        let host = Self.uniqueHost("together")
        let locks = InterceptionLocks.shared
        let other = InterceptionLocks.Holder(), test = InterceptionLocks.Holder()
        try await locks.acquire([host], for: other)
        let firstInside = Signal(), secondInside = Signal()
        let first = Task { try await locks.acquire([host], for: test); firstInside.fire(); try await secondInside.wait() }
        let second = Task { try await locks.acquire([host], for: test); secondInside.fire(); try await firstInside.wait() }
        #expect(await eventually { locks.waiting(for: host) == 2 })
        locks.release([host], for: other)
        try await bounded("the first task") { try await first.value }
        try await bounded("the second task") { try await second.value }
        locks.release([host], for: test)
        #expect(locks.isHeld(host), "one of the test's two holds is still out")
        locks.release([host], for: test)
        #expect(!locks.isHeld(host))
    }

    static let heldByTheTrait = "held-by-the-trait.invalid"
    static let heldBySuiteAndTest = "held-by-suite-and-test.invalid"
    static let heldByEachTestOfASuite = "held-by-each-test-of-a-suite.invalid"

    /// `intercepting` in a test whose trait intercepts the same host.
    @Test(.mockServer(intercepting: [heldByTheTrait]), .timeLimit(.minutes(1)))
    func interceptingAHostTheTraitHoldsAnswersFromTheInnerServer() async throws {
        let url = URL(string: "http://\(Self.heldByTheTrait)/categories")!
        let inner = try await TestMockServer.start()
        try await bounded("intercepting the trait's host") {
            try await inner.intercepting([Self.heldByTheTrait]) {
                _ = try await URLSession.shared.data(from: url)
            }
        }
        #expect(inner.journal.entries().count == 1)
        _ = try await URLSession.shared.data(from: url)
        #expect(MockServer.current.journal.entries().count == 1)
        await inner.stop()
    }

    @Test func anEntryThatIsNoHostFailsBeforeTakingAnyLock() async throws {
        let host = Self.uniqueHost("valid")
        let server = try await TestMockServer.start()
        await #expect(throws: InterceptionError.self) { _ = try await server.intercept([host, "https://\(host)/"]) }
        #expect(!InterceptionLocks.shared.isHeld(host))
        await server.stop()
    }
}

/// A test with `.mockServer(intercepting:)` in a suite with the same: the test's own trait
/// runs inside its suite's, takes the host its suite's holds already, and its server answers.
@Suite(.mockServer(intercepting: [InterceptionLockTests.heldBySuiteAndTest]))
struct InterceptionInSuiteTests {
    static let host = InterceptionLockTests.heldBySuiteAndTest

    @Test(.mockServer(intercepting: [host]), .timeLimit(.minutes(1)))
    func theTestsOwnServerAnswersTheHostItsSuiteInterceptsToo() async throws {
        let (_, response) = try await URLSession.shared.data(from: URL(string: "http://\(Self.host)/categories")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(MockServer.current.journal.entries().count == 1)
        #expect(InterceptionLocks.shared.isHeld(Self.host))
    }
}

/// The tests of a suite whose trait intercepts a host: each runs as a test of its own,
/// so they take turns for the host rather than sharing the suite's hold.
@Suite(.mockServer(intercepting: [InterceptionLockTests.heldByEachTestOfASuite]))
struct InterceptingSuiteTests {
    static let host = InterceptionLockTests.heldByEachTestOfASuite
    /// The holders the suite's tests ran as, kept alive so that none is told apart from another by a reused address.
    static let holders = Locked<[InterceptionLocks.Holder]>([])

    /// Whether this test holds the host as a holder no other test of the suite was.
    static func holdsTheHostAsItself() throws {
        let mine = try #require(InterceptionLocks.current)
        #expect(InterceptionLocks.shared.isHeld(host))
        holders.withLock { holders in
            #expect(!holders.contains { $0 === mine }, "two tests of the suite hold the host as one: they would not take turns")
            holders.append(mine)
        }
    }

    @Test func oneTest() throws { try Self.holdsTheHostAsItself() }
    @Test func anotherTest() throws { try Self.holdsTheHostAsItself() }
}

@testable import ContractHarness
import Foundation
import MockCore
import Testing

/// A wait for a host ends: when its task is cancelled, and at once when it could never
/// end because the holder it waits for waits, in turn, for the waiter.
@Suite struct InterceptionWaitEndsTests {
    static func uniqueHost(_ label: String) -> String { InterceptionLockTests.uniqueHost(label) }
    static func thrown(_ body: () async throws -> Void) async -> (any Error)? { await InterceptionLockTests.thrown(body) }

    @Test func aCancelledWaitThrowsAndLeavesTheQueue() async throws {
        let host = Self.uniqueHost("cancelled")
        let first = try await TestMockServer.start()
        let second = try await TestMockServer.start()
        let held = try await first.intercept([host])
        let waiting = Task { try await second.intercept([host]) }
        #expect(await eventually { InterceptionLocks.shared.waiting(for: host) == 1 })
        waiting.cancel()
        let error = await Self.thrown { _ = try await bounded("the cancelled wait") { try await waiting.value } }
        #expect(error?.cancelledHost == host, "\(String(describing: error))")
        #expect(InterceptionLocks.shared.waiting(for: host) == 0)
        held.end()
        #expect(!InterceptionLocks.shared.isHeld(host), "the host went to the cancelled waiter")
        await first.stop()
        await second.stop()
    }

    @Test func aCancelledWaitGivesBackTheHostsItTookBeforeIt() async throws {
        let taken = "a-" + Self.uniqueHost("taken"), awaited = "b-" + Self.uniqueHost("awaited")
        let first = try await TestMockServer.start()
        let second = try await TestMockServer.start()
        let held = try await first.intercept([awaited])
        let waiting = Task { try await second.intercept([awaited, taken]) }
        #expect(await eventually { InterceptionLocks.shared.waiting(for: awaited) == 1 })
        #expect(InterceptionLocks.shared.isHeld(taken))
        waiting.cancel()
        let error = await Self.thrown { _ = try await bounded("the cancelled wait") { try await waiting.value } }
        #expect(error?.cancelledHost == awaited, "\(String(describing: error))")
        #expect(!InterceptionLocks.shared.isHeld(taken))
        held.end()
        await first.stop()
        await second.stop()
    }

    @Test func aCancelledTaskDoesNotStartToWait() async throws {
        let host = Self.uniqueHost("already-cancelled")
        let first = try await TestMockServer.start()
        let second = try await TestMockServer.start()
        let held = try await first.intercept([host])
        let error = await Self.thrown {
            _ = try await bounded("the cancelled task") {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await second.intercept([host])
            }
        }
        #expect(error?.cancelledHost == host, "\(String(describing: error))")
        held.end()
        await first.stop()
        await second.stop()
    }

    /// Two tests that nest the same hosts in opposite orders: the one whose wait would
    /// close the cycle fails, its scope gives its host back, and the other goes on.
    @Test func testsNestingHostsInOppositeOrdersFailRatherThanWaitForEachOther() async throws {
        let a = Self.uniqueHost("a"), b = Self.uniqueHost("b")
        let first = try await TestMockServer.start()
        let second = try await TestMockServer.start()
        let firstHolds = Signal(), secondHolds = Signal(), firstInside = Signal()
        let firstTest = Task {
            try await first.intercepting([a]) {
                firstHolds.fire()
                try await secondHolds.wait()
                try await first.intercepting([b]) { firstInside.fire() }
            }
        }
        let secondTest = Task {
            try await second.intercepting([b]) {
                secondHolds.fire()
                try await firstHolds.wait()
                #expect(await eventually { InterceptionLocks.shared.waiting(for: b) == 1 })
                try await second.intercepting([a]) {}
            }
        }
        let error = await Self.thrown { try await bounded("the second test") { try await secondTest.value } }
        #expect(error?.deadlock?.host == a, "\(String(describing: error))")
        #expect(error?.deadlock?.cycle == [a, b])
        try await bounded("the first test") { try await firstTest.value }
        #expect(firstInside.fired)
        #expect(!InterceptionLocks.shared.isHeld(a))
        #expect(!InterceptionLocks.shared.isHeld(b))
        await first.stop()
        await second.stop()
    }

    /// An interception made outside any scope has no scope to re-enter: the task that made
    /// it would wait for itself, so asking again fails; once it ends, the host is free.
    @Test func aTaskInterceptingAHostItsOwnInterceptionHoldsFailsRatherThanWaitForItself() async throws {
        let host = Self.uniqueHost("itself")
        let outer = try await TestMockServer.start()
        let inner = try await TestMockServer.start()
        let error = await Self.thrown {
            try await bounded("the test") {
                let held = try await outer.intercept([host])
                defer { held.end() }
                try await inner.intercepting([host]) {}
            }
        }
        #expect(error?.deadlock?.host == host, "\(String(describing: error))")
        #expect(error?.deadlock?.cycle == [host])
        #expect(error.map { "\($0)" }?.contains("end()") == true, "the error says what to do")
        #expect(!InterceptionLocks.shared.isHeld(host))
        await outer.stop()
        await inner.stop()
    }

    /// Three holders around: the third to wait names them all.
    @Test func aLongerCycleIsFoundAndNamed() async throws {
        let (a, b, c) = (Self.uniqueHost("a"), Self.uniqueHost("b"), Self.uniqueHost("c"))
        let locks = InterceptionLocks.shared
        let one = InterceptionLocks.Holder(), two = InterceptionLocks.Holder(), three = InterceptionLocks.Holder()
        try await locks.acquire([a], for: one)
        try await locks.acquire([b], for: two)
        try await locks.acquire([c], for: three)
        let oneWaits = Task { try await locks.acquire([b], for: one) }
        #expect(await eventually { locks.waiting(for: b) == 1 })
        let twoWaits = Task { try await locks.acquire([c], for: two) }
        #expect(await eventually { locks.waiting(for: c) == 1 })
        let error = await Self.thrown { try await bounded("the third wait") { try await locks.acquire([a], for: three) } }
        #expect(error?.deadlock?.host == a, "\(String(describing: error))")
        #expect(error?.deadlock?.cycle == [a, b, c])
        #expect(locks.waiting(for: a) == 0)
        locks.release([c], for: three)
        try await bounded("the second wait") { try await twoWaits.value }
        locks.release([b, c], for: two)
        try await bounded("the first wait") { try await oneWaits.value }
        locks.release([a, b], for: one)
        #expect(![a, b, c].contains { locks.isHeld($0) })
    }

    /// A cycle can close when a host changes hands: a waiter left behind now waits for a
    /// holder that waits for it, and fails then.
    @Test func aWaiterForWhomTheNextHolderClosesACycleFails() async throws {
        let (n, m) = (Self.uniqueHost("n"), Self.uniqueHost("m"))
        let locks = InterceptionLocks.shared
        let old = InterceptionLocks.Holder(), next = InterceptionLocks.Holder(), last = InterceptionLocks.Holder()
        try await locks.acquire([n], for: old)
        try await locks.acquire([m], for: last)
        let nextWaitsForN = Task { try await locks.acquire([n], for: next) }
        #expect(await eventually { locks.waiting(for: n) == 1 })
        let nextWaitsForM = Task { try await locks.acquire([m], for: next) }
        #expect(await eventually { locks.waiting(for: m) == 1 })
        // Behind `next` for n; no cycle while `old` holds n.
        let lastWaitsForN = Task { try await locks.acquire([n], for: last) }
        #expect(await eventually { locks.waiting(for: n) == 2 })
        locks.release([n], for: old)
        try await bounded("next's wait for n") { try await nextWaitsForN.value }
        let error = await Self.thrown { try await bounded("last's wait for n") { try await lastWaitsForN.value } }
        #expect(error?.deadlock?.host == n, "\(String(describing: error))")
        #expect(error?.deadlock?.cycle == [n, m])
        locks.release([m], for: last)
        try await bounded("next's wait for m") { try await nextWaitsForM.value }
        locks.release([n, m], for: next)
        #expect(!locks.isHeld(n) && !locks.isHeld(m))
    }
}

extension Error {
    /// The host of an `InterceptionError.cancelled`.
    var cancelledHost: String? {
        guard case .cancelled(let host)? = self as? InterceptionError else { return nil }
        return host
    }

    /// The host and cycle of an `InterceptionError.wouldDeadlock`.
    var deadlock: (host: String, cycle: [String])? {
        guard case .wouldDeadlock(let host, let cycle)? = self as? InterceptionError else { return nil }
        return (host, cycle)
    }
}

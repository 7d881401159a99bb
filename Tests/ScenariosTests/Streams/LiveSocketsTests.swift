import Foundation
import Testing
@testable import MockCore

/// The registry of open WebSockets, with a fake transport: what it lists, hands to
/// waiting callers, and keeps bounded.
@Suite struct LiveSocketsTests {
    /// Keeps what the registry asked of it.
    final class Recorder: LiveSockets.Connection, @unchecked Sendable {
        private let lock = NSLock()
        private var log: [String] = []
        func send(_ message: LiveSockets.Message) { lock.withLock { log.append("send \(message.text)") } }
        func close(code: UInt16?, reason: String) { lock.withLock { log.append("close \(code.map(String.init) ?? "none") \(reason)") } }
        var calls: [String] { lock.withLock { log } }
    }

    static func socket(_ id: UInt64, _ uri: String = "/chat") -> LiveSockets.Socket {
        LiveSockets.Socket(id: id, uri: uri, openedAt: Date(timeIntervalSince1970: 0))
    }

    @Test func itListsSendsAndClosesThroughTheTransport() {
        let sockets = LiveSockets()
        let recorder = Recorder()
        #expect(sockets.register(Self.socket(7, "/chat?room=1"), connection: recorder))
        #expect(sockets.open.map(\.path) == ["/chat"])
        #expect(sockets.send(.text("hi"), to: 7))
        #expect(sockets.close(7, code: 1001, reason: "bye"))
        #expect(recorder.calls == ["send hi", "close 1001 bye"])
        #expect(!sockets.send(.text("hi"), to: 8), "no such socket")
        sockets.closed(7)
        #expect(sockets.open.isEmpty)
        #expect(!sockets.close(7))
    }

    @Test func itHoldsAtMostItsCapacity() {
        let sockets = LiveSockets(capacity: 2)
        #expect(sockets.register(Self.socket(1), connection: Recorder()))
        #expect(sockets.register(Self.socket(2), connection: Recorder()))
        #expect(!sockets.register(Self.socket(3), connection: Recorder()))
        #expect(sockets.open.map(\.id) == [1, 2])
        sockets.closed(1)
        #expect(sockets.register(Self.socket(3), connection: Recorder()))
    }

    @Test func messagesWaitInOrderUpToTheirBoundAndTheRestAreCounted() async throws {
        let sockets = LiveSockets()
        #expect(sockets.register(Self.socket(1), connection: Recorder()))
        for index in 0..<(LiveSockets.messageCapacity + 10) { sockets.received(.text("m\(index)"), on: 1) }
        #expect(sockets.socket(1)?.messagesNotKept == 10)
        #expect(try await sockets.nextMessage(from: 1) == .text("m0"))
        #expect(try await sockets.nextMessage(from: 1) == .text("m1"))
    }

    @Test func aWaitingCallerGetsTheNextMessageOrTheClose() async throws {
        let sockets = LiveSockets()
        #expect(sockets.register(Self.socket(1), connection: Recorder()))
        async let message = sockets.nextMessage(from: 1, timeout: 30)
        // Delivered whether the wait registered first or not: kept, or handed over.
        sockets.received(.binary(Data([1, 2])), on: 1)
        #expect(try await message == .binary(Data([1, 2])))
        let closed = Task { try await sockets.nextMessage(from: 1, timeout: 30) }
        try await Self.untilWaiting(sockets)
        sockets.closed(1)
        await #expect(throws: LiveSocketError.closed(1)) { try await closed.value }
        await #expect(throws: LiveSocketError.unknown(1)) { try await sockets.nextMessage(from: 1) }
    }

    /// The transport reports into the socket's inbox: callers waiting on one socket are
    /// served first come, first served, and nothing is kept after the close.
    @Test func anInboxServesItsWaitersInOrder() async throws {
        let sockets = LiveSockets(capacity: 1)
        let inbox = try #require(sockets.add(Self.socket(1), connection: Recorder()))
        #expect(sockets.add(Self.socket(2), connection: Recorder()) == nil, "over the capacity")
        let first = Task { try await sockets.nextMessage(from: 1, timeout: 30) }
        try await Self.untilWaiting(sockets)
        let second = Task { try await sockets.nextMessage(from: 1, timeout: 30) }
        for _ in 0..<100_000 where sockets.waiting < 2 { await Task.yield() }
        #expect(sockets.waiting == 2)
        inbox.received(.text("one"))
        inbox.received(.text("two"))
        #expect(try await first.value == .text("one"))
        #expect(try await second.value == .text("two"))
        inbox.received(.text("kept"))
        #expect(inbox.state.withLock { $0.messages } == [.text("kept")])
        sockets.closed(1)
        inbox.received(.text("after the close"))
        #expect(inbox.state.withLock { $0.messages }.isEmpty, "what was kept goes with the close")
    }

    @Test func aWaitEndsWithAnErrorNamingWhatItAwaited() async throws {
        let sockets = LiveSockets()
        #expect(sockets.register(Self.socket(1), connection: Recorder()))
        do {
            _ = try await sockets.nextMessage(from: 1, timeout: 0.01)
            Issue.record("no message came, yet the wait returned")
        } catch let error as LiveSocketError {
            #expect(error.description.contains("a message on WebSocket 1"))
        }
    }

    @Test func openedHandsEachSocketOnceInOrderAndWaitsForTheNext() async throws {
        let sockets = LiveSockets()
        #expect(sockets.register(Self.socket(1, "/a"), connection: Recorder()))
        #expect(sockets.register(Self.socket(2, "/b"), connection: Recorder()))
        #expect(try await sockets.opened(path: "/b").id == 2)
        #expect(try await sockets.opened().id == 1)
        async let next = sockets.opened(path: "/a", timeout: 30)
        try await Self.untilWaiting(sockets)
        #expect(sockets.register(Self.socket(3, "/b"), connection: Recorder()))
        #expect(sockets.register(Self.socket(4, "/a"), connection: Recorder()))
        #expect(try await next.id == 4)
        #expect(try await sockets.opened().id == 3)
    }

    /// Until a caller waits on `sockets` (a yield at a time: no clock involved).
    static func untilWaiting(_ sockets: LiveSockets) async throws {
        for _ in 0..<100_000 where sockets.waiting == 0 { await Task.yield() }
        #expect(sockets.waiting > 0)
    }
}

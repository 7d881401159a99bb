import Foundation
import NIOCore
import NIOHTTP1
import Testing
@testable import MockServer

/// Every transition of the connection's state machine, as a value: no channel, no clock.
@Suite struct ConnectionStateMachineTests {
    static let now = Date(timeIntervalSince1970: 1_000)

    static func head(_ uri: String = "/menu", method: HTTPMethod = .GET, keepAlive: Bool = true,
                     version: HTTPVersion = .http1_1) -> HTTPRequestHead {
        var head = HTTPRequestHead(version: version, method: method, uri: uri)
        if !keepAlive { head.headers.add(name: "Connection", value: "close") }
        return head
    }

    static func machine(multiplexed: Bool = false, maxBody: Int = 100) -> ConnectionStateMachine {
        ConnectionStateMachine(multiplexed: multiplexed, maxBodySize: maxBody)
    }

    /// Feeds a whole request; returns the end's action.
    static func request(_ machine: inout ConnectionStateMachine, _ uri: String = "/menu", body: String? = nil,
                        uplinkPending: Bool = false) -> ConnectionStateMachine.EndAction {
        _ = machine.receivedHead(head(uri), declaredLength: body?.utf8.count ?? 0, at: now)
        if let body {
            var chunk = ByteBuffer(string: body)
            _ = machine.receivedBody(&chunk)
        }
        return machine.receivedEnd(uplinkPending: uplinkPending)
    }

    static func answered(_ action: ConnectionStateMachine.EndAction) -> ConnectionStateMachine.Request? {
        if case .answer(let request) = action { return request }
        return nil
    }

    /// Bytes the decoder could not finish at a close: a head of their own when no request
    /// owns them, else the body of the request being read or queued.
    @Test func cutBytesBelongToTheRequestThatIsStillArriving() {
        var machine = Self.machine()
        #expect(machine.cutBytesStartANewRequest)
        _ = machine.receivedHead(Self.head("/order", method: .POST), declaredLength: 10, at: Self.now)
        #expect(!machine.cutBytesStartANewRequest, "the body being read")
        #expect(Self.answered(machine.receivedEnd(uplinkPending: false)) != nil)
        #expect(machine.cutBytesStartANewRequest, "answering: a new request's head")
        _ = machine.receivedHead(Self.head("/order", method: .POST), declaredLength: 10, at: Self.now)
        #expect(!machine.cutBytesStartANewRequest, "a queued request whose end has not arrived")
        guard case .queued = machine.receivedEnd(uplinkPending: false) else {
            Issue.record("the second request's end is queued behind the answer")
            return
        }
        #expect(machine.cutBytesStartANewRequest)
        machine.closeAfterAnswer()
        #expect(!machine.cutBytesStartANewRequest, "a closing connection reads no more")
    }

    @Test func aRequestIsReadThenAnswered() {
        var machine = Self.machine()
        #expect(machine.readRequested() == .read)
        #expect(machine.receivedHead(Self.head("/orders", method: .POST), declaredLength: 5, at: Self.now) == .began)
        var chunk = ByteBuffer(string: "hello")
        #expect(machine.receivedBody(&chunk) == .stored(bytes: 5))
        let request = Self.answered(machine.receivedEnd(uplinkPending: false))
        #expect(request?.head.uri == "/orders")
        #expect(request.map { String(buffer: $0.body) } == "hello")
        #expect(request?.receivedAt == Self.now)
        guard case .responding = machine.state else { Issue.record("answering: \(machine.state)"); return }
        #expect(machine.isBusy)
        #expect(machine.responseEnded(keepAlive: true, writable: true) == .ready)
        guard case .idle = machine.state else { Issue.record("after the answer: \(machine.state)"); return }
    }

    @Test func pipelinedRequestsWaitAndHoldReadsUntilTheAnswerEnds() {
        var machine = Self.machine()
        #expect(Self.answered(Self.request(&machine, "/first")) != nil)
        // A second request arrives while the first is answered: queued, and reading pauses.
        #expect(machine.receivedHead(Self.head("/second"), declaredLength: 2, at: Self.now) == .queued)
        var chunk = ByteBuffer(string: "hi")
        #expect(machine.receivedBody(&chunk) == .queued)
        guard case .queued = machine.receivedEnd(uplinkPending: false) else { Issue.record("the end is queued"); return }
        #expect(machine.readRequested() == .withhold)
        #expect(machine.nextQueued() == nil, "nothing is taken while the first answer is under way")
        #expect(machine.responseEnded(keepAlive: true, writable: true) == .ready)
        // The queue drains in order through the same events.
        guard case .head(let head)? = machine.nextQueued() else { Issue.record("the queued head comes first"); return }
        #expect(machine.receivedHead(head, declaredLength: 2, at: Self.now, fromQueue: true) == .began)
        guard case .body(var body)? = machine.nextQueued() else { Issue.record("then its body"); return }
        #expect(machine.receivedBody(&body, fromQueue: true) == .stored(bytes: 2))
        #expect(machine.nextQueued().map { if case .end = $0 { true } else { false } } == true)
        #expect(Self.answered(machine.receivedEnd(uplinkPending: false, fromQueue: true))?.head.uri == "/second")
        #expect(machine.nextQueued() == nil)
        #expect(machine.resumeReading() == .read, "the queue drained: the read withheld while it waited")
        #expect(machine.resumeReading() == nil, "once")
        #expect(machine.readRequested() == .read, "reading goes on while the second is answered (a next part queues)")
    }

    @Test func aDeclaredBodyPastTheLimitIsDroppedThenRefused() {
        var machine = Self.machine(maxBody: 4)
        #expect(machine.receivedHead(Self.head(method: .POST), declaredLength: 10, at: Self.now) == .began)
        var chunk = ByteBuffer(string: "0123456789")
        #expect(machine.receivedBody(&chunk) == .dropped)
        guard case .refuseTooLarge(let request) = machine.receivedEnd(uplinkPending: false) else {
            Issue.record("a body past the limit is refused"); return
        }
        #expect(request.oversize == 10)
        #expect(request.body.readableBytes == 0, "the body is not kept")
        #expect(machine.responseEnded(keepAlive: false, writable: true) == .closeAfterWrites)
    }

    @Test func aBodyThatGrowsPastTheLimitIsDroppedFromThere() {
        var machine = Self.machine(maxBody: 4)
        #expect(machine.receivedHead(Self.head(method: .POST), declaredLength: 0, at: Self.now) == .began)
        var first = ByteBuffer(string: "012")
        #expect(machine.receivedBody(&first) == .stored(bytes: 3))
        var second = ByteBuffer(string: "345")
        #expect(machine.receivedBody(&second) == .dropped)
        var third = ByteBuffer(string: "6")
        #expect(machine.receivedBody(&third) == .dropped)
        guard case .refuseTooLarge(let request) = machine.receivedEnd(uplinkPending: false) else { Issue.record("refused"); return }
        #expect(request.oversize == 7)
    }

    @Test func anUplinkHoldsReadsAndTheAnswerUntilItHasCarriedTheBody() {
        var machine = Self.machine()
        _ = machine.receivedHead(Self.head(method: .POST), declaredLength: 3, at: Self.now)
        #expect(machine.holdUplink(true) == nil)
        #expect(machine.readRequested() == .withhold, "the uplink is behind: reads wait")
        #expect(machine.holdUplink(false) == .read, "released: the withheld read")
        var chunk = ByteBuffer(string: "abc")
        _ = machine.receivedBody(&chunk)
        guard case .awaitUplink = machine.receivedEnd(uplinkPending: true) else { Issue.record("waits for the uplink"); return }
        #expect(machine.isBusy)
        #expect(Self.answered(machine.uplinkCarried()).map { String(buffer: $0.body) } == "abc")
        guard case .ignored = machine.uplinkCarried() else { Issue.record("once"); return }
    }

    @Test func aClosingAnswerClosesAndABlockedChannelWaitsForWritability() {
        var machine = Self.machine()
        _ = Self.request(&machine)
        #expect(machine.responseEnded(keepAlive: true, writable: false) == .none)
        guard case .blocked = machine.state else { Issue.record("blocked: \(machine.state)"); return }
        #expect(machine.receivedHead(Self.head(), declaredLength: 0, at: Self.now) == .queued, "the next request waits")
        #expect(machine.writabilityChanged(writable: false) == .none)
        #expect(machine.writabilityChanged(writable: true) == .ready)
        #expect(machine.writabilityChanged(writable: true) == .none, "only a blocked connection resumes")

        var closing = Self.machine()
        _ = Self.request(&closing)
        #expect(closing.responseEnded(keepAlive: false, writable: true) == .closeAfterWrites)
        #expect(closing.readRequested() == .withhold, "a closing connection reads nothing more")
        #expect(closing.responseEnded(keepAlive: true, writable: true) == .none)
    }

    @Test func refusalsAnswerWhatIsBeingReadAndOnlyCloseDuringAnAnswer() {
        var idle = Self.machine()
        guard case .refuse(nil) = idle.refuse(.headTimedOut) else { Issue.record("an idle connection answers the refusal"); return }
        #expect(idle.responseEnded(keepAlive: false, writable: true) == .closeAfterWrites)

        var reading = Self.machine()
        _ = reading.receivedHead(Self.head("/slow", method: .POST), declaredLength: 10, at: Self.now)
        guard case .refuse(let request?) = reading.refuse(.bodyStalled) else { Issue.record("refuses the request being read"); return }
        #expect(request.head.uri == "/slow")

        var uplink = Self.machine()
        guard case .awaitUplink = Self.request(&uplink, uplinkPending: true) else { Issue.record("held"); return }
        guard case .refuse(let held?) = uplink.refuse(.malformed("x")) else { Issue.record("refuses the held request"); return }
        #expect(held.head.uri == "/menu")

        var answering = Self.machine()
        _ = Self.request(&answering)
        _ = answering.receivedHead(Self.head("/queued"), declaredLength: 0, at: Self.now)
        guard case .close = answering.refuse(.headTooLarge(limit: 10)) else { Issue.record("nothing to answer on"); return }
        #expect(answering.closed().map(\.head.uri) == ["/queued"], "the close still reports the queued request")
    }

    @Test func theIdleDeadlineClosesOnlyAnIdleConnection() {
        var machine = Self.machine()
        _ = Self.request(&machine)
        let whileAnswering = machine.idleTimedOut()
        #expect(!whileAnswering, "an answer is under way")
        _ = machine.responseEnded(keepAlive: true, writable: true)
        let whenIdle = machine.idleTimedOut()
        #expect(whenIdle)
        guard case .closing = machine.state else { Issue.record("closing: \(machine.state)"); return }
    }

    @Test func aStoppingServerFinishesTheAnswerThenCloses() {
        var idle = Self.machine()
        #expect(idle.quiesce() == .closeAfterWrites)

        var answering = Self.machine()
        _ = Self.request(&answering)
        #expect(answering.keepsAlive(asked: true))
        #expect(answering.quiesce() == .none)
        #expect(!answering.keepsAlive(asked: true), "the answer under way says Connection: close")
        #expect(answering.readRequested() == .withhold)
        #expect(answering.responseEnded(keepAlive: true, writable: true) == .closeAfterWrites)

        var blocked = Self.machine()
        _ = Self.request(&blocked)
        _ = blocked.responseEnded(keepAlive: true, writable: false)
        #expect(blocked.quiesce() == .closeAfterWrites)
    }

    @Test func anHTTP2StreamFinishesItsRequestWhenTheServerStops() {
        var stream = Self.machine(multiplexed: true)
        _ = stream.receivedHead(Self.head(method: .POST), declaredLength: 0, at: Self.now)
        #expect(stream.quiesce() == .none)
        #expect(stream.readRequested() == .read, "the stream reads the rest of its request")
        #expect(stream.keepsAlive(asked: false), "a stream's answer never closes the connection")
        var chunk = ByteBuffer(string: "x")
        _ = stream.receivedBody(&chunk)
        #expect(Self.answered(stream.receivedEnd(uplinkPending: false)) != nil)
        #expect(stream.responseEnded(keepAlive: true, writable: true) == .ready)
    }

    @Test func keepAliveFollowsTheRequest() {
        let machine = Self.machine()
        #expect(machine.keepsAlive(asked: Self.head().isKeepAlive))
        #expect(!machine.keepsAlive(asked: Self.head(keepAlive: false).isKeepAlive))
        #expect(!machine.keepsAlive(asked: Self.head(version: .http1_0).isKeepAlive), "HTTP/1.0 closes unless it asks otherwise")
    }

    @Test func hangsAndStreamsKeepTheConnectionBusy() {
        var hanging = Self.machine()
        _ = Self.request(&hanging)
        hanging.hang()
        guard case .hanging = hanging.state else { Issue.record("hanging"); return }
        #expect(hanging.receivedHead(Self.head(), declaredLength: 0, at: Self.now) == .queued)

        var streaming = Self.machine()
        _ = Self.request(&streaming)
        streaming.startStreaming()
        guard case .streaming = streaming.state else { Issue.record("streaming"); return }
        #expect(streaming.isBusy)
        #expect(streaming.quiesce() == .none, "a stream ends when its client leaves")
    }

    @Test func theCloseListsEveryRequestReadAndNotAnswered() {
        var cutOff = Self.machine()
        _ = cutOff.receivedHead(Self.head("/upload", method: .POST), declaredLength: 10, at: Self.now)
        let mid = cutOff.closed()
        #expect(mid.map(\.reason) == [.bodyCutOff])
        #expect(mid.first?.receivedAt == Self.now)
        guard case .closed = cutOff.state else { Issue.record("closed"); return }
        #expect(cutOff.readRequested() == .withhold)

        var held = Self.machine()
        _ = Self.request(&held, uplinkPending: true)
        #expect(held.closed().map(\.reason) == [.uplinkCutOff])

        var pipelined = Self.machine()
        _ = Self.request(&pipelined, "/first")
        _ = pipelined.receivedHead(Self.head("/second"), declaredLength: 0, at: Self.now)
        _ = pipelined.receivedEnd(uplinkPending: false)
        _ = pipelined.receivedHead(Self.head("/third", method: .POST), declaredLength: 5, at: Self.now)
        let abandoned = pipelined.closed()
        #expect(abandoned.map(\.head.uri) == ["/second", "/third"])
        #expect(abandoned.map(\.reason) == [.queued, .bodyCutOff])
        #expect(abandoned.allSatisfy { $0.receivedAt == nil })
        #expect(pipelined.closed().isEmpty, "once")
    }

    @Test func partsWithNoRequestAreIgnored() {
        var machine = Self.machine()
        var chunk = ByteBuffer(string: "stray")
        #expect(machine.receivedBody(&chunk) == .ignored)
        guard case .ignored = machine.receivedEnd(uplinkPending: false) else { Issue.record("ignored"); return }
        guard case .idle = machine.state else { Issue.record("still idle"); return }
    }
}

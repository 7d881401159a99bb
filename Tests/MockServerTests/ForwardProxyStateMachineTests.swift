import Foundation
import NIOCore
import NIOHTTP1
import Testing
@_spi(Fuzzing) @testable import MockServer

/// The forward proxy's part of a connection as a value: which requests go on to the HTTP
/// handler and when a takeover (a tunnel, a forwarded request, a refusal) is carried out.
@Suite struct ForwardProxyStateMachineTests {
    static let now = Date(timeIntervalSince1970: 1_000)
    static let target = ProxyTarget(host: "example.com", port: 443)

    static func head(_ uri: String, method: HTTPMethod = .GET) -> HTTPRequestHead {
        HTTPRequestHead(version: .http1_1, method: method, uri: uri)
    }

    static func carried(_ action: ForwardProxyStateMachine.PartAction) -> ForwardProxyStateMachine.Takeover? {
        if case .carryOut(let takeover) = action { return takeover }
        return nil
    }

    static func passes(_ action: ForwardProxyStateMachine.PartAction) -> Bool {
        if case .pass = action { return true }
        return false
    }

    @Test func theServersOwnRequestsPassOn() {
        var machine = ForwardProxyStateMachine(maxBodySize: 10)
        #expect(Self.passes(machine.receivedHead(Self.head("/menu"), decision: .pass, at: Self.now)))
        var chunk = ByteBuffer(string: "x")
        #expect(Self.passes(machine.receivedBody(&chunk)))
        #expect(Self.passes(machine.receivedEnd()))
        #expect(machine.answersPending == 1)
        #expect(machine.mayRead)
        _ = machine.answerEnded()
        #expect(machine.answersPending == 0)
    }

    @Test func aTakeoverOnAnIdleConnectionIsCarriedOutAtItsEnd() throws {
        var machine = ForwardProxyStateMachine(maxBodySize: 10)
        let head = Self.head("example.com:443", method: .CONNECT)
        if case .pass = machine.receivedHead(head, decision: .tunnelToMock(Self.target), at: Self.now) { Issue.record("kept") }
        #expect(machine.mayRead, "its end is still to come")
        let takeover = try #require(Self.carried(machine.receivedEnd()))
        #expect(takeover.decision == .tunnelToMock(Self.target))
        #expect(takeover.receivedAt == Self.now)
        #expect(!machine.mayRead, "nothing more is read")
        var after = ByteBuffer(string: "GET / HTTP/1.1")
        if case .pass = machine.receivedBody(&after) { Issue.record("what follows a takeover goes nowhere") }
        if case .pass = machine.receivedHead(Self.head("/menu"), decision: .pass, at: Self.now) { Issue.record("nor a head") }
    }

    @Test func aTakeoverWaitsForTheAnswersBeforeIt() throws {
        var machine = ForwardProxyStateMachine(maxBodySize: 10)
        _ = machine.receivedHead(Self.head("/menu"), decision: .pass, at: Self.now)
        _ = machine.receivedEnd()
        _ = machine.receivedHead(Self.head("/categories"), decision: .pass, at: Self.now)
        _ = machine.receivedEnd()
        _ = machine.receivedHead(Self.head("example.com:443", method: .CONNECT), decision: .refuse(status: 403, reason: "no"), at: Self.now)
        if case .carryOut = machine.receivedEnd() { Issue.record("two answers are under way") }
        #expect(!machine.mayRead)
        if case .carryOut = machine.answerEnded() { Issue.record("one answer is still under way") }
        let takeover = try #require(Self.carried(machine.answerEnded()))
        #expect(takeover.decision == .refuse(status: 403, reason: "no"))
        if case .carryOut = machine.answerEnded() { Issue.record("once") }
    }

    @Test func aForwardedRequestKeepsItsBodyUpToTheLimit() throws {
        var machine = ForwardProxyStateMachine(maxBodySize: 4)
        _ = machine.receivedHead(Self.head("http://example.com/x", method: .POST), decision: .forward(Self.target, originForm: "/x"), at: Self.now)
        var chunk = ByteBuffer(string: "abcd")
        _ = machine.receivedBody(&chunk)
        let takeover = try #require(Self.carried(machine.receivedEnd()))
        #expect(String(buffer: takeover.body) == "abcd")

        var large = ForwardProxyStateMachine(maxBodySize: 4)
        _ = large.receivedHead(Self.head("http://example.com/x", method: .POST), decision: .forward(Self.target, originForm: "/x"), at: Self.now)
        var big = ByteBuffer(string: "abcdef")
        _ = large.receivedBody(&big)
        let refused = try #require(Self.carried(large.receivedEnd()))
        guard case .refuse(413, _) = refused.decision else { Issue.record("a body past the limit is refused: \(refused.decision)"); return }
        #expect(refused.body.readableBytes == 0)
    }

    @Test func aTunnelsBodyIsNotKept() throws {
        var machine = ForwardProxyStateMachine(maxBodySize: 4)
        _ = machine.receivedHead(Self.head("example.com:443", method: .CONNECT), decision: .tunnelThrough(Self.target), at: Self.now)
        var chunk = ByteBuffer(string: "ab")
        _ = machine.receivedBody(&chunk)
        #expect(try #require(Self.carried(machine.receivedEnd())).body.readableBytes == 0)
    }
}

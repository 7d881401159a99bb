import Foundation
import MockCore
import Testing

/// `AutomaticResend` tells a client's own resend after a reset on a reused connection
/// from a second call (#22): the first is counted once, the second twice.
@Suite struct AutomaticResendTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// A journal with one entry per line: method, URI, connection id and ordinal, the
    /// fault met, seconds after the start, body.
    static func journal(_ entries: [(String, String, UInt64, Int, Fault?, TimeInterval, String)]) -> [ServeEvent] {
        let journal = Journal()
        for (method, uri, connection, ordinal, fault, at, body) in entries {
            let request = MockRequest(method: method, uri: uri, body: Data(body.utf8), receivedAt: start.addingTimeInterval(at),
                                      connection: ConnectionRef(id: connection, ordinal: ordinal))
            var plan = ResponsePlan(status: 200)
            plan.fault = fault
            journal.record(request, plan: plan)
        }
        return journal.entries()
    }

    @Test func aResetOnAReusedConnectionThenTheSameRequestOnAFreshOneIsOneCall() {
        let events = Self.journal([
            ("GET", "/categories", 1, 1, nil, 0, ""),
            ("GET", "/menu?category=soups", 1, 2, .connectionReset, 0.1, ""),
            ("GET", "/menu?category=soups", 2, 1, .connectionReset, 0.15, ""),
        ])
        #expect(AutomaticResend.resends(in: events) == [3: 2])
        #expect(AutomaticResend.folding(events).map(\.id) == [1, 2])
    }

    @Test func anEmptyResponseIsResentToo() {
        let events = Self.journal([
            ("GET", "/a", 1, 1, nil, 0, ""), ("DELETE", "/b", 1, 2, .emptyResponse, 0.1, ""), ("DELETE", "/b", 2, 1, nil, 0.2, ""),
        ])
        #expect(AutomaticResend.folding(events).count == 2)
    }

    @Test(arguments: [
        ("the failed attempt was the connection's first: nothing to resend on", [
            ("GET", "/menu", 1, 1, Fault.connectionReset, 0.0, ""), ("GET", "/menu", 2, 1, nil, 0.1, ""),
        ]),
        ("a POST is not idempotent: a stack does not resend it", [
            ("GET", "/a", 1, 1, nil, 0, ""), ("POST", "/order", 1, 2, .connectionReset, 0.1, "{}"), ("POST", "/order", 2, 1, nil, 0.2, "{}"),
        ]),
        ("the answer came (a 500 is no reset): the second is the provider's retry", [
            ("GET", "/a", 1, 1, nil, 0, ""), ("GET", "/menu", 1, 2, nil, 0.1, ""), ("GET", "/menu", 2, 1, nil, 0.2, ""),
        ]),
        ("a truncated body had bytes of answer", [
            ("GET", "/a", 1, 1, nil, 0, ""), ("GET", "/menu", 1, 2, .truncatedBody, 0.1, ""), ("GET", "/menu", 2, 1, nil, 0.2, ""),
        ]),
        ("another query", [
            ("GET", "/a", 1, 1, nil, 0, ""), ("GET", "/menu?category=soups", 1, 2, .connectionReset, 0.1, ""), ("GET", "/menu", 2, 1, nil, 0.2, ""),
        ]),
        ("another body", [
            ("GET", "/a", 1, 1, nil, 0, ""), ("PUT", "/p", 1, 2, .connectionReset, 0.1, "a"), ("PUT", "/p", 2, 1, nil, 0.2, "b"),
        ]),
        ("not on a fresh connection", [
            ("GET", "/a", 1, 1, nil, 0, ""), ("GET", "/m", 1, 2, .connectionReset, 0.1, ""), ("GET", "/m", 2, 2, nil, 0.2, ""),
        ]),
        ("seconds later: a call of its own", [
            ("GET", "/a", 1, 1, nil, 0, ""), ("GET", "/m", 1, 2, .connectionReset, 0.1, ""), ("GET", "/m", 2, 1, nil, 5, ""),
        ]),
    ] as [(String, [(String, String, UInt64, Int, Fault?, TimeInterval, String)])])
    func aSecondCallIsNotFolded(what: String, entries: [(String, String, UInt64, Int, Fault?, TimeInterval, String)]) {
        let events = Self.journal(entries)
        #expect(AutomaticResend.folding(events).count == events.count, "\(what)")
    }

    /// A stack resends once: the third identical request is the provider's.
    @Test func onlyOneResendPerAttempt() {
        let events = Self.journal([
            ("GET", "/a", 1, 1, nil, 0, ""), ("GET", "/m", 1, 2, .connectionReset, 0.1, ""),
            ("GET", "/m", 2, 1, .connectionReset, 0.2, ""), ("GET", "/m", 3, 1, nil, 0.3, ""),
        ])
        #expect(AutomaticResend.folding(events).map(\.id) == [1, 2, 4])
    }
}

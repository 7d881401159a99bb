import ContractTests
import Foundation
import Scenarios
import Testing
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession itself resends an idempotent request once when a reused keep-alive
/// connection is reset before any answer (#22): libcurl here, CFNetwork on Apple
/// platforms. The journal keeps both; the checks' counts see the provider's one call.
@Suite struct AutomaticResendLiveTests {
    /// The second `GET /menu` is reset; the connection that carried it had carried the first.
    static let resetSecond = Scenario(name: "reset-second-menu", rules: [
        Rule("reset-second", .get("/menu"), .sequence([.simulator, .fault(.connectionReset)], afterLast: .passThrough)),
    ])

    @Test func aResendByTheHTTPStackIsCountedOnce() async throws {
        let server = try await TestMockServer.start(scenario: Self.resetSecond.name, scenarios: [Self.resetSecond])
        let session = URLSession(configuration: .ephemeral)
        // Alone among the gated tests: a resend is told apart by arriving within
        // `AutomaticResend.window` (2 s), which a stalled machine once exceeded.
        let response = try await withTestGate(exclusive: true) {
            _ = try await session.data(from: server.url("/menu"))                  // opens the keep-alive connection
            return try await session.data(from: server.url("/menu")).1             // reset on it, resent on a fresh one
        }
        let journal = server.journal.entries()
        await server.stop()
        // The stack resent it: three requests reached the server, the last on a new connection.
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(journal.map(\.fault) == [nil, .connectionReset, nil])
        #expect(journal.map { $0.connection?.ordinal } == [1, 2, 1])
        #expect(AutomaticResend.resends(in: journal) == [journal[2].id: journal[1].id])
        // The provider made two calls, and the expectations count two.
        let expectations = ServerExpectations(journal: server.journal)
        try await expectations.expect(.get("/menu"), .exactly(2))
        #expect(expectations.requests.count == 2)
        let violation = expectations.violation("anything", actual: "anything")
        #expect(violation.serverSaw.last?.contains("the client's HTTP stack resent #\(journal[1].id); counted once") == true,
                "\(violation.serverSaw)")
    }
}

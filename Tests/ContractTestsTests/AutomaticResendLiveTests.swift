import ContractTests
import Foundation
import MockFixtures
import MockServer
import BuiltInMockAPIs
import MockCore
import Testing
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
        // The journal's times come from a clock that stands still: a resend is told apart by
        // arriving within `AutomaticResend.window` (2 s) of its attempt, which a stalled
        // machine once exceeded on the real clock. (The window itself is tested on a manual
        // clock in `AutomaticResendTests`.) The server keeps an idle keep-alive connection for
        // an hour, not the default minute, so the second request finds the first one's
        // connection however long the machine holds this test between the two.
        let engine = try MockEngine(configuration: EngineConfiguration(
            fixturesDirectory: MockFixtures.directory, timeSource: ManualTimeSource(Date(timeIntervalSince1970: 1_700_000_000)),
            extraScenarios: [Self.resetSecond], scenario: Self.resetSecond.name))
        let server = MockHTTPServer(engine: engine, configuration: ServerConfiguration(limits: ConnectionLimits(idleTimeout: .seconds(3600))))
        let base = try await server.start().url
        let session = URLSession(configuration: .ephemeral)
        _ = try await session.data(from: base.appendingPathComponent("menu"))                      // opens the keep-alive connection
        let response = try await session.data(from: base.appendingPathComponent("menu")).1         // reset on it, resent on a fresh one
        let journal = engine.journal.entries()
        await server.stop()
        // The stack resent it: three requests reached the server, the last on a new connection.
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(journal.map(\.fault) == [nil, .connectionReset, nil])
        #expect(journal.map { $0.connection?.ordinal } == [1, 2, 1])
        #expect(AutomaticResend.resends(in: journal) == [journal[2].id: journal[1].id])
        // The provider made two calls, and the expectations count two.
        let expectations = ServerExpectations(journal: engine.journal)
        try await expectations.expect(.get("/menu"), .exactly(2))
        #expect(expectations.requests.count == 2)
        let violation = expectations.violation("anything", actual: "anything")
        #expect(violation.serverSaw.last?.contains("the client's HTTP stack resent #\(journal[1].id); counted once") == true,
                "\(violation.serverSaw)")
    }
}

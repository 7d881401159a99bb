import ContractTests
import Foundation
import MockFixtures
import BuiltInMockAPIs
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The in-process transport times out as URLSession does (#13): the configuration's
/// `timeoutIntervalForRequest` unless the request sets its own, for hangs, for delays
/// past it, and for pauses between chunks.
@Suite struct InProcessTimeoutTests {
    static func engine(_ scenario: Scenario) throws -> MockEngine {
        try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory,
                                                          extraScenarios: [scenario], scenario: scenario.name))
    }

    /// The error and seconds of a GET through the in-process transport.
    static func outcome(_ scenario: Scenario, configurationTimeout: TimeInterval, requestTimeout: TimeInterval? = nil) async throws -> (URLError.Code?, TimeInterval) {
        let registration = try await MockURLProtocol.register(try engine(scenario))
        var request = URLRequest(url: registration.baseURL.appendingPathComponent("menu"))
        if let requestTimeout { request.timeoutInterval = requestTimeout }
        let session = URLSession(configuration: registration.sessionConfiguration(timeout: configurationTimeout))
        let start = Date()
        let result: (URLError.Code?, TimeInterval)
        do {
            _ = try await session.data(for: request)
            result = (nil, Date().timeIntervalSince(start))
        } catch let error as URLError {
            result = (error.code, Date().timeIntervalSince(start))
        }
        await registration.unregister()
        return result
    }

    static let hang = Scenario(name: "hang-test", rules: [Rule("h", .get("/menu"), always: .fault(.hang))])
    static let slow = Scenario(name: "slow-test", rules: [Rule("s", .get("/menu"), always: Outcome(.simulator, latency: .fixed(4)))])

    // The upper bounds sit halfway to the timeout that would apply if the feature were
    // missing: a loaded 2-core CI machine once took 12 s to time out a 1 s request, and
    // a bound near 1 s tells nothing more.

    @Test func aHangTimesOutAtTheConfigurationsTimeout() async throws {
        // Without the configuration's 1 s, the request's own default (60 s) would apply.
        let (code, elapsed) = try await Self.outcome(Self.hang, configurationTimeout: 1)
        #expect(code == .timedOut)
        #expect(elapsed >= 0.9 && elapsed < 30, "timed out after \(elapsed) s, not the configuration's 1 s")
    }

    @Test func aRequestsOwnTimeoutWins() async throws {
        // 600 s in the configuration: a whole run on 2 cores beside a build has taken over
        // 60 s to fire the request's 1 s.
        let (code, elapsed) = try await Self.outcome(Self.hang, configurationTimeout: 600, requestTimeout: 1)
        #expect(code == .timedOut)
        #expect(elapsed >= 0.9 && elapsed < 300, "timed out after \(elapsed) s, not the request's 1 s (the configuration says 600 s)")
    }

    @Test func aDelayPastTheTimeoutTimesOut() async throws {
        // Timed out, not answered after the 4 s delay as before. (No upper bound on the
        // seconds: the transport's timers share the global queue with the whole test run.)
        let (code, _) = try await Self.outcome(Self.slow, configurationTimeout: 1)
        #expect(code == .timedOut, "a 4 s delay under a 1 s timeout")
        let (ok, _) = try await Self.outcome(Self.slow, configurationTimeout: 10)
        #expect(ok == nil, "a 4 s delay under a 10 s timeout is answered")
    }
}

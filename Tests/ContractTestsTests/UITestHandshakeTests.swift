import ContractTests
import ContractTestsXCTest
import Foundation
import MockServerClient
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The UI-test handshake as far as Linux can run it (#16): the environment a UI test hands
/// the app, read by the app side, puts the app's requests in the test's session, whose
/// scenario the test switches without touching other sessions.
@Suite struct UITestHandshakeTests {
    @Test func theAppReadsTheLaunchEnvironmentAndPlaysTheTestsSession() async throws {
        let server = try await TestMockServer.start()
        // The UI-test process: what `XCUIApplication.useMockServer(server, session:)` puts in launchEnvironment.
        let environment = server.launchEnvironment(session: "checkout-ui-test")
        try server.use("server-errors", session: "checkout-ui-test")

        // The app process: one line for the base URL, one for its session configuration.
        let fallback = URL(string: "http://localhost:8080")!
        let baseURL = MockServerEnvironment.baseURL(or: fallback, environment: environment)
        #expect(baseURL == server.baseURL)
        let configuration = URLSessionConfiguration.ephemeral
        MockServerEnvironment.configure(configuration, environment: environment)
        let app = URLSession(configuration: configuration)

        let (_, inSession) = try await app.data(from: baseURL.appendingPathComponent("categories"))
        #expect((inSession as? HTTPURLResponse)?.statusCode == 500, "the test's session plays its scenario")
        let (_, outside) = try await URLSession.shared.data(from: server.url("/categories"))
        #expect((outside as? HTTPURLResponse)?.statusCode == 200, "other clients are not in it")
        #expect(server.journal.entries().map(\.session) == ["checkout-ui-test", nil])
        await server.stop()

        // Not launched by a UI test: the app's own URL, no session header.
        #expect(MockServerEnvironment.baseURL(or: fallback, environment: [:]) == fallback)
        let plain = URLSessionConfiguration.ephemeral
        MockServerEnvironment.configure(plain, environment: [:])
        #expect(plain.httpAdditionalHeaders?[MockServerEnvironment.sessionHeader] == nil)
    }
}

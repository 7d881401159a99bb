import ContractTests
import Foundation
import MockServerClient

extension TestMockServer {
    /// The launch environment that points an app at this server in `session`: give it to
    /// `XCUIApplication.launchEnvironment` (or use `XCUIApplication.useMockServer(_:session:)`),
    /// and switch that session's scenario with `use(_:session:)`.
    public func launchEnvironment(session: String) -> [String: String] {
        MockServerEnvironment.launchEnvironment(baseURL: baseURL, session: session)
    }
}

#if os(iOS) || os(tvOS) || os(macOS)
import XCTest

extension XCUIApplication {
    /// Launch the app against `server`, its requests in `session`. Main-actor isolated, as
    /// `XCUIApplication` is, so the `setUp` or test method that calls it is `@MainActor`:
    ///
    ///     @MainActor override func setUp() async throws {
    ///         server = try await TestMockServer.start()
    ///         app = XCUIApplication()
    ///         app.useMockServer(server, session: name)
    ///         try server.use("order-fails-then-succeeds", session: name)
    ///         app.launch()
    ///     }
    @MainActor
    public func useMockServer(_ server: TestMockServer, session: String) {
        launchEnvironment.merge(server.launchEnvironment(session: session)) { _, new in new }
    }
}
#endif

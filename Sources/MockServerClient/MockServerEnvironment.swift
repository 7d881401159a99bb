import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app side of running UI tests against the mock: the UI test starts a mock server and
/// launches the app with its base URL and a session in the launch environment; the app
/// reads them here. A small library of its own with no dependencies, so an app target can
/// link it (in debug builds) without the server.
///
///     // where the app builds its networking:
///     let baseURL = MockServerEnvironment.baseURL(or: URL(string: "http://localhost:8080")!)
///     let configuration = URLSessionConfiguration.default
///     MockServerEnvironment.configure(configuration)   // every request in the UI test's session
public enum MockServerEnvironment {
    /// The launch-environment keys.
    public static let baseURLKey = "MOCK_SERVER_BASE_URL"
    /// The launch-environment key of the session the app's requests join.
    public static let sessionKey = "MOCK_SERVER_SESSION"
    /// The header that puts a request in a session (scenarios switch per session).
    public static let sessionHeader = "X-Mock-Session"

    /// The mock's base URL when a UI test launched the app with one, else `fallback`.
    public static func baseURL(or fallback: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        environment[baseURLKey].flatMap(URL.init(string:)) ?? fallback
    }

    /// The UI test's session, if it launched the app with one.
    public static func session(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        environment[sessionKey].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Sends every request of sessions made from `configuration` in the UI test's session
    /// (nothing changes when the app was not launched by one).
    public static func configure(_ configuration: URLSessionConfiguration,
                                 environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let session = session(environment: environment) else { return }
        var headers = configuration.httpAdditionalHeaders ?? [:]
        headers[sessionHeader] = session
        configuration.httpAdditionalHeaders = headers
    }

    /// What a UI test puts in `XCUIApplication.launchEnvironment`.
    public static func launchEnvironment(baseURL: URL, session: String) -> [String: String] {
        [baseURLKey: baseURL.absoluteString, sessionKey: session]
    }
}

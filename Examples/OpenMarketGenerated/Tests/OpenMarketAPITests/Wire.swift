import ContractTests
import ContractTestsTesting
import Foundation
import MockServerOpenAPI
import OpenAPIURLSession
@testable import OpenMarketAPI
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the generated client reaches the test's mock server.
enum Wire: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Loopback sockets, through swift-openapi-urlsession's `URLSessionTransport`.
    case sockets
    /// No sockets: MockServer's `MockEngineTransport` answers from the same engine.
    case inProcess

    var testDescription: String { rawValue }

    /// The generated `Client` on `MockServer.current`, giving up after `timeout` without a
    /// byte. Both ways share the server's engine, so its journal and expectations see every
    /// request either way.
    func client(timeout: Duration = .seconds(60)) -> Client {
        let server = MockServer.current
        switch self {
        case .sockets:
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
            let transport = URLSessionTransport(configuration: .init(session: URLSession(configuration: configuration)))
            return Client(serverURL: server.baseURL, transport: transport)
        case .inProcess:
            return Client(serverURL: server.baseURL, transport: MockEngineTransport(engine: server.engine, timeout: timeout))
        }
    }
}

/// Vendor 1 of the built-in fixtures (yagom-mart).
enum FixtureVendor {
    static let id = 1
    static let identifier = "c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1"
    static let password = "mart1234"
}

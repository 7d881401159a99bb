import Foundation
import MockFixtures
@testable import MockServer
import MockServerTLS
import NIOCore
import BuiltInMockAPIs
import MockCore
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A server on port 0 with its own engine, for one test.
struct TestServer {
    let server: MockHTTPServer
    let address: BoundAddress
    /// The server's loop (`ServerLoops`, as `TestMockServer` has): tests beside it do not
    /// hold its answers.
    let lease: ServerLoops.Lease
    var engine: MockEngine { server.engine }

    /// Stops the server and gives its loop back.
    func stop() async {
        await server.stop()
        lease.release()
    }

    static func start(
        restaurant: RestaurantVariant = .original,
        openMarket: OpenMarketVariant = .jan2022,
        fixtures: URL = MockFixtures.directory,
        maxRequestBodySize: Int = 8 * 1024 * 1024,
        journalCapacity: Int = 10_000,
        timeSource: any TimeSource = SystemTimeSource(),
        scenarios: [Scenario] = [],
        scenario: String = "happy-path",
        timeScale: Double = 1,
        seed: UInt64 = 0,
        limits: ConnectionLimits = .patient(),
        adminToken: String? = nil,
        strict: Bool = false,
        tls: TLSSettings? = nil,
        loops: ServerLoops = .shared,
        apis: [any MockAPI] = BuiltInAPIs.all
    ) async throws -> TestServer {
        let engine = try MockEngine(configuration: EngineConfiguration(
            fixturesDirectory: fixtures, apis: apis, variants: [RestaurantAPI().name: restaurant.rawValue, OpenMarketAPI().name: openMarket.rawValue],
            journalCapacity: journalCapacity, seed: seed, timeSource: timeSource,
            extraScenarios: scenarios, scenario: scenario, timeScale: timeScale, strict: strict))
        let started = try await loops.start {
            MockHTTPServer(engine: engine, configuration: ServerConfiguration(
                port: 0, maxRequestBodySize: maxRequestBodySize, limits: limits, adminToken: adminToken, tls: tls), group: $0)
        }
        return TestServer(server: started.server, address: started.address, lease: started.lease)
    }

    func url(_ path: String) -> URL { URL(string: address.baseURL + path)! }
    var port: Int { address.port }
}

/// Runs `body` against a fresh server and stops it afterwards, also when `body` throws.
func withServer<T>(
    restaurant: RestaurantVariant = .original,
    openMarket: OpenMarketVariant = .jan2022,
    maxRequestBodySize: Int = 8 * 1024 * 1024,
    journalCapacity: Int = 10_000,
    scenarios: [Scenario] = [],
    scenario: String = "happy-path",
    timeScale: Double = 1,
    seed: UInt64 = 0,
    limits: ConnectionLimits = .patient(),
    adminToken: String? = nil,
    strict: Bool = false,
    _ body: (TestServer) async throws -> T
) async throws -> T {
    let server = try await TestServer.start(restaurant: restaurant, openMarket: openMarket, maxRequestBodySize: maxRequestBodySize,
                                            journalCapacity: journalCapacity, scenarios: scenarios, scenario: scenario, timeScale: timeScale,
                                            seed: seed, limits: limits, adminToken: adminToken, strict: strict)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// URLSession with no cache, so every call reaches the server.
enum HTTP {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // Only bounds a failure (an answer ends the wait): two minutes, which a loaded 2-core
        // machine does not use up; a test of a timeout sets its own.
        configuration.timeoutIntervalForRequest = 120
        // Every test server is 127.0.0.1: the default of 6 connections per host would make
        // unrelated tests (some hold hung connections on purpose) queue behind each other.
        configuration.httpMaximumConnectionsPerHost = 256
        // HTTPS test servers use the test CA: on Apple platforms the session trusts it
        // through its delegate (on Linux the system store does, and there is none).
        #if canImport(Security)
        return URLSession(configuration: configuration, delegate: try? TestCA.sessionDelegateNow(), delegateQueue: nil)
        #else
        return URLSession(configuration: configuration)
        #endif
    }()

    static func get(_ url: URL, headers: [String: String] = [:], timeout: TimeInterval? = nil) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url)
        if let timeout { request.timeoutInterval = timeout }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try await send(request)
    }

    static func post(_ url: URL, json: String, method: String = "POST") async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(json.utf8)
        return try await send(request)
    }

    static func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (data, http)
    }

    static func json(_ data: Data) throws -> Any {
        try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }
}

extension HTTP {
    /// The URLError a request ends with, nil when it succeeds.
    static func failure(_ url: URL, headers: [String: String] = [:], timeout: TimeInterval = 60) async -> URLError? {
        do {
            _ = try await get(url, headers: headers, timeout: timeout)
            return nil
        } catch let error as URLError {
            return error
        } catch {
            return URLError(.unknown)
        }
    }
}

/// Seconds taken by `body`.
func measure<T>(_ body: () async throws -> T) async rethrows -> (T, TimeInterval) {
    let start = Date()
    let result = try await body()
    return (result, Date().timeIntervalSince(start))
}

extension TestServer {
    /// Stops the server's connections as `stop()` does (each asked to finish, the rest
    /// closed after the grace) and gives the seconds from the ask to the last close, timed
    /// on the connections' event loop: a test process whose shared pool other tests hold
    /// does not add to them. The listener stays open until `stop()`.
    func stopConnections() async throws -> TimeInterval {
        let start = NIODeadline.now()
        guard let stopped = server.connections.stop(grace: server.configuration.limits.shutdownGrace) else { return 0 }
        let end = try await stopped.map { NIODeadline.now() }.get()
        return Double((end - start).nanoseconds) / 1e9
    }
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass, and tells whether it
/// held: for end-to-end tests that wait on something a server or a client does at its own
/// pace. The bound only decides how long a failure takes (a pass returns as soon as the
/// condition holds), so it is generous.
func eventually(within seconds: TimeInterval = 120, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        guard Date() < deadline else { return false }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return true
}

extension ConnectionLimits {
    /// The server's limits, except that a connection may idle, or take its time over a
    /// request's head, for an hour: a socket test never has a connection timed out under
    /// it, however long a loaded machine holds the test (a full run on 2 cores once held
    /// one past the 60 s the test's own head timeout allowed). The timeouts themselves are
    /// tested on an event loop's clock (`EmbeddedConnection`).
    static func patient(maxConnections: Int = ConnectionLimits.default.maxConnections,
                        shutdownGrace: TimeAmount = ConnectionLimits.default.shutdownGrace) -> ConnectionLimits {
        ConnectionLimits(idleTimeout: .seconds(3600), headTimeout: .seconds(3600), maxConnections: maxConnections, shutdownGrace: shutdownGrace)
    }
}

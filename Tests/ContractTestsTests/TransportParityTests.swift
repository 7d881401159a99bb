@testable import ContractTests
import Foundation
import MockFixtures
import Scenarios
import Testing
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Redirects and cancellation behave alike over sockets and in-process (#13): a provider
/// that passes over one transport passes over the other.
@Suite struct TransportParityTests {
    static let rules = Scenario(name: "parity", rules: [
        Rule("moved", .get("/old-menu"), always: .status(302, headers: ["Location": "/menu?category=soups"])),
        Rule("see-other", .post("/old-order"), always: .status(303, headers: ["Location": "/categories"])),
        Rule("temporary", .post("/order-elsewhere"), always: .status(307, headers: ["Location": "/order"])),
        Rule("slow", .get("/categories"), always: Outcome.simulator.delayed(.fixed(5))),
    ])

    /// A server (or in-process engine) playing `rules`, a session reaching it, its journal.
    static func endpoint(_ transport: ContractTransport) async throws -> (CheckEndpoint, URLSession, Journal) {
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory,
                                                                       extraScenarios: [rules], scenario: rules.name))
        let endpoint = try await CheckEndpoint.start(engine: engine, transport: transport, requestTimeout: 10)
        return (endpoint, endpoint.session(timeout: 10), engine.journal)
    }

    static func request(_ endpoint: CheckEndpoint, _ method: String, _ path: String, body: Data? = nil) -> URLRequest {
        var request = URLRequest(url: URL(string: endpoint.baseURL.absoluteString + path)!)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        return request
    }

    @Test(arguments: ContractTransport.allCases)
    func a302IsFollowedToTheNewLocation(transport: ContractTransport) async throws {
        try TestCA.prepare(transport == .secureSockets)
        let (endpoint, session, journal) = try await Self.endpoint(transport)
        let (data, response) = try await session.data(for: Self.request(endpoint, "GET", "/old-menu"))
        await endpoint.stop()
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(response.url?.path == "/menu")
        #expect(JSONValue(parsing: data)?["items"]?.arrayValue?.count == 1, "the soups: \(String(decoding: data, as: UTF8.self))")
        #expect(journal.entries().map { "\($0.request.method) \($0.request.path) \($0.status)" } == ["GET /old-menu 302", "GET /menu 200"])
    }

    @Test(arguments: ContractTransport.allCases)
    func a303TurnsAPostIntoAGet(transport: ContractTransport) async throws {
        try TestCA.prepare(transport == .secureSockets)
        let (endpoint, session, journal) = try await Self.endpoint(transport)
        let (_, response) = try await session.data(for: Self.request(endpoint, "POST", "/old-order", body: Data("{\"menuIds\":[1]}".utf8)))
        await endpoint.stop()
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let seen = journal.entries()
        #expect(seen.map { "\($0.request.method) \($0.request.path)" } == ["POST /old-order", "GET /categories"])
        #expect(seen.last?.request.body == .empty)
    }

    /// A 307 keeps the method, and on Apple platforms the body; swift-corelibs-foundation
    /// resends it without the body over sockets, and the in-process transport does the
    /// same there (the mock then answers the bodiless order 400).
    @Test(arguments: ContractTransport.allCases)
    func a307KeepsTheMethod(transport: ContractTransport) async throws {
        try TestCA.prepare(transport == .secureSockets)
        let (endpoint, session, journal) = try await Self.endpoint(transport)
        let (data, response) = try await session.data(for: Self.request(endpoint, "POST", "/order-elsewhere", body: Data("{\"menuIds\":[1]}".utf8)))
        await endpoint.stop()
        let seen = journal.entries()
        #expect(seen.map { "\($0.request.method) \($0.request.path)" } == ["POST /order-elsewhere", "POST /order"])
        #if canImport(FoundationNetworking)
        #expect((response as? HTTPURLResponse)?.statusCode == 400)
        #expect(seen.last?.request.body == .empty)
        #else
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(JSONValue(parsing: data)?["preparation_time"] != nil, "\(String(decoding: data, as: UTF8.self))")
        #expect(seen.last?.request.body.data.flatMap(JSONValue.init(parsing:)) == ["menuIds": [1]])
        #endif
    }

    /// A cancelled task's request ends with `URLError.cancelled`, and its delayed answer
    /// is never delivered.
    @Test(arguments: ContractTransport.allCases)
    func cancellingTheTaskEndsTheRequest(transport: ContractTransport) async throws {
        try TestCA.prepare(transport == .secureSockets)
        let (endpoint, session, journal) = try await Self.endpoint(transport)
        let request = Self.request(endpoint, "GET", "/categories")
        let start = Date()
        let task = Task { () -> URLError.Code? in
            do {
                _ = try await session.data(for: request)
                return nil
            } catch let error as URLError {
                return error.code
            } catch {
                return .unknown
            }
        }
        while journal.entries().isEmpty && Date().timeIntervalSince(start) < 10 { try await Task.sleep(nanoseconds: 10_000_000) }
        task.cancel()
        // Cancelled, not answered: the 5 s answer would have come back as data (no seconds
        // are asserted: a loaded test run can resume the task late either way).
        let code = await task.value
        await endpoint.stop()
        #expect(code == .cancelled)
        #expect(journal.entries().count == 1)
    }
}

@testable import ContractHarness
import Foundation
import MockFixtures
import MockServerTLS
import BuiltInMockAPIs
import MockCore
import Testing
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Redirects, cancellation, session-wide headers and upload tasks behave alike over
/// sockets and in-process (#13, #22): a provider that passes over one transport passes
/// over the other.
@Suite struct TransportParityTests {
    static let rules = Scenario(name: "parity", rules: [
        Rule("moved", .get("/old-menu"), always: .status(302, headers: ["Location": "/menu?category=soups"])),
        Rule("see-other", .post("/old-order"), always: .status(303, headers: ["Location": "/categories"])),
        Rule("temporary", .post("/order-elsewhere"), always: .status(307, headers: ["Location": "/order"])),
        Rule("slow", .get("/categories"), always: Outcome.simulator.delayed(.fixed(5))),
        // Only a cancellation ends it: a delay, however long, could come back as data when
        // a loaded run resumes the test late (CI once saw that with a 5 s delay).
        Rule("never", .get("/images/1.png"), always: .fault(.hang)),
    ])

    /// A server (or in-process engine) playing `rules`, a session reaching it, its journal.
    static func endpoint(_ transport: ContractTransport) async throws -> (CheckEndpoint, URLSession, Journal) {
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory,
                                                                       extraScenarios: [rules], scenario: rules.name))
        let endpoint = try await CheckEndpoint.start(engine: engine, transport: transport, requestTimeout: 10, tls: TLSSettings())
        return (endpoint, endpoint.session(timeout: 120), engine.journal)
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
        try await TestCA.prepare(transport == .secureSockets)
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
        try await TestCA.prepare(transport == .secureSockets)
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
        try await TestCA.prepare(transport == .secureSockets)
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

    /// A cancelled task's request ends with `URLError.cancelled`: the request reached the
    /// server, which never answers, and the session's timeout is far off.
    @Test(arguments: ContractTransport.allCases)
    func cancellingTheTaskEndsTheRequest(transport: ContractTransport) async throws {
        try await TestCA.prepare(transport == .secureSockets)
        let (endpoint, _, journal) = try await Self.endpoint(transport)
        let session = endpoint.session(timeout: 600)
        let request = Self.request(endpoint, "GET", "/images/1.png")
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
        #expect(await eventually { !journal.entries().isEmpty }, "the request reached the server")
        task.cancel()
        // Cancelled: nothing else ends the request (no seconds are asserted: a loaded test
        // run can resume the task late).
        let code = await task.value
        await endpoint.stop()
        #expect(code == .cancelled)
        #expect(journal.entries().count == 1)
    }

    /// A session whose configuration carries `headers` (set before the session is made,
    /// as a provider does).
    static func session(_ endpoint: CheckEndpoint, headers: [String: String]) -> URLSession {
        let configuration = endpoint.sessionConfiguration(timeout: 120)
        configuration.httpAdditionalHeaders = headers
        return URLSession(configuration: configuration, delegate: endpoint.trust, delegateQueue: nil)
    }

    /// The configuration's `httpAdditionalHeaders` reach the server with every request,
    /// and a request's own header of the same name wins (URLSession's merge). A custom
    /// URLProtocol never sees them (Apple's loading system and corelibs alike), so the
    /// in-process transport reads them from the configuration it issued.
    @Test(arguments: ContractTransport.allCases)
    func sessionWideHeadersReachTheServer(transport: ContractTransport) async throws {
        try await TestCA.prepare(transport == .secureSockets)
        let (endpoint, _, journal) = try await Self.endpoint(transport)
        let session = Self.session(endpoint, headers: ["identifier": "vendor-7", "Accept-Language": "ko-KR"])
        var request = Self.request(endpoint, "GET", "/menu")
        request.setValue("en-US", forHTTPHeaderField: "accept-language")
        let (_, response) = try await session.data(for: request)
        await endpoint.stop()
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let headers = try #require(journal.entries().first).request.headers
        #expect(headers["identifier"] == "vendor-7")
        #expect(headers["Accept-Language"] == "en-US", "the request's own value wins over the session's")
    }

    /// Two sessions from two configurations of one endpoint each send their own headers.
    @Test func inProcessSessionsKeepTheirOwnHeaders() async throws {
        let (endpoint, _, journal) = try await Self.endpoint(.inProcess)
        let first = Self.session(endpoint, headers: ["identifier": "first"])
        let second = Self.session(endpoint, headers: ["identifier": "second"])
        _ = try await second.data(for: Self.request(endpoint, "GET", "/menu"))
        _ = try await first.data(for: Self.request(endpoint, "GET", "/menu"))
        await endpoint.stop()
        #expect(journal.entries().map { $0.request.headers["identifier"] } == ["second", "first"])
    }

    /// An upload task's body (`session.upload(for:from:)`, how many clients send a
    /// multipart create) reaches the server whole, with the session's headers.
    @Test(arguments: ContractTransport.allCases)
    func anUploadTasksBodyReachesTheServer(transport: ContractTransport) async throws {
        try await TestCA.prepare(transport == .secureSockets)
        let (endpoint, _, journal) = try await Self.endpoint(transport)
        let session = Self.session(endpoint, headers: ["identifier": "vendor-7"])
        var request = Self.request(endpoint, "POST", "/order")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let body = Data(#"{"menuIds":[1,5]}"#.utf8)
        let (data, response) = try await session.upload(for: request, from: body)
        await endpoint.stop()
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: data, as: UTF8.self))")
        #expect(JSONValue(parsing: data)?["preparation_time"] != nil)
        let seen = try #require(journal.entries().first)
        #expect(seen.request.body == .bytes(body))
        #expect(seen.request.headers["identifier"] == "vendor-7")
        #expect(seen.request.headers["Content-Length"] == String(body.count))
    }

    /// The same from a file (`uploadTask(with:fromFile:)`).
    @Test(arguments: ContractTransport.allCases)
    func anUploadFromAFileReachesTheServer(transport: ContractTransport) async throws {
        try await TestCA.prepare(transport == .secureSockets)
        let (endpoint, session, journal) = try await Self.endpoint(transport)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString).json")
        let body = Data(#"{"menuIds":[2]}"#.utf8)
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var request = Self.request(endpoint, "POST", "/order")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (_, response) = try await session.upload(for: request, fromFile: file)
        await endpoint.stop()
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(journal.entries().first?.request.body == .bytes(body))
    }
}

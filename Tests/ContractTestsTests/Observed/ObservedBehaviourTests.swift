@testable import ContractHarness
import Foundation
import MockFixtures
import MockServer
import MockServerTLS
import BuiltInMockAPIs
import MockCore
import Testing
import TestSupport
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ClientBehaviour: CustomTestStringConvertible {}

/// Each row of `ClientBehaviour.table` that URLSession decides, observed on this platform:
/// a real URLSession against the mock over sockets and through `MockURLProtocol`.
@Suite struct ObservedBehaviourTests {
    static let faultRules = Scenario(name: "observed-faults", rules: Fault.allCases.map {
        Rule("fault-\($0.rawValue)", .get("/fault/\($0.rawValue)"), always: Outcome(fault: $0))
    })

    static let redirectRules = Scenario(name: "observed-redirects", rules: [
        Rule("moved", .get("/old-menu"), always: .status(302, headers: ["Location": "/menu?category=soups"])),
        Rule("see-other", .post("/old-order"), always: .status(303, headers: ["Location": "/categories"])),
        Rule("temporary", .post("/order-elsewhere"), always: .status(307, headers: ["Location": "/order"])),
    ])

    static func endpoint(_ scenario: Scenario, _ transport: ContractTransport, timeout: TimeInterval) async throws -> (CheckEndpoint, Journal) {
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory,
                                                                       extraScenarios: [scenario], scenario: scenario.name))
        return (try await CheckEndpoint.start(engine: engine, transport: transport, requestTimeout: timeout), engine.journal)
    }

    static func transport(_ name: String) -> ContractTransport {
        name == ClientBehaviour.inProcess ? .inProcess : .sockets
    }

    /// A hang is ended by the client's timeout (2 s); every other fault ends the request at
    /// once, so its 10 s limit only ends a wait that should not happen.
    @Test(arguments: ClientBehaviour.faults)
    func eachFaultGivesTheTablesError(_ row: ClientBehaviour) async throws {
        let timeout: TimeInterval = row.name == Fault.hang.rawValue ? 2 : 10
        let (endpoint, _) = try await Self.endpoint(Self.faultRules, Self.transport(row.transport), timeout: timeout)
        let session = endpoint.session(timeout: timeout)
        let url = URL(string: endpoint.baseURL.absoluteString + "/fault/\(row.name)")!
        let observed: String
        do {
            let (data, response) = try await session.data(from: url)
            observed = Observed.describe(nil, status: (response as? HTTPURLResponse)?.statusCode, bytes: data.count)
        } catch {
            observed = Observed.describe(error)
        }
        session.invalidateAndCancel()
        await endpoint.stop()
        if let disagreement = Observed.check(row.area, row.name, row.transport, saw: observed) {
            Issue.record(Comment(rawValue: disagreement))
        }
    }

    /// TLS faults happen in the handshake, before any request: over sockets only, with a
    /// session that trusts the local CA as a provider's does (`LocalCATrust` on Apple
    /// platforms, the system store on Linux).
    @Test(arguments: ClientBehaviour.tls)
    func eachTLSFaultGivesTheTablesError(_ row: ClientBehaviour) async throws {
        let ca = try await TestCA.trusted()
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory, scenario: row.name))
        let server = MockHTTPServer(engine: engine, configuration: ServerConfiguration(tls: TLSSettings(caDirectory: ca.directory)))
        let address = try await server.start()
        let configuration = URLSessionConfiguration.ephemeral
        // The slow handshake (held 10 s) must outlast the client's 2 s.
        configuration.timeoutIntervalForRequest = row.name == "tls-slow-handshake" ? 2 : 8
        let session = try await TestCA.session(configuration: configuration)
        let observed: String
        do {
            let (data, response) = try await session.data(from: URL(string: "https://localhost:\(address.port)/categories")!)
            observed = Observed.describe(nil, status: (response as? HTTPURLResponse)?.statusCode, bytes: data.count)
        } catch {
            observed = Observed.describe(error)
        }
        session.invalidateAndCancel()
        await server.stop()
        if let disagreement = Observed.check(row.area, row.name, row.transport, saw: observed) {
            Issue.record(Comment(rawValue: disagreement))
        }
    }

    /// Where a redirect leads: the final status, and the second request as the mock saw it.
    @Test(arguments: ClientBehaviour.redirects)
    func eachRedirectIsFollowedAsTheTableSays(_ row: ClientBehaviour) async throws {
        let (endpoint, journal) = try await Self.endpoint(Self.redirectRules, Self.transport(row.transport), timeout: 10)
        let session = endpoint.session(timeout: 10)
        let (method, path) = switch row.name {
        case "302 after GET": ("GET", "/old-menu")
        case "303 after POST": ("POST", "/old-order")
        default: ("POST", "/order-elsewhere")
        }
        var request = URLRequest(url: URL(string: endpoint.baseURL.absoluteString + path)!)
        request.httpMethod = method
        if method == "POST" {
            request.httpBody = Data(#"{"menuIds":[1]}"#.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let observed: String
        do {
            let (_, response) = try await session.data(for: request)
            let seen = journal.entries()
            if seen.count == 2, let next = seen.last?.request {
                let body = method == "GET" ? "" : next.body == .empty ? " without a body" : " with the body"
                observed = "\((response as? HTTPURLResponse)?.statusCode ?? 0); then \(next.method) \(next.path)\(body)"
            } else {
                observed = "\((response as? HTTPURLResponse)?.statusCode ?? 0); the mock saw \(seen.map { "\($0.request.method) \($0.request.path)" })"
            }
        } catch {
            observed = Observed.describe(error)
        }
        session.invalidateAndCancel()
        await endpoint.stop()
        if let disagreement = Observed.check(row.area, row.name, row.transport, saw: observed) {
            Issue.record(Comment(rawValue: disagreement))
        }
    }
}

/// A task-local value bound around XCTest's `invokeTest()` (as `MockServerTestCase` binds
/// the test's interception): does it reach the async `setUp`, test method and `tearDown`?
enum InvokeTestProbe {
    @TaskLocal static var value: String?
    static let bound = "bound in invokeTest()"
}

final class ObservedTaskLocalTests: XCTestCase {
    override func invokeTest() {
        InvokeTestProbe.$value.withValue(InvokeTestProbe.bound) { super.invokeTest() }
    }

    private func observe(_ part: String) {
        let observed = InvokeTestProbe.value == InvokeTestProbe.bound ? "reached" : "absent"
        if let disagreement = Observed.check("xctest", "task-local bound in invokeTest()", part, saw: observed) {
            XCTFail(disagreement)
        }
    }

    override func setUp() async throws {
        try await super.setUp()
        observe("async setUp()")
    }

    override func tearDown() async throws {
        observe("async tearDown()")
        try await super.tearDown()
    }

    func testATaskLocalBoundInInvokeTestReachesTheAsyncTestMethod() async throws {
        observe("async test method")
    }
}

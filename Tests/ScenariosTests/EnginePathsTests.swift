import Foundation
import MockFixtures
import Testing
@testable import Scenarios

/// `MockEngine.respond(to:)` and `plan(for:upstream:)` (the chaos proxy's path) take the
/// same steps — the network profile, the scenario's decision, the answer, `finish`, the
/// profile's shaping — written twice: the proxy's upstream is asynchronous, and the
/// synchronous path keeps one plan in place rather than passing it step to step (#24).
/// With the simulators as the upstream, both must give the same plan for each kind of
/// request below, the journal id aside.
@Suite struct EnginePathsTests {
    static let scenarios = [
        Scenario(name: "mixed", defaults: .init(throttle: .bytesPerSecond(50_000, chunkSize: 512)), rules: [
            Rule("stub", .get("/categories"), always: .status(503, json: ["error": true], headers: ["Retry-After": "2"])),
            Rule("slow", .get("/menu"), always: Outcome.simulator.delayed(.fixed(0.25))),
            Rule("reset", .get("/images/1.png"), always: Outcome(fault: .connectionReset)),
            Rule("shape", .get("/api/products"), always: Outcome.simulator.transformed(.emptyBody)),
        ]),
    ]

    static func engine() throws -> MockEngine {
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory, extraScenarios: scenarios))
        engine.network.set(.threeG, session: "slow-phone")
        return engine
    }

    static let requests: [(String, MockRequest)] = [
        ("a simulator answer", makeRequest("GET", "/menu")),
        ("a 404", makeRequest("GET", "/nowhere")),
        ("a bad network profile", makeRequest("GET", "/menu", headers: ["X-Mock-Network": "Carrier Pigeon"])),
        ("a network profile", makeRequest("GET", "/menu", headers: ["X-Mock-Network": "3G"])),
        ("an unknown scenario", makeRequest("GET", "/menu", headers: ["X-Mock-Scenario": "no-such-scenario"])),
        ("a stub", makeRequest("GET", "/categories", headers: ["X-Mock-Scenario": "mixed"])),
        ("a delay", makeRequest("GET", "/menu", headers: ["X-Mock-Scenario": "mixed"])),
        ("a fault", makeRequest("GET", "/images/1.png", headers: ["X-Mock-Scenario": "mixed"])),
        ("a transform", makeRequest("GET", "/api/products?page_no=1&items_per_page=2", headers: ["X-Mock-Scenario": "mixed"])),
        ("no rule, the defaults' throttle", makeRequest("GET", "/api/products/1", headers: ["X-Mock-Scenario": "mixed"])),
        ("a HEAD under a transform", makeRequest("HEAD", "/api/products?page_no=1&items_per_page=2", headers: ["X-Mock-Scenario": "mixed"])),
        ("a route's own 404 under a scenario with rules", makeRequest("GET", "/api/products/999999", headers: ["X-Mock-Scenario": "mixed"])),
        ("no route under a scenario with rules", makeRequest("GET", "/nowhere", headers: ["X-Mock-Scenario": "mixed"])),
        ("a session's network profile", makeRequest("GET", "/menu", headers: ["X-Mock-Session": "slow-phone"])),
    ]

    @Test(arguments: 0..<requests.count)
    func bothPathsGiveTheSamePlan(index: Int) async throws {
        let (what, request) = Self.requests[index]
        let direct = try Self.engine(), proxied = try Self.engine()
        let responded = direct.respond(to: request)
        let router = proxied.router
        let planned = await proxied.plan(for: request) { router.respond(to: $0) }
        #expect(responded.status == planned.status, "\(what)")
        #expect(responded.headers.fields.map { "\($0.name): \($0.value)" } == planned.headers.fields.map { "\($0.name): \($0.value)" }, "\(what)")
        #expect(responded.body == planned.body, "\(what)")
        #expect(responded.answeredBy == planned.answeredBy, "\(what)")
        #expect(responded.scenarioStep == planned.scenarioStep, "\(what)")
        #expect(responded.fault == planned.fault, "\(what)")
        #expect(responded.delay == planned.delay, "\(what)")
        #expect(responded.pacing == planned.pacing, "\(what)")
        #expect(responded.network?.name == planned.network?.name, "\(what)")
        #expect(responded.journalID != nil && planned.journalID == nil, "\(what): only respond(to:) journals")
    }

    /// The cases above reach every branch they are meant to: without this, a request that
    /// silently fell through to the plain simulator answer would compare equal too.
    @Test func theCasesAreWhatTheyClaim() throws {
        let engine = try Self.engine()
        let plans = Self.requests.map { engine.respond(to: $0.1) }
        #expect(plans[0].status == 200 && plans[0].answeredBy == "restaurant.menu")
        #expect(plans[1].status == 404)
        #expect(plans[2].status == 400 && plans[2].answeredBy == "network-profile")
        #expect(plans[3].network?.name == "3G" && plans[3].delay > 0)
        #expect(plans[4].status == 400)
        #expect(plans[5].status == 503 && plans[5].scenarioStep == "mixed/stub#1")
        #expect(plans[6].delay == 0.25 && plans[6].pacing != nil)
        #expect(plans[7].fault == .connectionReset)
        #expect(plans[8].body.isEmpty && plans[8].scenarioStep == "mixed/shape#1")
        #expect(plans[9].scenarioStep == nil && plans[9].pacing != nil && plans[9].status == 200)
        #expect(plans[10].scenarioStep == "mixed/shape#2" && !plans[10].body.isEmpty, "a HEAD's body is not transformed")
        #expect(plans[11].status == 404 && plans[11].answeredBy != nil)
        #expect(JSONValue(parsing: plans[11].body)?["nearestRules"] == nil, "a route's own 404 names no rules")
        #expect(plans[12].status == 404 && plans[12].answeredBy == nil)
        #expect(JSONValue(parsing: plans[12].body)?["nearestRules"] != nil, "an unanswered request names the nearest rules")
        #expect(plans[13].network?.name == "3G" && plans[13].delay > 0)
    }
}

import Foundation
import Testing
@testable import MockCore

@Suite struct LatencyTests {
    @Test func fixedIsExact() {
        var random = SeededRandom(seed: 1)
        #expect(Latency.fixed(0.25).sample(&random) == 0.25)
        #expect(Latency.fixed(-1).sample(&random) == 0)
    }

    @Test func uniformStaysInRangeAndIsReproducible() {
        var a = SeededRandom(seed: 9), b = SeededRandom(seed: 9)
        let samples = (0..<1000).map { _ in Latency.uniform(min: 0.1, max: 0.3).sample(&a) }
        #expect(samples.allSatisfy { (0.1...0.3).contains($0) })
        #expect(samples == (0..<1000).map { _ in Latency.uniform(min: 0.1, max: 0.3).sample(&b) })
        let mean = samples.reduce(0, +) / Double(samples.count)
        #expect(abs(mean - 0.2) < 0.01)
    }

    @Test func lognormalHasTheConfiguredMedianAndALongTail() {
        var random = SeededRandom(seed: 42)
        let samples = (0..<20_000).map { _ in Latency.lognormal(median: 0.2, sigma: 0.5).sample(&random) }.sorted()
        let median = samples[samples.count / 2]
        #expect(abs(median - 0.2) < 0.2 * 0.03, "median \(median)")
        // P99 of a lognormal is median · e^(2.326 σ) ≈ 0.2 · 3.20 = 0.64 s.
        let p99 = samples[samples.count * 99 / 100]
        #expect(abs(p99 - 0.64) < 0.05, "p99 \(p99)")
        #expect(samples.allSatisfy { $0 > 0 })
    }

    @Test func throttleSchedules() {
        let rate = Throttle.bytesPerSecond(1000, chunkSize: 100).schedule(bodySize: 5000, timeScale: 1)
        #expect(rate.chunkSize == 100)
        #expect(abs(rate.interval - 0.1) < 1e-9)
        let dribble = Throttle.dribble(duration: 2, chunks: 10).schedule(bodySize: 95, timeScale: 0.5)
        #expect(dribble.chunkSize == 10)
        #expect(abs(dribble.interval - 0.1) < 1e-9)
    }
}

@Suite struct ScenarioRuntimeTests {
    func runtime(_ rules: [Rule], seed: UInt64 = 1, session: String = "s") -> ScenarioRuntime {
        ScenarioRuntime(scenario: Scenario(name: "t", rules: rules), seed: seed, session: session)
    }

    func statuses(_ runtime: inout ScenarioRuntime, _ request: MockRequest, count: Int) -> [Int?] {
        (0..<count).map { _ in
            guard let decision = runtime.decide(request) else { return nil }
            if case .stub(let status, _, _) = decision.outcome.source { return status }
            return 200
        }
    }

    @Test func sequenceFailFailSucceedThenRepeatsTheLast() {
        var r = runtime([Rule("order", .post("/order"), .sequence([.status(500), .status(503), .simulator], afterLast: .repeatLast))])
        #expect(statuses(&r, makeRequest("POST", "/order"), count: 5) == [500, 503, 200, 200, 200])
        #expect(r.decide(makeRequest("GET", "/menu")) == nil)
    }

    @Test func cycleStartsOver() {
        var r = runtime([Rule("c", .get("/menu"), .sequence([.status(500), .status(502), .status(503)], afterLast: .cycle))])
        #expect(statuses(&r, makeRequest("GET", "/menu"), count: 7) == [500, 502, 503, 500, 502, 503, 500])
    }

    @Test func passThroughFallsToLaterRulesAndTheSimulator() {
        var r = runtime([
            Rule("first-two", .get("/menu"), .sequence([.status(500), .status(501)], afterLast: .passThrough)),
            Rule("then", .get("/menu"), .sequence([.status(418)], afterLast: .passThrough)),
        ])
        #expect(statuses(&r, makeRequest("GET", "/menu"), count: 5) == [500, 501, 418, nil, nil])
    }

    @Test func stepsAreCountedPerRule() {
        var r = runtime([Rule("menu", .get("/menu"), always: .status(503))])
        #expect(r.decide(makeRequest("GET", "/menu"))?.step == 1)
        #expect(r.decide(makeRequest("GET", "/menu"))?.step == 2)
        #expect(r.decide(makeRequest("GET", "/menu"))?.ruleName == "menu")
    }

    @Test func stateMachineTransitions() {
        var r = runtime([
            Rule("login-first", .get("/menu"), always: .status(401), state: StateRequirement(machine: "auth", is: "Started")),
            Rule("log-in", .post("/order"), always: .simulator, state: StateRequirement(machine: "auth", becomes: "logged-in")),
            Rule("menu-ok", .get("/menu"), always: .status(200), state: StateRequirement(machine: "auth", is: "logged-in", becomes: "used")),
            Rule("menu-gone", .get("/menu"), always: .status(410), state: StateRequirement(machine: "auth", is: "used")),
        ])
        #expect(r.state(of: "auth") == "Started")
        #expect(statuses(&r, makeRequest("GET", "/menu"), count: 2) == [401, 401])
        _ = r.decide(makeRequest("POST", "/order"))
        #expect(r.state(of: "auth") == "logged-in")
        #expect(statuses(&r, makeRequest("GET", "/menu"), count: 3) == [200, 410, 410])
        #expect(r.state(of: "auth") == "used")
        #expect(r.state(of: "other") == "Started")
    }

    static let flaky = Rule("flaky", RequestPattern(path: "/**"), .random([WeightedOutcome(20, .status(503)), WeightedOutcome(80, .simulator)]))

    @Test func seededProbabilityIsReproducibleAndHasTheRightShare() {
        var a = runtime([Self.flaky], seed: 7), b = runtime([Self.flaky], seed: 7), c = runtime([Self.flaky], seed: 8)
        let first = statuses(&a, makeRequest("GET", "/menu"), count: 10_000)
        #expect(first == statuses(&b, makeRequest("GET", "/menu"), count: 10_000))
        #expect(first != statuses(&c, makeRequest("GET", "/menu"), count: 10_000))
        let share = Double(first.filter { $0 == 503 }.count) / 10_000
        #expect(abs(share - 0.2) < 0.015, "share \(share)")
    }

    @Test func eachRouteKeepsItsSequenceWhateverOtherRoutesDo() {
        let perRoute = [Rule("menu", .get("/menu"), .random([WeightedOutcome(1, .status(503)), WeightedOutcome(1, .simulator)])),
                        Rule("cats", .get("/categories"), .random([WeightedOutcome(1, .status(503)), WeightedOutcome(1, .simulator)]))]
        var alone = runtime(perRoute, seed: 3)
        let menuAlone = statuses(&alone, makeRequest("GET", "/menu"), count: 50)
        var mixed = runtime(perRoute, seed: 3)
        var menuMixed: [Int?] = []
        for index in 0..<50 {
            if index % 3 == 0 { _ = mixed.decide(makeRequest("GET", "/categories")) }
            menuMixed += statuses(&mixed, makeRequest("GET", "/menu"), count: 1)
        }
        #expect(menuAlone == menuMixed)
    }

    /// One rule for every path (the shipped `flaky`): each route still has its own
    /// sequence, whatever other routes' traffic does (#12: it used to be one stream per rule).
    @Test func oneCatchAllRuleKeepsASequencePerRoute() {
        var alone = runtime([Self.flaky], seed: 20220104)
        let categoriesAlone = statuses(&alone, makeRequest("GET", "/categories"), count: 60)
        var mixed = runtime([Self.flaky], seed: 20220104)
        var categoriesMixed: [Int?] = []
        for index in 0..<60 {
            for _ in 0..<(index % 4) { _ = mixed.decide(makeRequest("GET", "/menu")) }
            categoriesMixed += statuses(&mixed, makeRequest("GET", "/categories"), count: 1)
        }
        #expect(categoriesAlone == categoriesMixed)
        #expect(categoriesAlone.contains(503) && categoriesAlone.contains(200), "the sequence must mix outcomes to mean anything")
    }

    /// Latency draws are per route too.
    @Test func latencyDrawsArePerRoute() {
        let slow = Rule("slow", RequestPattern(path: "/**"), always: Outcome(.simulator, latency: .uniform(min: 0, max: 1)))
        var alone = runtime([slow], seed: 5), mixed = runtime([slow], seed: 5)
        let menu = makeRequest("GET", "/menu"), other = makeRequest("GET", "/categories")
        let delaysAlone = (0..<20).map { _ in alone.decideWithDelay(menu, defaultLatency: nil).delay }
        let delaysMixed = (0..<20).map { _ -> Double in
            _ = mixed.decideWithDelay(other, defaultLatency: nil)
            return mixed.decideWithDelay(menu, defaultLatency: nil).delay
        }
        #expect(delaysAlone == delaysMixed)
    }

    /// A client walking endless distinct paths cannot grow the generator table without bound.
    @Test func generatorsAreBounded() {
        var r = runtime([Self.flaky], seed: 1)
        for index in 0..<(ScenarioRuntime.maxStreams + 500) { _ = r.decide(makeRequest("GET", "/images/\(index).png")) }
        #expect(r.saved.generators.count <= ScenarioRuntime.maxStreams + 1)
        // Past the bound the draws are still reproducible.
        var again = runtime([Self.flaky], seed: 1)
        for index in 0..<(ScenarioRuntime.maxStreams + 500) { _ = again.decide(makeRequest("GET", "/images/\(index).png")) }
        #expect(statuses(&r, makeRequest("GET", "/images/x.png"), count: 30) == statuses(&again, makeRequest("GET", "/images/x.png"), count: 30))
    }

    @Test func sessionsHaveTheirOwnStreams() {
        var a = runtime([Self.flaky], seed: 7, session: "a"), b = runtime([Self.flaky], seed: 7, session: "b")
        #expect(statuses(&a, makeRequest("GET", "/menu"), count: 200) != statuses(&b, makeRequest("GET", "/menu"), count: 200))
    }
}

@Suite struct ScenarioEngineTests {
    static let inner = ClosureResponder { request in
        .json(200, #"{"items":[{"id":1,"name":"a"},{"id":2,"name":"b"}]}"#.data(using: .utf8)!).answered(by: "test.\(request.path)")
    }

    func engine(_ scenarios: [Scenario], current: String, timeScale: Double = 1) -> MockEngine {
        // Every scenario here is in the library: the engine cannot refuse `current`.
        try! MockEngine(scenarios: scenarios, current: current, source: Self.inner, timeScale: timeScale)
    }

    @Test func defaultsApplyToEveryRouteAndTheTimeScaleShrinksThem() {
        let slow = Scenario(name: "slow", defaults: .init(latency: .fixed(0.4), throttle: .bytesPerSecond(1000, chunkSize: 100)))
        let plan = engine([slow], current: "slow", timeScale: 0.01).respond(to: makeRequest("GET", "/menu"))
        #expect(abs(plan.delay - 0.004) < 1e-9)
        #expect(plan.pacing == BodyPacing(chunkSize: 100, interval: 0.001))
        #expect(plan.answeredBy == "test./menu")
        #expect(plan.scenarioStep == nil)
    }

    /// `ScenarioEngine.finish` leaves `Outcome.simulator` out when no rule answered,
    /// taking it to change nothing but what the scenario's defaults say.
    @Test func theSimulatorsOutcomeChangesNothingOfItsOwn() throws {
        let outcome = Outcome.simulator
        #expect(outcome.source == .simulator)
        #expect(outcome.transform == nil && outcome.latency == nil && outcome.throttle == nil && outcome.fault == nil)
        #expect(!outcome.conditional)
        // A plan's fault from before is cleared, as the outcome's nil fault did.
        let engine = engine([Scenario(name: "plain")], current: "plain")
        let decided = try engine.scenarios.decide(makeRequest("GET", "/menu")).get()
        var plan = ResponsePlan(status: 200)
        plan.fault = .hang
        let finished = engine.scenarios.finish(decided, base: plan, request: makeRequest("GET", "/menu"))
        #expect(finished.fault == nil)
        #expect(finished.pacing == nil && finished.scenarioStep == nil && finished.delay == 0)
    }

    @Test func ruleLatencyOverridesDefaults() {
        let scenario = Scenario(name: "s", defaults: .init(latency: .fixed(1)),
                                rules: [Rule("fast-menu", .get("/menu"), always: Outcome.simulator.delayed(.fixed(0.05)))])
        let engine = engine([scenario], current: "s")
        let menuDelay: TimeInterval = engine.respond(to: makeRequest("GET", "/menu")).delay
        let categoriesDelay: TimeInterval = engine.respond(to: makeRequest("GET", "/categories")).delay
        #expect(menuDelay == 0.05)
        #expect(categoriesDelay == 1.0)
    }

    @Test func sessionsAreIsolatedAndHeadersChooseScenarios() {
        let failing = Scenario(name: "fail-twice", rules: [Rule("r", .get("/menu"), .sequence([.status(500), .status(500), .simulator], afterLast: .repeatLast))])
        let engine = engine([failing], current: "fail-twice")
        func status(_ session: String?, scenario: String? = nil) -> Int {
            var headers: HeaderFields = [:]
            if let session { headers.add(ScenarioEngine.sessionHeader, session) }
            if let scenario { headers.add(ScenarioEngine.scenarioHeader, scenario) }
            return engine.respond(to: makeRequest("GET", "/menu", headers: headers)).status
        }
        #expect([status("a"), status("a"), status("a")] == [500, 500, 200] as [Int])
        #expect([status("b"), status("b"), status("b")] == [500, 500, 200] as [Int])
        #expect(status(nil) == 500)
        #expect(status("a", scenario: "happy-path") == 200)
        #expect(status("c", scenario: "nope") == 400)
        engine.scenarios.reset(session: "a")
        #expect(status("a") == 500)
        #expect(status("b") == 200)
    }

    @Test func switchingStartsTheScenarioAfresh() throws {
        let failing = Scenario(name: "once", rules: [Rule("r", .get("/menu"), .sequence([.status(500), .simulator], afterLast: .repeatLast))])
        let engine = engine([failing], current: "happy-path")
        #expect(engine.respond(to: makeRequest("GET", "/menu")).status == 200)
        try engine.scenarios.select("once")
        #expect(engine.scenarios.currentScenario == "once")
        #expect(engine.respond(to: makeRequest("GET", "/menu")).status == 500)
        #expect(engine.respond(to: makeRequest("GET", "/menu")).status == 200)
        try engine.scenarios.select("once")
        #expect(engine.respond(to: makeRequest("GET", "/menu")).status == 500)
        #expect(throws: ScenarioSelectionError.self) { try engine.scenarios.select("missing") }
    }

    /// A session's runtime is found again without a lookup while the same session and
    /// scenario keep coming; each way of starting over must still start over.
    @Test func resettingASessionOrEverySessionStartsItsScenarioAfresh() {
        let once = Scenario(name: "once", rules: [Rule("r", .get("/menu"), .sequence([.status(500), .simulator], afterLast: .repeatLast))])
        let engine = engine([once], current: "once")
        func status(_ session: String?) -> Int {
            var headers: HeaderFields = [:]
            if let session { headers.add(ScenarioEngine.sessionHeader, session) }
            return engine.respond(to: makeRequest("GET", "/menu", headers: headers)).status
        }
        #expect([status("a"), status("a")] == [500, 200] as [Int])
        engine.scenarios.reset(session: "a")
        #expect([status("a"), status("a")] == [500, 200] as [Int])
        #expect([status(nil), status(nil)] == [500, 200] as [Int])
        engine.scenarios.reset()
        let fresh = engine.scenarios.snapshot()
        #expect([status(nil), status("a")] == [500, 500] as [Int])
        engine.scenarios.restore(fresh)
        #expect([status("a"), status(nil)] == [500, 500] as [Int])
        engine.scenarios.restore(engine.scenarios.snapshot())
        #expect([status("a"), status(nil)] == [200, 200] as [Int])
    }

    /// At most `maxSessions` sessions are kept; the oldest goes first, and a session that
    /// comes back after it was dropped starts its scenario afresh.
    @Test func sessionsAreBoundedAndADroppedOneStartsAfresh() {
        let failing = Scenario(name: "fail-twice", rules: [Rule("r", .get("/menu"), .sequence([.status(500), .status(500), .simulator], afterLast: .repeatLast))])
        let engine = engine([failing], current: "fail-twice")
        func status(_ session: String) -> Int {
            engine.respond(to: makeRequest("GET", "/menu", headers: [ScenarioEngine.sessionHeader: session])).status
        }
        #expect([status("first"), status("first")] == [500, 500] as [Int])
        for index in 0..<ScenarioEngine.maxSessions { _ = status("s\(index)") }
        let sessions = engine.scenarios.snapshot().sessions
        #expect(sessions.count == ScenarioEngine.maxSessions)
        #expect(sessions["first"] == nil)
        #expect(sessions["s\(ScenarioEngine.maxSessions - 1)"] != nil)
        #expect([status("first"), status("first"), status("first")] == [500, 500, 200] as [Int])
        #expect(engine.scenarios.snapshot().sessions.count == ScenarioEngine.maxSessions)
    }

    @Test func stubsFaultsAndTransforms() {
        let scenario = Scenario(name: "s", rules: [
            Rule("limited", .get("/limited"), always: .status(429, json: ["error": true], headers: ["Retry-After": "3"])),
            Rule("reset", .get("/reset"), always: .fault(.connectionReset)),
            Rule("bad-json", .get("/bad"), always: Outcome.simulator.transformed(.malformedJSON)),
            Rule("shape", .get("/shape"), always: Outcome.simulator.transformed(.wrongShape)),
            Rule("big", .get("/big"), always: Outcome.simulator.transformed(.repeatItems(3))),
            Rule("empty", .get("/empty"), always: Outcome.simulator.transformed(.emptyBody)),
        ])
        let engine = engine([scenario], current: "s")
        let limited = engine.respond(to: makeRequest("GET", "/limited"))
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"] == "3")
        #expect(limited.headers["Content-Type"]?.hasPrefix("application/json") == true)
        #expect(limited.scenarioStep == "s/limited#1")
        #expect(engine.respond(to: makeRequest("GET", "/reset")).fault == .connectionReset)
        #expect(JSONValue(parsing: engine.respond(to: makeRequest("GET", "/bad")).body) == nil)
        let shaped = JSONValue(parsing: engine.respond(to: makeRequest("GET", "/shape")).body)
        #expect(shaped?["data"]?["items"] != nil)
        #expect(shaped?["items"] == nil)
        let big = JSONValue(parsing: engine.respond(to: makeRequest("GET", "/big")).body)?["items"]?.arrayValue ?? []
        #expect(big.compactMap { $0["id"]?.intValue } == [1, 2, 100_001, 100_002, 200_001, 200_002])
        #expect(engine.respond(to: makeRequest("GET", "/empty")).body.isEmpty)
    }
}

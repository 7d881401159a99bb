import Foundation

/// The scenario stages of the pipeline (`Pipeline`): picks a rule's outcome for a request
/// (`decide`), answers a stub (`stubPlan`), and layers the outcome's transform, delay,
/// throttle and fault over whatever answered (`finish`). Scenario state is kept per session
/// (the `X-Mock-Session` header), so parallel tests sharing one server do not see each
/// other's counters and states.
public final class ScenarioEngine: Sendable {
    /// The request header naming the session whose scenario, counters and states a request uses.
    public static let sessionHeader = "X-Mock-Session"
    /// The request header naming a scenario to play for this request alone; an unknown name gets a 400.
    public static let scenarioHeader = "X-Mock-Scenario"
    /// The session of requests without `X-Mock-Session`.
    public static let defaultSession = "default"
    /// Sessions kept at most; the least recently created is dropped past it.
    public static let maxSessions = 1024

    /// The scenarios that can be selected, by name.
    public var library: ScenarioLibrary { state.withLock { $0.library } }
    /// Every delay and throttle interval is multiplied by this (1: real time).
    public let timeScale: Double
    let seed: UInt64

    struct State {
        var library: ScenarioLibrary
        var current: String
        /// Changed by `touch` and `restore` only, which forget `lastSession`.
        var sessions: [String: Session] = [:]
        var sessionOrder: [String] = []
        /// The session the latest request named.
        var lastSession: (name: String, session: Session)?
        /// New TLS connections under the current server-wide scenario (its `tls.times`).
        var handshakes = 0
    }

    private let state: Locked<State>
    /// Where templated stubs draw their random values: one sequence per engine from its
    /// seed, started again on `reset()`.
    let templateRandom: Locked<SeededRandom>

    /// Makes the scenario layer over `library`, playing `current` server-wide; `seed` seeds
    /// every rule's generator, and `timeScale` multiplies every delay.
    public init(library: ScenarioLibrary, current: String, seed: UInt64, timeScale: Double) {
        self.seed = seed
        self.timeScale = timeScale
        self.state = Locked(State(library: library, current: current))
        self.templateRandom = Locked(SeededRandom(seed: seed, stream: "templates"))
    }

    /// The name of the server-wide scenario (sessions may play others).
    public var currentScenario: String { state.withLock { $0.current } }

    /// Switches the server-wide scenario (or one session's) and starts it afresh.
    public func select(_ name: String, session: String? = nil) throws(ScenarioSelectionError) {
        let library = library
        guard library[name] != nil else { throw ScenarioSelectionError(name: name, known: library.names) }
        state.withLock { state in
            if let session {
                Self.touch(&state, session)
                state.sessions[session]?.scenario = name
                state.sessions[session]?.dropRuntime(named: name)
            } else {
                state.current = name
                state.handshakes = 0
                for session in state.sessions.values { session.dropRuntime(named: name) }
            }
        }
    }

    /// Serves a new set of scenarios (after a reload); states start afresh. A current
    /// scenario that is gone falls back to `happy-path`.
    public func replaceLibrary(_ library: ScenarioLibrary) {
        state.withLock { state in
            state.library = library
            if library[state.current] == nil { state.current = Scenario.happyPath.name }
            state.handshakes = 0
            for session in state.sessions.values { session.dropRuntimes() }
        }
    }

    /// Forgets counters, states and generators: of one session, or of every session.
    public func reset(session: String? = nil) {
        state.withLock { state in
            if let session {
                state.sessions[session]?.dropRuntimes()
            } else {
                state.handshakes = 0
                for session in state.sessions.values { session.dropRuntimes() }
            }
        }
        if session == nil { templateRandom.withLock { $0 = SeededRandom(seed: seed, stream: "templates") } }
    }

    /// The TLS fault for a new HTTPS connection, if the server-wide scenario has one for
    /// it (sessions are request headers, which come after the handshake). Each call counts
    /// as one connection for `times`, and `probability` draws from a seeded stream.
    public func handshake() -> TLSHandshake? {
        let seed = seed
        return state.withLock { state -> TLSHandshake? in
            guard let scenario = state.library[state.current], let tls = scenario.tls else { return nil }
            let index = state.handshakes
            state.handshakes += 1
            if let times = tls.times, index >= times { return nil }
            if tls.probability < 1 {
                var random = SeededRandom(seed: (scenario.seed ?? seed) &+ UInt64(index), stream: "tls:" + scenario.name)
                guard random.nextUnit() < tls.probability else { return nil }
            }
            return tls
        }
    }

    /// Scenario state that survives a restart: the current scenario, each session's
    /// scenario and the counters, machines and generators of every scenario it used.
    public struct Snapshot: Codable, Sendable, Equatable {
        /// One session's saved state.
        public struct Session: Codable, Sendable, Equatable {
            /// The scenario the session selected (nil: the server-wide one).
            public var scenario: String?
            /// Each scenario's counters, machines and generators in this session, by scenario name.
            public var runtimes: [String: ScenarioRuntime.Saved]
        }
        /// The server-wide scenario's name.
        public var current: String
        /// Every session's state, by session name.
        public var sessions: [String: Session]
    }

    /// Everything the scenario layer changed: the scenario in effect and every session's
    /// counters, machines and generators; `restore(_:)` puts it back.
    public func snapshot() -> Snapshot {
        state.withLock { state in
            Snapshot(current: state.current, sessions: state.sessions.mapValues {
                Snapshot.Session(scenario: $0.scenario, runtimes: $0.runtimes.mapValues(\.value.saved))
            })
        }
    }

    /// Restores a snapshot; scenarios no longer in the library are dropped.
    public func restore(_ snapshot: Snapshot) {
        let seed = seed
        state.withLock { state in
            let library = state.library
            state.current = library[snapshot.current] == nil ? Scenario.happyPath.name : snapshot.current
            state.sessions = [:]
            state.sessionOrder = []
            state.lastSession = nil
            for (name, saved) in snapshot.sessions.sorted(by: { $0.key < $1.key }) {
                let session = Session(scenario: saved.scenario.flatMap { library[$0] == nil ? nil : $0 })
                for (scenarioName, runtime) in saved.runtimes {
                    guard let scenario = library[scenarioName] else { continue }
                    session.setRuntime(ScenarioRuntime(scenario: scenario, seed: seed, session: name, saved: runtime), named: scenarioName)
                }
                state.sessions[name] = session
                state.sessionOrder.append(name)
            }
        }
    }

    /// A session's current scenario with how often each rule answered (by index) and
    /// its state machines: what the dashboard shows.
    public func activity(session: String = ScenarioEngine.defaultSession) -> (scenario: Scenario, hits: [Int: Int], states: [String: String]) {
        state.withLock { state in
            let name = state.sessions[session]?.scenario ?? state.current
            let runtime = state.sessions[session]?.runtimes[name]?.value
            return (state.library[name] ?? .happyPath, runtime?.hits ?? [:], runtime?.machines ?? [:])
        }
    }

    /// The state machines of a session's current scenario, for the admin API.
    public func machineStates(session: String = ScenarioEngine.defaultSession) -> (scenario: String, states: [String: String]) {
        state.withLock { state in
            let name = state.sessions[session]?.scenario ?? state.current
            return (name, state.sessions[session]?.runtimes[name]?.value.machines ?? [:])
        }
    }

    /// What the scenario decided for one request, before any answer exists: the rule and
    /// step, the outcome and the sampled delay. A proxy fetches the answer from a real
    /// server in between (`asksInner`) and then calls `finish`.
    public struct Decided: Sendable {
        /// The scenario and the rule's decision are held by reference: this value goes
        /// from the decision to the answer's `finish` on every request, and a scenario and
        /// an outcome held inline would be copied at each step.
        let shared: SharedScenario
        let sharedDecision: SharedDecision?
        /// The scenario played for the request.
        public var scenario: Scenario { shared.scenario }
        /// The rule's decision, nil when no rule matched (the simulator answers).
        public var decision: ScenarioRuntime.Decision? { sharedDecision?.decision }
        /// Seconds, before time-scaling.
        public let delay: Double
        /// What the request gets: the rule's outcome, or the simulator's answer when no rule matched.
        public var outcome: Outcome { sharedDecision?.decision.outcome ?? .simulator }
        /// The answer comes from what the scenario layers over (the simulators, or a proxy's
        /// upstream); otherwise `stubPlan` gives it.
        public var asksInner: Bool {
            guard let sharedDecision else { return true }   // no rule: the simulator's answer
            if case .simulator = sharedDecision.decision.outcome.source { return true }
            return false
        }

        init(_ chosen: ScenarioRuntime.Chosen) {
            shared = chosen.scenario
            sharedDecision = chosen.decision
            delay = chosen.delay
        }
    }

    /// A request the scenario layer answers itself (an unknown scenario asked for).
    public struct Rejected: Error {
        /// Behind a reference: a plan inline made every `Result` of `decide` as large as a
        /// plan, copied so on every request.
        private let box: PlanBox
        /// The answer to send instead: a 400 JSON error naming the known scenarios.
        public var plan: ResponsePlan { box.plan }
        /// Makes a rejection answered with `plan`.
        public init(plan: ResponsePlan) { box = PlanBox(plan) }

        private final class PlanBox: Sendable {
            let plan: ResponsePlan
            init(_ plan: ResponsePlan) { self.plan = plan }
        }
    }

    /// Picks the rule and outcome for `request` and advances counters and states; an
    /// unknown scenario named in `X-Mock-Scenario` is rejected with a 400.
    public func decide(_ request: MockRequest) -> Result<Decided, Rejected> {
        decide(request, session: request.headers[Self.sessionHeader], requested: request.headers[Self.scenarioHeader])
    }

    /// The same, with the request's `X-Mock-Session` and `X-Mock-Scenario` already read.
    func decide(_ request: MockRequest, session: String?, requested: String?) -> Result<Decided, Rejected> {
        let sessionName = session ?? Self.defaultSession
        let seed = seed
        let chosen = state.withLock { state -> Chosen? in
            if let requested, state.library[requested] == nil { return nil }
            // The session of the latest request, else one lookup (each hashes the name); the
            // runtime is changed in place: a copy read out and stored back copied its
            // generators, and a closure over `request` copied the request.
            let session: Session
            if let last = state.lastSession, last.name == sessionName {
                session = last.session
            } else {
                session = Self.touch(&state, sessionName)   // found, or added (which may drop the oldest session)
                state.lastSession = (sessionName, session)
            }
            return Self.choose(session, request, requested: requested, current: state.current,
                               library: state.library, seed: seed, sessionName: sessionName)
        }
        guard let chosen else {
            return .failure(Rejected(plan: .error(400, ScenarioSelectionError(name: requested ?? "", known: library.names).description)))
        }
        return .success(Decided(chosen))
    }

    typealias Chosen = ScenarioRuntime.Chosen

    /// The outcome for `request` in `session`: the requested scenario, else the session's,
    /// else the server's. A runtime plays the library's scenario of its name (a switch or a
    /// reload drops the runtimes it concerns): one lookup, not two, once it exists.
    private static func choose(_ session: Session, _ request: MockRequest, requested: String?, current: String,
                               library: ScenarioLibrary, seed: UInt64, sessionName: String) -> Chosen {
        let name = requested ?? session.scenario ?? current
        let runtime = session.runtime(named: name)
            ?? session.setRuntime(ScenarioRuntime(scenario: library[name] ?? .happyPath, seed: seed, session: sessionName), named: name)
        return runtime.value.choose(request)
    }

    /// The answer of an outcome that does not ask the source: its stub, event stream or
    /// WebSocket, templated from `request`. An outcome that asks the source
    /// (`Decided.asksInner`) has none: it gets a 500 that says so.
    public func stubPlan(_ decided: Decided, _ request: MockRequest) -> ResponsePlan {
        let outcome = decided.outcome
        switch outcome.source {
        case .stub(let status, let headers, let body):
            return stub(status: status, headers: headers, body: body, outcome: outcome, request, decided: decided)
        case .eventStream(let status, let headers, let stream):
            return eventStream(status: status, headers: headers, stream, request, decided: decided)
        case .webSocket(let headers, let script):
            return webSocket(headers: headers, script, request, decided: decided)
        case .simulator:
            return .error(500, "The scenario's outcome asks the API for its answer; it has no stub")
        }
    }

    /// Layers the decided outcome over `base`: its transform, fault, delay and throttle.
    public func finish(_ decided: Decided, base: consuming ResponsePlan, request: MockRequest) -> ResponsePlan {
        var plan = consume base
        finish(decided, &plan, request: request)
        return plan
    }

    /// `finish(_:base:request:)` on a plan the caller keeps changing: a plan taken and
    /// returned is copied on the way out.
    func finish(_ decided: Decided, _ plan: inout ResponsePlan, request: MockRequest) {
        // Read through the references, not `decided.scenario` (a copy of the scenario).
        let scenario = decided.shared
        guard let decision = decided.sharedDecision else {
            // No rule answered: the outcome is `Outcome.simulator`, which has no transform,
            // fault or throttle of its own, so only the delay and the scenario's default
            // throttle apply. Its copy per request is left out.
            if plan.status == 404, plan.answeredBy == nil, !scenario.scenario.rules.isEmpty {
                let unnamed = plan
                plan = Self.namingNearestRules(unnamed, scenario.scenario, request)
            }
            plan.fault = nil
            plan.delay = decided.delay * timeScale
            if let throttle = scenario.scenario.defaults.throttle { pace(&plan, throttle) }
            return
        }
        let outcome = decision.decision.outcome
        if let transform = outcome.transform, plan.status != 304, request.method != "HEAD" {
            plan.body = transform.apply(plan.body)
        }
        plan.scenarioStep = "\(scenario.scenario.name)/\(decision.decision.ruleName)#\(decision.decision.step)"
        plan.fault = outcome.fault
        if let streamFault = outcome.streamFault, plan.isStream { plan.streamFault = streamFault.scaled(by: timeScale) }
        plan.delay = decided.delay * timeScale
        if let throttle = outcome.throttle ?? scenario.scenario.defaults.throttle { pace(&plan, throttle) }
    }

    private func pace(_ plan: inout ResponsePlan, _ throttle: Throttle) {
        let schedule = throttle.schedule(bodySize: plan.body.count, timeScale: timeScale)
        plan.pacing = BodyPacing(chunkSize: schedule.chunkSize, interval: schedule.interval)
    }

    /// A 404 no rule and no route answered also names the scenario's nearest rules
    /// (a replayed recording has rules and no routes: this says what was recorded).
    static func namingNearestRules(_ plan: ResponsePlan, _ scenario: Scenario, _ request: MockRequest) -> ResponsePlan {
        guard case .object(var body)? = JSONValue(parsing: plan.body) else { return plan }
        let nearest = scenario.rules
            .map { (rule: $0, distance: $0.request.distance(to: request)) }
            .sorted { $0.distance < $1.distance }
            .prefix(3)
            .map { item -> JSONValue in
                ["rule": .string("\(scenario.name)/\(item.rule.name)"), "request": .string(item.rule.request.description)]
            }
        body["nearestRules"] = .array(Array(nearest))
        var named = plan
        named.body = JSONCoding.encode(JSONValue.object(body))
        return named
    }

    /// The session called `name`, added if new (which may drop the oldest session).
    @discardableResult
    private static func touch(_ state: inout State, _ name: String) -> Session {
        if let known = state.sessions[name] { return known }
        let session = Session()
        state.sessions[name] = session
        state.sessionOrder.append(name)
        if state.sessionOrder.count > maxSessions {
            let oldest = state.sessionOrder.removeFirst()
            state.sessions[oldest] = nil
            state.lastSession = nil
        }
        return session
    }
}

/// A scenario name that is not in the library.
public struct ScenarioSelectionError: Error, CustomStringConvertible {
    /// The name asked for.
    public let name: String
    /// The names in the library, sorted.
    public let known: [String]
    /// `Unknown scenario "NAME"; known scenarios: …`.
    public var description: String {
        "Unknown scenario \"\(name)\"; known scenarios: \(known.joined(separator: ", "))"
    }
}

/// Scenarios by name.
public struct ScenarioLibrary: Sendable {
    /// The scenarios by name, `happy-path` always among them.
    public private(set) var scenarios: [String: Scenario]

    /// Makes a library of the built-in `happy-path` scenario and `scenarios`; a later scenario replaces an earlier one of the same name.
    public init(_ scenarios: [Scenario] = []) {
        self.scenarios = [Scenario.happyPath.name: .happyPath]
        for scenario in scenarios { self.scenarios[scenario.name] = scenario }
    }

    /// The scenario called `name`, nil when there is none.
    public subscript(name: String) -> Scenario? { scenarios[name] }
    /// Every scenario name, sorted.
    public var names: [String] { scenarios.keys.sorted() }

    /// Adds `scenario`, replacing any of the same name.
    public mutating func add(_ scenario: Scenario) { scenarios[scenario.name] = scenario }
}

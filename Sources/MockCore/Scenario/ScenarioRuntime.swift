/// The mutable side of one scenario in one session: how often each rule answered, the
/// state machines, and the seeded generators. A plain value, tested without sockets.
public struct ScenarioRuntime: Sendable {
    /// The scenario played, behind one reference made with the runtime: every request's
    /// decision carries it on to the answer's `finish`, and a `Scenario` value (names,
    /// rules, defaults) copied at each step would cost more than the decision itself.
    let shared: SharedScenario
    /// The scenario this runtime plays.
    public var scenario: Scenario { shared.scenario }
    let seed: UInt64
    let session: String
    var hits: [Int: Int] = [:]
    var machines: [String: String] = [:]
    var generators: [String: SeededRandom] = [:]

    /// The mutable part, for snapshots.
    public struct Saved: Codable, Sendable, Equatable {
        /// How many times each rule answered, by rule index.
        public var hits: [Int: Int]
        /// Each state machine's state, by machine name.
        public var machines: [String: String]
        /// Each random stream's generator, by stream name, in its current position.
        public var generators: [String: SeededRandom]
    }

    /// The counters, machine states and generators, to save in a snapshot.
    public var saved: Saved { Saved(hits: hits, machines: machines, generators: generators) }

    /// Makes a runtime that resumes from `saved`.
    public init(scenario: Scenario, seed: UInt64, session: String, saved: Saved) {
        self.init(scenario: scenario, seed: seed, session: session)
        hits = saved.hits
        machines = saved.machines
        generators = saved.generators
    }

    /// Makes a runtime at the scenario's start: no rule has answered, every machine is `Started`.
    /// The scenario's own seed, when it has one, replaces `seed`.
    public init(scenario: Scenario, seed: UInt64, session: String) {
        self.shared = SharedScenario(scenario)
        self.seed = scenario.seed ?? seed
        self.session = session
    }

    /// The state of a machine (`Started` until a rule moves it).
    public func state(of machine: String = "default") -> String {
        machines[machine] ?? StateRequirement.started
    }

    /// What a rule decided for one request.
    public struct Decision: Sendable, Equatable {
        /// The index of the rule in the scenario's `rules`.
        public var ruleIndex: Int
        /// The rule's name.
        public var ruleName: String
        /// 1-based: the Nth time this rule answered.
        public var step: Int
        /// The outcome the rule gave for this step.
        public var outcome: Outcome
    }

    /// The first rule that matches `request` in the current states, and its outcome;
    /// nil when no rule applies (the simulator answers). Advances counters and states.
    public mutating func decide(_ request: MockRequest) -> Decision? {
        for (index, rule) in shared.scenario.rules.enumerated() {
            if let required = rule.state?.required, state(of: rule.state?.machine ?? "default") != required { continue }
            guard rule.request.matches(request) else { continue }
            let count = hits[index, default: 0]
            let outcome: Outcome
            switch rule.responses {
            case .sequence(let outcomes, let end):
                guard !outcomes.isEmpty else { continue }
                if count < outcomes.count {
                    outcome = outcomes[count]
                } else {
                    switch end {
                    case .repeatLast: outcome = outcomes[outcomes.count - 1]
                    case .cycle: outcome = outcomes[count % outcomes.count]
                    case .passThrough: continue
                    }
                }
            case .random(let weighted):
                guard !weighted.isEmpty else { continue }
                outcome = pick(weighted, stream: Self.stream("rule:\(rule.name)", request))
            }
            hits[index] = count + 1
            if let transition = rule.state, let next = transition.becomes {
                machines[transition.machine] = next
            }
            return Decision(ruleIndex: index, ruleName: rule.name, step: count + 1, outcome: outcome)
        }
        return nil
    }

    /// What `choose` gives: the scenario played, the rule's decision and the delay. The
    /// decision is boxed here: a `Decision` inline (its outcome) made this value large,
    /// copied out of the scenario lock and into `ScenarioEngine.Decided` per request.
    struct Chosen {
        let scenario: SharedScenario
        let decision: SharedDecision?
        let delay: Double
    }

    /// `decideWithDelay` with this runtime's own scenario and its default latency, called
    /// in place: reading `scenario` from a runtime kept in a dictionary copied the whole
    /// runtime out.
    mutating func choose(_ request: MockRequest) -> Chosen {
        let decided = decideWithDelay(request, defaultLatency: shared.scenario.defaults.latency)
        return Chosen(scenario: shared, decision: decided.decision.map(SharedDecision.init), delay: decided.delay)
    }

    /// `decide`, then the delay: the outcome's latency, else `defaultLatency`, sampled from
    /// the generator of the rule (or of the route when no rule answered).
    public mutating func decideWithDelay(_ request: MockRequest, defaultLatency: Latency?) -> (decision: Decision?, delay: Double) {
        let decision = decide(request)
        guard let latency = decision?.outcome.latency ?? defaultLatency else { return (decision, 0) }
        // A fixed delay draws nothing: no stream name to build, no generator to look up.
        if let constant = latency.constant { return (decision, constant) }
        let stream = Self.stream(decision.map { "latency|rule:\($0.ruleName)" } ?? "latency", request)
        return (decision, sample(latency, stream: stream))
    }

    /// A delay for `latency` from the generator of `stream` (a rule or a route).
    public mutating func sample(_ latency: Latency, stream: String) -> Double {
        withGenerator(stream) { latency.sample(&$0) }
    }

    mutating func pick(_ weighted: [WeightedOutcome], stream: String) -> Outcome {
        withGenerator(stream) { generator in
            Self.pick(weighted, &generator)
        }
    }

    private static func pick(_ weighted: [WeightedOutcome], _ generator: inout SeededRandom) -> Outcome {
        let total = weighted.reduce(0) { $0 + max(0, $1.weight) }
        var point = generator.nextUnit() * total
        for choice in weighted where choice.weight > 0 {
            if point < choice.weight { return choice.outcome }
            point -= choice.weight
        }
        return weighted[weighted.count - 1].outcome
    }

    /// The stream of a draw: what draws (a rule's outcome, a latency) and for which route
    /// (method and path), so one route's sequence does not depend on other routes' traffic.
    static func stream(_ kind: String, _ request: MockRequest) -> String {
        "\(kind)|\(request.method) \(request.path)"
    }

    /// The most streams one runtime keeps a generator for. Past it (a client walking
    /// through endless distinct paths), new streams share one overflow generator: memory
    /// stays bounded, and the same traffic still gives the same outcomes.
    public static let maxStreams = 4_096
    static let overflowStream = "overflow"

    /// Each stream has its own generator, seeded from the scenario seed, the session and
    /// the stream's name: outcomes per route do not depend on how requests to other
    /// routes interleave. The generator is changed in place (not copied out and stored back).
    private mutating func withGenerator<T>(_ stream: String, _ body: (inout SeededRandom) -> T) -> T {
        let (seed, session) = (self.seed, self.session)
        let key = generators[stream] != nil || generators.count < Self.maxStreams ? stream : Self.overflowStream
        return body(&generators[key, default: SeededRandom(seed: seed, stream: "\(session)|\(key)")])
    }
}

/// A scenario held by reference (see `ScenarioRuntime.shared`).
final class SharedScenario: Sendable {
    let scenario: Scenario
    init(_ scenario: Scenario) { self.scenario = scenario }
}

/// A rule's decision held by reference (see `ScenarioEngine.Decided`).
final class SharedDecision: Sendable {
    let decision: ScenarioRuntime.Decision
    init(_ decision: ScenarioRuntime.Decision) { self.decision = decision }
}

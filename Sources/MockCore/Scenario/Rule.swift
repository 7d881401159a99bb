/// A scenario rule: when a request matches (and the state machine is in the required
/// state), answer with the next outcome of the rule.
public struct Rule: Sendable, Hashable {
    /// The rule's name, as the journal and `answeredBy` show it.
    public var name: String
    /// What a request must match for the rule to apply.
    public var request: RequestPattern
    /// Which outcome each matching request gets.
    public var responses: ResponseSelection
    /// The state-machine state the rule needs and the one it moves to (nil: it applies in any state).
    public var state: StateRequirement?

    /// Makes a rule called `name` answering requests that match `request` with `responses`,
    /// while `state` (if any) holds.
    public init(_ name: String, _ request: RequestPattern, _ responses: ResponseSelection, state: StateRequirement? = nil) {
        self.name = name
        self.request = request
        self.responses = responses
        self.state = state
    }

    /// A rule that always answers the same way.
    public init(_ name: String, _ request: RequestPattern, always outcome: Outcome, state: StateRequirement? = nil) {
        self.init(name, request, .sequence([outcome], afterLast: .repeatLast), state: state)
    }
}

/// Which outcome a matching request gets.
public enum ResponseSelection: Sendable, Hashable {
    /// The Nth matching request gets the Nth outcome; after the last, `afterLast` decides.
    case sequence([Outcome], afterLast: SequenceEnd)
    /// Each request draws an outcome by weight from the rule's seeded generator.
    case random([WeightedOutcome])

    /// Every outcome the rule can give, in order.
    public var outcomes: [Outcome] {
        switch self {
        case .sequence(let outcomes, _): return outcomes
        case .random(let weighted): return weighted.map(\.outcome)
        }
    }
}

/// What a sequence does after its last outcome.
public enum SequenceEnd: String, Sendable, Hashable, CaseIterable {
    /// Keep answering with the last outcome.
    case repeatLast
    /// Start over from the first.
    case cycle
    /// Stop matching: later requests fall through to the next rules and the simulator.
    case passThrough
}

/// An outcome and its weight in a random choice.
public struct WeightedOutcome: Sendable, Hashable {
    /// Relative weight: an outcome is drawn with probability weight / sum of weights.
    public var weight: Double
    /// The outcome drawn.
    public var outcome: Outcome
    /// Makes an outcome drawn with relative weight `weight`.
    public init(_ weight: Double, _ outcome: Outcome) {
        self.weight = weight
        self.outcome = outcome
    }
}

/// WireMock-style scenario states: a rule applies only while its state machine is in
/// `is`, and moves it to `becomes` when it answers. Machines start in `Started`.
public struct StateRequirement: Sendable, Hashable {
    /// The state every machine starts in.
    public static let started = "Started"
    /// The state machine's name; rules naming the same machine share its state within a session.
    public var machine: String
    /// The state the machine must be in for the rule to apply (nil: any).
    public var required: String?
    /// The state the machine moves to when the rule answers (nil: it stays).
    public var becomes: String?

    /// Makes a requirement on `machine`: in state `required` (nil: any), moving to `becomes` (nil: stay).
    public init(machine: String = "default", is required: String? = nil, becomes: String? = nil) {
        self.machine = machine
        self.required = required
        self.becomes = becomes
    }
}

/// A named set of rules layered over the API simulators, with defaults for every route.
public struct Scenario: Sendable, Hashable {
    /// The scenario-file format version this server reads (the file's `version` key).
    public static let formatVersion = 1

    /// The name clients select the scenario by (`X-Mock-Scenario`, `/__admin/scenario`).
    public var name: String
    /// What the scenario plays, for people (`/__admin/scenarios` lists it).
    public var description: String
    /// Overrides the server's seed for this scenario's random choices.
    public var seed: UInt64?
    /// Applied to every response that a rule does not give its own latency/throttle.
    public var defaults: Defaults
    /// The rules, tried in order: the first that matches a request answers it; none: the API answers.
    public var rules: [Rule]
    /// What happens to the TLS handshake of new HTTPS connections (nil: a good one).
    public var tls: TLSHandshake?

    /// Shaping applied to every answer a rule does not shape itself.
    public struct Defaults: Sendable, Hashable {
        /// The wait before the first byte of every answer (nil: none).
        public var latency: Latency?
        /// How every body is paced (nil: not throttled).
        public var throttle: Throttle?
        /// Makes defaults; nil leaves that shaping off.
        public init(latency: Latency? = nil, throttle: Throttle? = nil) {
            self.latency = latency
            self.throttle = throttle
        }
    }

    /// Makes a scenario called `name`; with no rules it plays the APIs as they are.
    public init(name: String, description: String = "", seed: UInt64? = nil, defaults: Defaults = Defaults(), rules: [Rule] = [],
                tls: TLSHandshake? = nil) {
        self.tls = tls
        self.name = name
        self.description = description
        self.seed = seed
        self.defaults = defaults
        self.rules = rules
    }

    /// No rules: the simulators answer everything.
    public static let happyPath = Scenario(name: "happy-path", description: "No rules: the simulators answer as the real servers do.")
}

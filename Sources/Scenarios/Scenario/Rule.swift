/// A scenario rule: when a request matches (and the state machine is in the required
/// state), answer with the next outcome of the rule.
public struct Rule: Sendable, Hashable {
    public var name: String
    public var request: RequestPattern
    public var responses: ResponseSelection
    public var state: StateRequirement?

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

    public var outcomes: [Outcome] {
        switch self {
        case .sequence(let outcomes, _): return outcomes
        case .random(let weighted): return weighted.map(\.outcome)
        }
    }
}

public enum SequenceEnd: String, Sendable, Hashable, CaseIterable {
    /// Keep answering with the last outcome.
    case repeatLast
    /// Start over from the first.
    case cycle
    /// Stop matching: later requests fall through to the next rules and the simulator.
    case passThrough
}

public struct WeightedOutcome: Sendable, Hashable {
    public var weight: Double
    public var outcome: Outcome
    public init(_ weight: Double, _ outcome: Outcome) {
        self.weight = weight
        self.outcome = outcome
    }
}

/// WireMock-style scenario states: a rule applies only while its state machine is in
/// `is`, and moves it to `becomes` when it answers. Machines start in `Started`.
public struct StateRequirement: Sendable, Hashable {
    public static let started = "Started"
    public var machine: String
    public var required: String?
    public var becomes: String?

    public init(machine: String = "default", is required: String? = nil, becomes: String? = nil) {
        self.machine = machine
        self.required = required
        self.becomes = becomes
    }
}

/// A named set of rules layered over the API simulators, with defaults for every route.
public struct Scenario: Sendable, Hashable {
    public static let formatVersion = 1

    public var name: String
    public var description: String
    /// Overrides the server's seed for this scenario's random choices.
    public var seed: UInt64?
    /// Applied to every response that a rule does not give its own latency/throttle.
    public var defaults: Defaults
    public var rules: [Rule]
    /// What happens to the TLS handshake of new HTTPS connections (nil: a good one).
    public var tls: TLSHandshake?

    public struct Defaults: Sendable, Hashable {
        public var latency: Latency?
        public var throttle: Throttle?
        public init(latency: Latency? = nil, throttle: Throttle? = nil) {
            self.latency = latency
            self.throttle = throttle
        }
    }

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

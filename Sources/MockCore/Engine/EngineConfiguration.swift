import Foundation

/// How to build a `MockEngine`: where its fixtures and scenarios are, which APIs and variants
/// it serves, the journal's limits, its seed and its clock. A value: one configuration can
/// build many engines, each with its own state.
public struct EngineConfiguration: Sendable {
    /// A folder holding a fixture folder per API (named as the API: `restaurant/`,
    /// `openmarket/`) and `scenarios/`.
    public var fixturesDirectory: URL
    /// The APIs this engine may serve: each one whose fixtures are found is served.
    public var apis: [any MockAPI]
    /// The variant to play of each API, by API name; an API not named plays its first.
    public var variants: [String: String]
    /// More host names for the APIs, host to API name (`--map HOST=API`): requests to such
    /// a host are answered by that API alone, as for the API's own `hosts`.
    public var hostMap: [String: String]
    /// The most entries the journal keeps (at least 1); past it the oldest are evicted.
    public var journalCapacity: Int
    /// Request bodies up to this many bytes are kept whole in the journal; larger ones as size and digest.
    public var journalBodyLimit: Int
    /// The most bytes the journal's kept requests may hold; the oldest go first past it.
    public var journalByteBudget: Int
    /// Response bodies up to this size are kept in the journal too (0, the default: none).
    /// The contract harness keeps them to show what the server answered.
    public var journalResponseBodyLimit: Int
    /// Records kept per stream in its journal entry's transcript; later ones are counted.
    public var streamTranscriptCapacity: Int
    /// `Cache-Control` sent with images and other static assets.
    public var imageCacheControl: String
    /// Seeds everything random the engine and its APIs do, so a run can be repeated exactly.
    public var seed: UInt64
    /// The clock for delays, throttles, timestamps and durations; a test passes a clock it advances.
    public var timeSource: any TimeSource
    /// Folders of scenario files; by default `scenarios/` inside the fixtures folder.
    public var scenarioDirectories: [URL]
    /// Scenarios built in Swift (or loaded by the caller), added to those from files.
    public var extraScenarios: [Scenario]
    /// The scenario in effect at start.
    public var scenario: String
    /// Every delay and throttle interval is multiplied by this (e.g. 0.01 in CI).
    public var timeScale: Double
    /// Validate requests and answer 400 with a reason where the real server was lenient
    /// (accepted, skipped, or failed with a 5xx): for clients that must not rely on the
    /// real server's leniency. Off by default: each variant answers as its server did.
    public var strict: Bool
    /// Already-read fixtures and scenario files; nil reads them from the folders.
    public var preloaded: Preloaded?
    /// The network profile every request goes through unless its session or its
    /// `X-Mock-Network` header names another (nil: none).
    public var network: NetworkProfile?

    /// Makes a configuration serving `apis`; every other setting but the fixtures folder has
    /// a default suited to a local run (journal: 10,000 entries, 64 KiB bodies, 64 MiB in
    /// all; the happy-path scenario; the system clock). `scenarioDirectories` nil means
    /// `scenarios/` inside `fixturesDirectory`. The `BuiltInMockAPIs` module adds the same
    /// initializer without `apis`, serving the built-in APIs.
    public init(
        fixturesDirectory: URL,
        apis: [any MockAPI],
        variants: [String: String] = [:],
        hostMap: [String: String] = [:],
        journalCapacity: Int = 10_000,
        journalBodyLimit: Int = 64 * 1024,
        journalByteBudget: Int = 64 * 1024 * 1024,
        journalResponseBodyLimit: Int = 0,
        streamTranscriptCapacity: Int = StreamTranscript.defaultCapacity,
        imageCacheControl: String = "public, max-age=3600",
        seed: UInt64 = 0,
        timeSource: any TimeSource = SystemTimeSource(),
        scenarioDirectories: [URL]? = nil,
        extraScenarios: [Scenario] = [],
        scenario: String = Scenario.happyPath.name,
        timeScale: Double = 1,
        strict: Bool = false,
        preloaded: Preloaded? = nil,
        network: NetworkProfile? = nil
    ) {
        self.fixturesDirectory = fixturesDirectory
        self.apis = apis
        self.variants = variants
        self.hostMap = hostMap
        self.journalCapacity = journalCapacity
        self.journalBodyLimit = journalBodyLimit
        self.journalByteBudget = journalByteBudget
        self.journalResponseBodyLimit = journalResponseBodyLimit
        self.streamTranscriptCapacity = streamTranscriptCapacity
        self.imageCacheControl = imageCacheControl
        self.seed = seed
        self.timeSource = timeSource
        self.scenarioDirectories = scenarioDirectories ?? [fixturesDirectory.appendingPathComponent("scenarios")]
        self.extraScenarios = extraScenarios
        self.scenario = scenario
        self.timeScale = timeScale
        self.strict = strict
        self.preloaded = preloaded
        self.network = network
    }
}

extension EngineConfiguration {
    /// The variant `api` plays: the one chosen for it when it is one of the API's, else its first.
    public func variant(of api: any MockAPI) -> String {
        if let chosen = variants[api.name], let known = api.variant(named: chosen) { return known }
        return api.variants.first ?? "default"
    }

    /// The API named `name` among `apis`.
    public func api(named name: String) -> (any MockAPI)? {
        apis.first { $0.name == name }
    }
}

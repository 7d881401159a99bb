import Foundation

/// Everything one mock server instance knows: the API simulators built from fixtures,
/// the journal and the clock. State belongs to an engine, never to a global, so every
/// server (and every test) starts from its own fixtures.
public final class MockEngine: Responder {
    /// The settings the engine was built with.
    public let configuration: EngineConfiguration
    /// Every exchange the engine answered or refused, bounded by the configuration's journal limits.
    public let journal: Journal
    /// The scenario layer over the simulators: current scenario, sessions, switching.
    public let scenarios: ScenarioEngine
    /// When the engine was made (for uptime).
    public let startedAt: Date
    /// Live events: every journal entry and every state change.
    public let events = EventHub()
    /// Network-condition profiles: the server's, each session's, and per request.
    public let network: NetworkConditions
    /// The WebSockets open on this engine's server, which the admin API and tests drive.
    public let sockets = LiveSockets()
    let live: LiveAPIs
    /// Answers in place of the APIs' routes when set (`init(configuration:source:)`).
    let source: (any Responder)?
    /// `source != nil`, read on every request: testing the optional existential itself
    /// copies it.
    private let hasSource: Bool
    /// The fixtures now served; `shared` while they are the `Preloaded` the configuration
    /// gave (its `StartingStates` then serve this engine's resets too).
    private let preloaded: Locked<(value: Preloaded, shared: Bool)>

    /// The engine's clock (the configuration's `timeSource`).
    public var timeSource: any TimeSource { configuration.timeSource }

    /// Loads the fixtures named by `configuration` and assembles the APIs. `source`, when
    /// given, answers what the scenario leaves to the APIs in their place (a recording's
    /// replay, a responder of one's own); the APIs still serve their documents and state.
    public init(configuration: EngineConfiguration, source: (any Responder)? = nil) throws(FixtureError) {
        self.configuration = configuration
        self.source = source
        hasSource = source != nil
        let preloaded: Preloaded
        if let given = configuration.preloaded { preloaded = given } else { preloaded = try Preloaded.load(configuration) }
        let shared = configuration.preloaded != nil
        self.preloaded = Locked((preloaded, shared))
        let library = try Self.library(preloaded, configuration)
        live = LiveAPIs(APIs(preloaded.fixtures, configuration, starts: shared ? preloaded.starts : nil))
        scenarios = ScenarioEngine(library: library, current: configuration.scenario,
                                   seed: configuration.seed, timeScale: configuration.timeScale)
        journal = Journal(capacity: configuration.journalCapacity, bodyLimit: configuration.journalBodyLimit,
                          byteBudget: configuration.journalByteBudget, responseBodyLimit: configuration.journalResponseBodyLimit,
                          transcriptCapacity: configuration.streamTranscriptCapacity)
        startedAt = configuration.timeSource.now()
        network = NetworkConditions(server: configuration.network, seed: configuration.seed)
    }

    static func library(_ preloaded: Preloaded, _ configuration: EngineConfiguration) throws(FixtureError) -> ScenarioLibrary {
        var library = ScenarioLibrary(preloaded.scenarios)
        configuration.extraScenarios.forEach { library.add($0) }
        guard library[configuration.scenario] != nil else {
            throw FixtureError(file: "--scenario", jsonPath: "", reason: ScenarioSelectionError(name: configuration.scenario, known: library.names).description)
        }
        return library
    }

    /// The answer to `request` through this engine's pipeline with no control plane (no
    /// admin API): what a server's `Pipeline` answers for anything but `/__admin`. Journaled.
    public func respond(to request: MockRequest) -> ResponsePlan {
        Pipeline(engine: self).answer(request).plan
    }

    /// The source's answer to a request the scenario leaves to it: `source` when the engine
    /// was given one, else the route of the APIs that matches.
    func sourceAnswer(_ request: MockRequest) -> ResponsePlan {
        if hasSource, let source { return source.respond(to: request) }
        var name: String?
        var plan = live.respond(to: request, answeredBy: &name)
        if let name { plan.answeredBy = name }
        return plan
    }

    /// How `request` breaks the OpenAPI document of its API as this engine plays it (nil
    /// when it is no API route). The answer is not changed by it: only the journal says.
    public func violations(of request: MockRequest) -> [RequestViolation]? {
        live.conformance.violations(of: request)
    }

    /// The `X-Mock-*` fields a request is prepared by, each the first of its name (as
    /// `HeaderFields`' subscript reads it), found in one pass: four lookups by name would
    /// be four walks over the fields.
    struct ControlFields {
        var network: String?
        var session: String?
        var scenario: String?

        init(_ headers: HeaderFields) {
            for field in headers {
                let name = field.name
                // Each name is 14 or 15 bytes and starts with "X-Mock-".
                guard name.utf8.count >= 14, name.utf8.first == UInt8(ascii: "X") || name.utf8.first == UInt8(ascii: "x") else { continue }
                if network == nil, name.caseInsensitiveEquals(NetworkConditions.header) {
                    network = field.value
                } else if session == nil, name.caseInsensitiveEquals(ScenarioEngine.sessionHeader) {
                    session = field.value
                } else if scenario == nil, name.caseInsensitiveEquals(ScenarioEngine.scenarioHeader) {
                    scenario = field.value
                }
            }
        }
    }

    /// The APIs now serving, by name, in the configuration's order.
    public var apis: [String] { live.current.served.map(\.api.name) }

    /// The served API named `name`: its definition, the variant it plays and its answers.
    public func servedAPI(named name: String) -> (api: any MockAPI, variant: String, served: any ServedAPI)? {
        live.current.served(named: name).map { ($0.api, $0.variant, $0.instance) }
    }

    /// The first served API's answers of type `T` (a simulator), if any.
    public func served<T: ServedAPI>(_ type: T.Type) -> T? {
        live.current.served.lazy.compactMap { $0.instance as? T }.first
    }

    /// The routes of every API, without scenarios or journal: the simulators' own answers.
    public var router: Router { live.current.router }

    /// Back to the fixtures: every API starts again (creates, edits and deletes are
    /// gone) and fresh scenario states in every session.
    public func resetState() {
        let (current, shared) = preloaded.current
        live.replace(APIs(current.fixtures, configuration, starts: shared ? current.starts : nil))
        scenarios.reset()
        events.publish("state", ["change": "reset"])
    }

    /// Reads the fixture and scenario files again and serves them; on a problem the old
    /// ones keep serving and the problems are thrown.
    public func reloadFixtures() throws(FixtureError) {
        var reload = configuration
        reload.preloaded = nil
        let fresh = try Preloaded.load(reload)
        let library = try Self.library(fresh, configuration)
        preloaded.withLock { $0 = (fresh, false) }
        live.replace(APIs(fresh.fixtures, configuration, starts: nil))
        scenarios.replaceLibrary(library)
        events.publish("state", ["change": "reloaded", "scenarios": .array(library.names.map(JSONValue.string))])
    }

    /// Everything mutable, as JSON: each API's state (the Open Market catalogue with
    /// uploaded images), and scenario states. Restore it with `restore(snapshot:)` (or
    /// `--state FILE`).
    public func snapshot() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let value = EngineSnapshot(version: EngineSnapshot.currentVersion, apis: live.current.served, scenarios: scenarios.snapshot())
        return (try? encoder.encode(value)) ?? Data()
    }

    /// Restores a snapshot; a file that is not one is reported with its JSON path, and
    /// nothing is changed unless all of it reads.
    public func restore(snapshot data: Data, source: String = "snapshot") throws(FixtureError) {
        // Only JSON our parser accepted reaches `JSONDecoder` (`FixtureFile.decode` says why).
        try FixtureFile.checkSyntax(data, file: source)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        decoder.userInfo[EngineSnapshot.servedKey] = EngineSnapshot.ServedBox(live.current.served)
        let value: EngineSnapshot
        do {
            value = try decoder.decode(EngineSnapshot.self, from: data)
        } catch let error as DecodingError {
            throw FixtureError([FixtureFile.problem(error, file: source)])
        } catch {
            throw FixtureError(file: source, reason: "not a snapshot")
        }
        guard value.version == EngineSnapshot.currentVersion else {
            throw FixtureError(file: source, jsonPath: "$.version", reason: "snapshot version \(value.version); this server reads \(EngineSnapshot.currentVersion)")
        }
        value.restores.forEach { $0() }
        scenarios.restore(value.scenarios)
        events.publish("state", ["change": "restored"])
    }
}

/// Fixtures and scenario files read once and shared by many engines (each engine still
/// builds its own mutable state from them): a contract suite loads them once for all
/// its checks' servers.
public struct Preloaded: Sendable {
    /// Each served API's fixtures, by API name.
    public let fixtures: FixtureSet
    /// The scenarios read from the scenario folders.
    public let scenarios: [Scenario]
    /// What the engines sharing these fixtures each start from, made once (`StartingStates`).
    let starts = StartingStates()

    /// Wraps fixtures and scenarios already read, to share between engines.
    public init(fixtures: FixtureSet, scenarios: [Scenario] = []) {
        self.fixtures = fixtures
        self.scenarios = scenarios
    }

    /// No API and no scenario files: every request is the caller's to answer (recording).
    public static let nothing = Preloaded(fixtures: FixtureSet())

    /// Reads the fixtures and scenario folders named by `configuration`.
    public static func load(_ configuration: EngineConfiguration) throws(FixtureError) -> Preloaded {
        let fixtures = try FixtureSet.load(from: configuration.fixturesDirectory, apis: configuration.apis)
        var scenarios: [Scenario] = []
        var problems: [FixtureProblem] = []
        for folder in configuration.scenarioDirectories where FileManager.default.fileExists(atPath: folder.path) {
            do { scenarios += try ScenarioFile.loadFolder(folder) } catch { problems += error.problems }
        }
        guard problems.isEmpty else { throw FixtureError(problems) }
        return Preloaded(fixtures: fixtures, scenarios: scenarios)
    }
}

/// Each API's fixtures found in one fixtures folder, by API name (an API whose fixtures
/// are absent is not served).
public struct FixtureSet: Sendable {
    private var byAPI: [String: any Sendable]

    /// An empty set: no API is served.
    public init() { byAPI = [:] }

    /// The fixtures of the API named `name`, of that API's `Fixtures` type.
    public subscript(name: String) -> (any Sendable)? {
        get { byAPI[name] }
        set { byAPI[name] = newValue }
    }

    /// The names of the APIs with fixtures here.
    public var apiNames: [String] { byAPI.keys.sorted() }

    /// Loads the fixtures of every API in `apis` found in `directory`; problems in all of
    /// them are reported together.
    public static func load(from directory: URL, apis: [any MockAPI]) throws(FixtureError) -> FixtureSet {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FixtureError(file: directory.path, reason: "fixtures folder not found")
        }
        var set = FixtureSet()
        var problems: [FixtureProblem] = []
        for api in apis {
            do {
                if let fixtures = try api.loadErased(from: directory) { set[api.name] = fixtures }
            } catch {
                problems += error.problems
            }
        }
        guard problems.isEmpty else { throw FixtureError(problems) }
        // A folder of scenarios alone (a recording, say) serves no API: its rules answer.
        let hasScenarios = FileManager.default.fileExists(atPath: directory.appendingPathComponent("scenarios").path)
        guard !set.byAPI.isEmpty || hasScenarios else {
            let folders = apis.map { "\($0.name)/" }
            let expected = folders.isEmpty ? "scenarios/" : folders.joined(separator: ", ") + " or scenarios/"
            throw FixtureError(file: directory.path, reason: "the folder holds no fixture set (expected one of \(expected) inside it)")
        }
        return set
    }
}

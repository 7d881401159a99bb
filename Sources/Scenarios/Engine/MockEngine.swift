import Foundation

/// Everything one mock server instance knows: the API simulators built from fixtures,
/// the journal and the clock. State belongs to an engine, never to a global, so every
/// server (and every test) starts from its own fixtures.
public final class MockEngine: Responder {
    public let configuration: EngineConfiguration
    public let journal: Journal
    public let restaurant: RestaurantSimulator?
    public let openMarket: OpenMarketSimulator?
    public let router: Router
    /// The scenario layer over the simulators: current scenario, sessions, switching.
    public let scenarios: ScenarioEngine
    private let pipeline: any Responder

    public var timeSource: any TimeSource { configuration.timeSource }

    /// Loads the fixtures named by `configuration` and assembles the APIs.
    public init(configuration: EngineConfiguration) throws(FixtureError) {
        self.configuration = configuration
        let preloaded: Preloaded
        if let given = configuration.preloaded { preloaded = given } else { preloaded = try Preloaded.load(configuration) }
        let set = preloaded.fixtures
        restaurant = set.restaurant.map {
            RestaurantSimulator(fixtures: $0, variant: configuration.restaurantVariant,
                                imageCacheControl: configuration.imageCacheControl)
        }
        openMarket = set.openMarket.map {
            OpenMarketSimulator(fixtures: $0, variant: configuration.openMarketVariant, seed: configuration.seed,
                                timeSource: configuration.timeSource, imageCacheControl: configuration.imageCacheControl)
        }
        router = Router(routes: (restaurant?.routes ?? []) + (openMarket?.routes ?? []))
        var library = ScenarioLibrary(preloaded.scenarios)
        configuration.extraScenarios.forEach { library.add($0) }
        guard library[configuration.scenario] != nil else {
            throw FixtureError(file: "--scenario", jsonPath: "", reason: ScenarioSelectionError(name: configuration.scenario, known: library.names).description)
        }
        scenarios = ScenarioEngine(inner: router, library: library, current: configuration.scenario,
                                   seed: configuration.seed, timeScale: configuration.timeScale)
        journal = Journal(capacity: configuration.journalCapacity, bodyLimit: configuration.journalBodyLimit)
        pipeline = JournalingResponder(scenarios, journal: journal)
    }

    public func respond(to request: MockRequest) -> ResponsePlan {
        pipeline.respond(to: request)
    }

    /// Journals a request the transport answered itself (too large, malformed), so no
    /// request is ever missing from the journal.
    public func recordRejected(_ request: MockRequest, plan: ResponsePlan) {
        journal.record(request, plan: plan)
    }

    /// The API names this engine serves, for logs and the info endpoint.
    public var apis: [String] {
        var names: [String] = []
        if restaurant != nil { names.append("restaurant") }
        if openMarket != nil { names.append("openmarket") }
        return names
    }
}

/// Fixtures and scenario files read once and shared by many engines (each engine still
/// builds its own mutable state from them): a contract suite loads them once for all
/// its checks' servers.
public struct Preloaded: Sendable {
    public let fixtures: FixtureSet
    public let scenarios: [Scenario]

    /// Reads the fixtures and scenario folders named by `configuration`.
    public static func load(_ configuration: EngineConfiguration) throws(FixtureError) -> Preloaded {
        let fixtures = try FixtureSet.load(from: configuration.fixturesDirectory)
        var scenarios: [Scenario] = []
        var problems: [FixtureProblem] = []
        for folder in configuration.scenarioDirectories where FileManager.default.fileExists(atPath: folder.path) {
            do { scenarios += try ScenarioFile.loadFolder(folder) } catch { problems += error.problems }
        }
        guard problems.isEmpty else { throw FixtureError(problems) }
        return Preloaded(fixtures: fixtures, scenarios: scenarios)
    }
}

public struct EngineConfiguration: Sendable {
    /// A folder with `restaurant/` and/or `openmarket/` fixture sets.
    public var fixturesDirectory: URL
    public var restaurantVariant: RestaurantVariant
    public var openMarketVariant: OpenMarketVariant
    public var journalCapacity: Int
    public var journalBodyLimit: Int
    public var imageCacheControl: String
    public var seed: UInt64
    public var timeSource: any TimeSource
    /// Folders of scenario files; by default `scenarios/` inside the fixtures folder.
    public var scenarioDirectories: [URL]
    /// Scenarios built in Swift (or loaded by the caller), added to those from files.
    public var extraScenarios: [Scenario]
    /// The scenario in effect at start.
    public var scenario: String
    /// Every delay and throttle interval is multiplied by this (e.g. 0.01 in CI).
    public var timeScale: Double
    /// Already-read fixtures and scenario files; nil reads them from the folders.
    public var preloaded: Preloaded?

    public init(
        fixturesDirectory: URL,
        restaurantVariant: RestaurantVariant = .original,
        openMarketVariant: OpenMarketVariant = .jan2022,
        journalCapacity: Int = 10_000,
        journalBodyLimit: Int = 64 * 1024,
        imageCacheControl: String = "public, max-age=3600",
        seed: UInt64 = 0,
        timeSource: any TimeSource = SystemTimeSource(),
        scenarioDirectories: [URL]? = nil,
        extraScenarios: [Scenario] = [],
        scenario: String = Scenario.happyPath.name,
        timeScale: Double = 1,
        preloaded: Preloaded? = nil
    ) {
        self.fixturesDirectory = fixturesDirectory
        self.restaurantVariant = restaurantVariant
        self.openMarketVariant = openMarketVariant
        self.journalCapacity = journalCapacity
        self.journalBodyLimit = journalBodyLimit
        self.imageCacheControl = imageCacheControl
        self.seed = seed
        self.timeSource = timeSource
        self.scenarioDirectories = scenarioDirectories ?? [fixturesDirectory.appendingPathComponent("scenarios")]
        self.extraScenarios = extraScenarios
        self.scenario = scenario
        self.timeScale = timeScale
        self.preloaded = preloaded
    }
}

/// The fixture sets found in one folder.
public struct FixtureSet: Sendable {
    public var restaurant: RestaurantFixtures?
    public var openMarket: OpenMarketFixtures?

    /// Loads every API's fixtures found in `directory`; problems in all of them are
    /// reported together.
    public static func load(from directory: URL) throws(FixtureError) -> FixtureSet {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FixtureError(file: directory.path, reason: "fixtures folder not found")
        }
        let restaurantDirectory = directory.appendingPathComponent("restaurant")
        let openMarketDirectory = directory.appendingPathComponent("openmarket")
        let hasRestaurant = FileManager.default.fileExists(atPath: restaurantDirectory.path)
        let hasOpenMarket = FileManager.default.fileExists(atPath: openMarketDirectory.path)
        guard hasRestaurant || hasOpenMarket else {
            throw FixtureError(file: directory.path, reason: "the folder holds no fixture set (expected restaurant/ or openmarket/ inside it)")
        }
        var set = FixtureSet()
        var problems: [FixtureProblem] = []
        if hasRestaurant {
            do { set.restaurant = try RestaurantFixtures.load(from: restaurantDirectory) } catch { problems += error.problems }
        }
        if hasOpenMarket {
            do { set.openMarket = try OpenMarketFixtures.load(from: openMarketDirectory) } catch { problems += error.problems }
        }
        guard problems.isEmpty else { throw FixtureError(problems) }
        return set
    }
}

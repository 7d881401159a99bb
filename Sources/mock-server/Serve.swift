import ArgumentParser
import Dispatch
import Foundation
import Logging
import MockServer
import MockServerCLI
import NIOCore
import NIOPosix
import Scenarios

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve both APIs from fixtures (the default command).",
        discussion: "Prints exactly one line, `Listening on http://HOST:PORT`, to standard output once the port is bound.")

    @Option(help: "The address to listen on.")
    var host: String = ServeSettings.defaults.host

    @Option(help: "The port to listen on; 0 picks a free port (the line printed at start says which).")
    var port: Int = ServeSettings.defaults.port

    @OptionGroup var fixtureOptions: FixtureOptions

    @Option(name: .customLong("log-level"), help: "Log detail on standard error: \(LogLevelOption.allCases.map(\.rawValue).joined(separator: ", ")).")
    var logLevel: LogLevelOption = ServeSettings.defaults.logLevel

    @Option(name: .customLong("max-body-size"), help: "The largest request body accepted, in bytes; larger ones get 413.")
    var maxBodySize: Int = ServeSettings.defaults.maxBodySize

    @Option(name: .customLong("journal-capacity"), help: "How many requests the journal keeps (the total count stays exact).")
    var journalCapacity: Int = ServeSettings.defaults.journalCapacity

    @Option(name: .customLong("journal-max-bytes"), help: "The most bytes the journal keeps (request bodies, headers, paths); the oldest entries go first past it.")
    var journalMaxBytes: Int = ServeSettings.defaults.journalMaxBytes

    @Option(help: ArgumentHelp("The scenario to start with: a name (the shipped ones are in Fixtures/scenarios/; a running server lists them at GET /__admin/scenarios) or a scenario file.", valueName: "name|file"))
    var scenario: String = ServeSettings.defaults.scenario

    @Option(name: .customLong("time-scale"), help: "Multiply every delay and throttle interval by this factor (e.g. 0.01 in CI).")
    var timeScale: Double = ServeSettings.defaults.timeScale

    @Option(help: "The seed for every random choice (latency, probabilistic outcomes, secrets).")
    var seed: UInt64 = ServeSettings.defaults.seed

    @Flag(help: "Reload fixtures and scenarios when their files change; a broken file is reported and the last good version keeps serving.")
    var watch = false

    @Option(help: "Event-loop threads; default: one per core of the machine.")
    var threads: Int?

    @Option(help: ArgumentHelp("Restore state (Open Market catalogue, uploads, scenario states) from this file at start if it exists, and save it there at a clean stop.", valueName: "file"))
    var state: String?

    func validate() throws {
        if let problem = settings.problem { throw ValidationError(problem) }
    }

    /// What was asked for, without the parser's property wrappers.
    var settings: ServeSettings {
        ServeSettings(host: host, port: port, fixtures: fixtureOptions.fixtures, variants: fixtureOptions.variant,
                      logLevel: logLevel, maxBodySize: maxBodySize, journalCapacity: journalCapacity,
                      journalMaxBytes: journalMaxBytes, scenario: scenario,
                      timeScale: timeScale, seed: seed, watch: watch, threads: threads, state: state)
    }

    func run() async throws {
        try await settings.run()
    }
}

/// The `serve` command's settings, as plain values: `Serve` builds them with
/// ArgumentParser, and `init?(quick:)` builds them directly for the common invocations.
struct ServeSettings: Equatable, Sendable {
    var host = "127.0.0.1"
    var port = 8080
    var fixtures: String?
    var variants: [String] = []
    var logLevel: LogLevelOption = .info
    var maxBodySize = 8 * 1024 * 1024
    var journalCapacity = 10_000
    var journalMaxBytes = 64 * 1024 * 1024
    var scenario = Scenario.happyPath.name
    var timeScale = 1.0
    var seed: UInt64 = 0
    var watch = false
    var threads: Int?
    var state: String?

    static let defaults = ServeSettings()

    /// What is wrong with these settings, in the words ArgumentParser prints; nil if nothing.
    var problem: String? {
        if !(0...65535).contains(port) { return "--port must be between 0 and 65535" }
        if maxBodySize <= 0 { return "--max-body-size must be positive" }
        if journalCapacity <= 0 { return "--journal-capacity must be positive" }
        if journalMaxBytes <= 0 { return "--journal-max-bytes must be positive" }
        if !(timeScale >= 0 && timeScale.isFinite) { return "--time-scale must be zero or more" }
        if let threads, !(1...256).contains(threads) { return "--threads must be between 1 and 256" }
        do { _ = try VariantSelection.parse(variants) } catch { return error.description }
        return nil
    }

    var fixturesDirectory: URL { FixtureOptions.directory(fixtures) }
    var scenarioDirectories: [URL] { FixtureOptions.scenarioDirectories(fixtures) }

    func run() async throws {
        let logger = logLevel.bootstrap()
        let variants = try VariantSelection.parse(variants)

        let engine: MockEngine
        do {
            let selection = try ScenarioOption.resolve(scenario)
            engine = try MockEngine(configuration: EngineConfiguration(
                fixturesDirectory: fixturesDirectory,
                restaurantVariant: variants.restaurant,
                openMarketVariant: variants.openMarket,
                journalCapacity: journalCapacity,
                journalByteBudget: journalMaxBytes,
                seed: seed,
                scenarioDirectories: scenarioDirectories,
                extraScenarios: selection.extra,
                scenario: selection.name,
                timeScale: timeScale))
        } catch {
            throw failForFixtures(error)
        }
        if let state, let saved = FileManager.default.contents(atPath: state) {
            do { try engine.restore(snapshot: saved, source: state) } catch { throw failForFixtures(error) }
            logger.info("state restored", metadata: ["file": "\(state)"])
        }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads ?? System.coreCount)
        let server = MockHTTPServer(
            engine: engine,
            configuration: ServerConfiguration(host: host, port: port, maxRequestBodySize: maxBodySize),
            group: group,
            logger: logger)
        try await listen(server)
        var watcher: FixtureWatcher?
        if watch {
            watcher = FixtureWatcher(engine: engine, folders: [fixturesDirectory] + scenarioDirectories, logger: logger)
            await watcher?.start()
        }

        let signal = await StopSignal.next()
        logger.info("stopping", metadata: ["signal": "\(signal)"])
        await watcher?.stop()
        await server.stop()
        try? await group.shutdownGracefully()
        if let state {
            do {
                try engine.snapshot().write(to: URL(fileURLWithPath: state), options: .atomic)
                logger.info("state saved", metadata: ["file": "\(state)"])
            } catch {
                FileHandle.standardError.write(Data("error: cannot save state to \(state): \(error.localizedDescription)\n".utf8))
                throw ExitCode(1)
            }
        }
    }
}

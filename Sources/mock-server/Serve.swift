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
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free port (the line printed at start says which).")
    var port = 8080

    @OptionGroup var fixtureOptions: FixtureOptions

    @Option(name: .customLong("log-level"), help: "Log detail on standard error: \(LogLevelOption.allCases.map(\.rawValue).joined(separator: ", ")).")
    var logLevel: LogLevelOption = .info

    @Option(name: .customLong("max-body-size"), help: "The largest request body accepted, in bytes; larger ones get 413.")
    var maxBodySize = 8 * 1024 * 1024

    @Option(name: .customLong("journal-capacity"), help: "How many requests the journal keeps (the total count stays exact).")
    var journalCapacity = 10_000

    @Option(help: ArgumentHelp("The scenario to start with: a name (see `mock-server scenarios`) or a scenario file.", valueName: "name|file"))
    var scenario = Scenario.happyPath.name

    @Option(name: .customLong("time-scale"), help: "Multiply every delay and throttle interval by this factor (e.g. 0.01 in CI).")
    var timeScale = 1.0

    @Option(help: "The seed for every random choice (latency, probabilistic outcomes, secrets).")
    var seed: UInt64 = 0

    @Flag(help: "Reload fixtures and scenarios when their files change; a broken file is reported and the last good version keeps serving.")
    var watch = false

    @Option(help: "Event-loop threads; default: one per core of the machine.")
    var threads: Int?

    @Option(help: ArgumentHelp("Restore state (Open Market catalogue, uploads, scenario states) from this file at start if it exists, and save it there at a clean stop.", valueName: "file"))
    var state: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard maxBodySize > 0 else { throw ValidationError("--max-body-size must be positive") }
        guard journalCapacity > 0 else { throw ValidationError("--journal-capacity must be positive") }
        guard timeScale >= 0, timeScale.isFinite else { throw ValidationError("--time-scale must be zero or more") }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be between 1 and 256") }
    }

    func run() async throws {
        let logger = logLevel.bootstrap()
        let variants = try VariantSelection.parse(fixtureOptions.variant)

        let engine: MockEngine
        do {
            let selection = try ScenarioOption.resolve(scenario)
            engine = try MockEngine(configuration: EngineConfiguration(
                fixturesDirectory: fixtureOptions.fixturesDirectory,
                restaurantVariant: variants.restaurant,
                openMarketVariant: variants.openMarket,
                journalCapacity: journalCapacity,
                seed: seed,
                scenarioDirectories: fixtureOptions.scenarioDirectories,
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
            watcher = FixtureWatcher(engine: engine, folders: [fixtureOptions.fixturesDirectory] + fixtureOptions.scenarioDirectories, logger: logger)
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

import ArgumentParser
import BuiltInMockAPIs
import Foundation
import MockCore
import MockFixtures
import MockRecording
import MockServer
import MockServerCLI

/// `mock-server proxy --upstream URL --scenario NAME`: a chaos proxy in front of a real
/// server (the recorder's proxy without recording).
struct ProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-server proxy",
        abstract: "Forward to a real server and play a scenario's latency, throttling, faults and sequences over its real answers.",
        discussion: """
            Every request (but /__admin) goes to --upstream unless the scenario's rule answers with a stub; \
            the scenario's delays, throttles, transforms and faults apply to the real answers, per \
            X-Mock-Session, and so do network profiles (--network, X-Mock-Network). Nothing is recorded; \
            every exchange is journaled (GET /__admin/requests, the dashboard at /__admin/ui). Switch \
            scenarios at run time with PUT /__admin/scenario as on the mock.
            Exit status: 0 after a clean stop, 1 when it cannot listen, 2 for bad arguments or scenario files.
            """)

    @OptionGroup var connection: UpstreamOptions

    @Option(help: ArgumentHelp("The scenario to play: a shipped one's name (flaky, server-errors, …), one in --scenarios, or a scenario file.", valueName: "name|file"))
    var scenario = Scenario.happyPath.name

    @Option(help: ArgumentHelp("A folder of more scenario files.", valueName: "dir"))
    var scenarios: String?

    @Option(help: ArgumentHelp("A network profile for every request (3G, Edge, Very Bad Network, …).", valueName: "profile"))
    var network: String?

    @Option(help: "The seed for every random choice.")
    var seed: UInt64 = 0

    @Option(name: .customLong("time-scale"), help: "Multiply every delay and throttle interval by this factor.")
    var timeScale = 1.0

    @Option(name: .customLong("admin-token"), help: ArgumentHelp("Require this token on every /__admin call.", valueName: "token"))
    var adminToken: String?

    func validate() throws {
        try connection.check()
        guard timeScale >= 0, timeScale.isFinite else { throw ValidationError("--time-scale must be zero or more") }
        if let network, NetworkProfile.preset(named: network) == nil { throw ValidationError(NetworkProfileError.unknown(network).description) }
        if !ServerConfiguration.isLoopback(connection.host) && adminToken == nil {
            throw ValidationError("--host \(connection.host) lets other machines connect: give --admin-token TOKEN")
        }
    }

    func run() async throws {
        let stop = StopSignal.install()
        let logger = connection.logLevel.bootstrap()
        guard let upstreamURL = connection.upstreamURL else { throw ExitCode(2) }
        let engine: MockEngine
        do {
            let selection = try ScenarioOption.resolve(scenario)
            // The simulators are never asked (the upstream answers); the built-in fixtures
            // only give the engine its shape.
            engine = try MockEngine(configuration: EngineConfiguration(
                fixturesDirectory: MockFixtures.directory, seed: seed,
                scenarioDirectories: [MockFixtures.scenarios] + (scenarios.map { [URL(fileURLWithPath: $0, isDirectory: true)] } ?? []),
                extraScenarios: selection.extra, scenario: selection.name, timeScale: timeScale,
                network: network.flatMap(NetworkProfile.preset(named:))))
        } catch {
            throw failForFixtures(error)
        }
        // The server's pipeline plays the scenarios over the upstream's answers.
        let proxy = UpstreamProxy(upstream: upstreamURL, timeout: connection.upstreamTimeout, logger: logger)
        let server = MockHTTPServer(engine: engine, configuration: ServerConfiguration(host: connection.host, port: connection.port, adminToken: adminToken),
                                    proxy: proxy, logger: logger)
        try await listen(server, stop: stop)
        logger.info("proxying", metadata: ["upstream": "\(upstreamURL.absoluteString)", "scenario": "\(engine.scenarios.currentScenario)"])
        _ = await stop.next()
        await server.stop()
    }
}

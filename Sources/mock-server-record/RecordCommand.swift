import ArgumentParser
import BuiltInMockAPIs
import Foundation
import MockCore
import MockRecording
import MockServer
import MockServerCLI

/// `mock-server-record [record options]`, `mock-server-record drift [drift options]`,
/// `mock-server-record proxy [proxy options]`, `mock-server-record pact [pact options]` or
/// `mock-server-record import-har [import options]` (`mock-server
/// record|drift|proxy|pact|import-har …` run these).
@main
enum RecordMain {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "drift" { await UsageExit.main(DriftCommand.self, Array(arguments.dropFirst())) }
        if arguments.first == "proxy" { await UsageExit.main(ProxyCommand.self, Array(arguments.dropFirst())) }
        if arguments.first == "pact" { await UsageExit.main(PactCommand.self, Array(arguments.dropFirst())) }
        if arguments.first == "import-har" { await UsageExit.main(ImportHARCommand.self, Array(arguments.dropFirst())) }
        await UsageExit.main(RecordCommand.self, arguments)
    }
}

struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-server record",
        abstract: "Proxy to a real server and record what it answers as fixtures and a replay scenario.",
        discussion: """
            Every request (but /__admin) goes to --upstream; the client gets the real response, with the \
            upstream's address in text bodies and Location rewritten to this server's. Each exchange is \
            written at once to DIR/scenarios/NAME.json and DIR/scenarios/NAME/ (varying headers such as \
            Date and request ids left out). Replay with: mock-server serve --fixtures DIR --scenario NAME
            Exit status: 0 after a clean stop, 1 when it cannot listen, 2 for bad arguments.
            """)

    @OptionGroup var connection: UpstreamOptions

    @Option(help: ArgumentHelp("Where the recording goes (created if missing).", valueName: "dir"))
    var out: String

    @Option(help: "The recording's scenario name (and file name).")
    var name = "recorded"

    @Option(name: .customLong("match-header"), help: ArgumentHelp("A request header that tells recorded requests apart (e.g. an API key); repeat for several.", valueName: "name"))
    var matchHeaders: [String] = []

    func validate() throws {
        try connection.check()
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else { throw ValidationError("--name must be a plain file name") }
    }

    func run() async throws {
        let stop = StopSignal.install()
        let logger = connection.logLevel.bootstrap()
        guard let upstreamURL = connection.upstreamURL else { throw ExitCode(2) }
        let directory = URL(fileURLWithPath: out, isDirectory: true)
        let recorder: Recorder
        do {
            recorder = try Recorder(directory: directory, name: name, upstream: upstreamURL.absoluteString, matchHeaders: matchHeaders)
        } catch {
            FileHandle.standardError.write(Data("error: cannot write the recording in \(directory.path): \(error.localizedDescription)\n".utf8))
            throw ExitCode(2)
        }
        // The engine only journals here (the dashboard and /__admin/requests show the traffic).
        let engine = try MockEngine(configuration: EngineConfiguration(
            fixturesDirectory: directory, scenarioDirectories: [], preloaded: .nothing))
        let proxy = UpstreamProxy(upstream: upstreamURL, timeout: connection.upstreamTimeout, recorder: recorder, logger: logger)
        let server = MockHTTPServer(engine: engine, configuration: ServerConfiguration(host: connection.host, port: connection.port),
                                    proxy: proxy, logger: logger)
        try await listen(server, stop: stop)
        logger.info("recording", metadata: ["upstream": "\(proxy.upstream)", "scenario": "\(recorder.scenarioFile.path)"])

        _ = await stop.next()
        await server.stop()
        let count = await recorder.count
        FileHandle.standardOutput.write(Data("""
            Recorded \(count) request\(count == 1 ? "" : "s") to \(recorder.scenarioFile.path)
            Replay: mock-server serve --fixtures \(out) --scenario \(name)

            """.utf8))
    }
}

/// What the commands that sit in front of a real server share: the upstream, where to
/// listen, how long to wait, how much to log.
struct UpstreamOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The real server, e.g. http://localhost:8080 or https://example.com/api.", valueName: "url"))
    var upstream: String

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free port.")
    var port = 8080

    @Option(name: .customLong("upstream-timeout"), help: "Seconds to wait for the upstream before answering 502.")
    var upstreamTimeout = 30.0

    @Option(name: .customLong("log-level"), help: "Log detail on standard error.")
    var logLevel: LogLevelOption = .info

    var upstreamURL: URL? {
        guard let url = URL(string: upstream), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil,
              url.query == nil else { return nil }
        return url
    }

    /// Called from each command's `validate()`.
    func check() throws {
        guard upstreamURL != nil else { throw ValidationError("--upstream must be an http:// or https:// URL with a host and no query, e.g. http://localhost:8080") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard upstreamTimeout > 0 else { throw ValidationError("--upstream-timeout must be positive") }
    }
}

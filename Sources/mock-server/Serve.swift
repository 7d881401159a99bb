import ArgumentParser
import BuiltInMockAPIs
import Dispatch
import Foundation
import Logging
import MockCore
import MockServer
import MockServerCLI
import MockServerTLS
import NIOCore
import NIOPosix
import OpenAPIDocumentAPI

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the built-in APIs from fixtures, and the APIs of OpenAPI documents given with --api (the default command).",
        discussion: "Prints `Listening on http://HOST:PORT` to standard output once the port is bound (a second such line for --tls-port, and `Proxying on http://HOST:PORT` for --proxy-port).")

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

    @Option(name: .customLong("journal-response-bytes"), help: "Response bodies up to this size are kept in the journal, counted in --journal-max-bytes (what /__admin/pact exports); 0 keeps none.")
    var journalResponseBytes: Int = ServeSettings.defaults.journalResponseBytes

    @Option(help: ArgumentHelp("The scenario to start with: a name (the shipped ones are in Fixtures/scenarios/; a running server lists them at GET /__admin/scenarios) or a scenario file.", valueName: "name|file"))
    var scenario: String = ServeSettings.defaults.scenario

    @Option(name: .customLong("time-scale"), help: "Multiply every delay and throttle interval by this factor (e.g. 0.01 in CI).")
    var timeScale: Double = ServeSettings.defaults.timeScale

    @Option(help: "The seed for every random choice (latency, probabilistic outcomes, secrets).")
    var seed: UInt64 = ServeSettings.defaults.seed

    @Option(help: ArgumentHelp("Play a Network Link Conditioner preset for every request: \(NetworkProfile.presets.map(\.name).joined(separator: ", ")) (case, spaces and punctuation do not matter: very-bad-network). Sessions and single requests (X-Mock-Network header) can choose another.", valueName: "profile"))
    var network: String?

    @Flag(help: "Reload fixtures and scenarios when their files change; a broken file is reported and the last good version keeps serving.")
    var watch = false

    @Flag(help: "Validate requests and answer 400 with a reason where the real server was lenient (the community order of [] or unknown ids, an Open Market page_no below 1). Without it each variant answers as its server did.")
    var strict = false

    @Option(help: "Event-loop threads; default: one per CPU this process may use (affinity mask, cgroup quota and cpuset).")
    var threads: Int?

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Close a keep-alive connection idle this long; a request body that stalls this long gets 408.", valueName: "seconds"))
    var idleTimeout: Double = ServeSettings.defaults.idleTimeout

    @Option(name: .customLong("head-timeout"), help: ArgumentHelp("A request's head (request line and headers) must arrive within this long of its first byte, else 408 (slowloris).", valueName: "seconds"))
    var headTimeout: Double = ServeSettings.defaults.headTimeout

    @Option(name: .customLong("max-head-size"), help: ArgumentHelp("The largest request head (request line and headers); larger ones get 431.", valueName: "bytes"))
    var maxHeadSize: Int = ServeSettings.defaults.maxHeadSize

    @Option(name: .customLong("max-connections"), help: "Open connections at once; one more gets a 503 and is closed.")
    var maxConnections: Int = ServeSettings.defaults.maxConnections

    @Option(name: .customLong("admin-token"), help: ArgumentHelp("Require this token on every /__admin call (X-Admin-Token header or Authorization: Bearer). Required with a --host other machines can reach, unless --admin-open.", valueName: "token"))
    var adminToken: String?

    @Flag(name: .customLong("admin-open"), help: "With a --host other machines can reach, leave the admin API open to them (no --admin-token).")
    var adminOpen = false

    @Option(help: ArgumentHelp("Restore state (Open Market catalogue, uploads, scenario states) from this file at start if it exists, and save it there at a clean stop.", valueName: "file"))
    var state: String?

    @Flag(help: "Serve HTTPS (HTTP/2 by ALPN, else HTTP/1.1) on --port, with a certificate from the local CA (see `mock-server ca`).")
    var tls = false

    @Option(name: .customLong("tls-port"), help: ArgumentHelp("Serve HTTPS on this port too (0 picks a free one), and plain HTTP on --port. Implies --tls.", valueName: "port"))
    var tlsPort: Int?

    @Option(name: .customLong("ca-dir"), help: ArgumentHelp("The local CA's folder; created on first use. Default: ~/.mock-server/ca.", valueName: "dir"))
    var caDirectory: String?

    @Option(name: .customLong("san"), help: ArgumentHelp("One more name the HTTPS certificate covers (DNS name or IP address); repeat for several. It always covers localhost, 127.0.0.1, ::1, the host name, <host>.local and the machine's addresses.", valueName: "name"))
    var san: [String] = []

    @Flag(name: .customLong("no-http2"), help: "With --tls, offer HTTP/1.1 only (no h2 in ALPN).")
    var noHTTP2 = false

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("With --tls, present this certificate chain (PEM) instead of one from the local CA; needs --tls-key.", valueName: "file"))
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The private key (PEM) of --tls-cert.", valueName: "file"))
    var tlsKey: String?

    @Option(name: .customLong("map"), help: ArgumentHelp("Answer requests to HOST (its Host header) with API alone, as for the APIs' own hosts; repeat for several. API is one of: \(BuiltInAPIs.all.map(\.name).joined(separator: ", ")).", valueName: "host=api"))
    var map: [String] = []

    @Option(name: .customLong("api"), help: ArgumentHelp("Serve the API of this OpenAPI 3.0, 3.1 or 3.2 document, or Swagger 2.0 one (YAML or JSON, $refs across any number of files), beside the built-in ones, under its servers URL's path; repeat for several. Its name (for /__admin/openapi/NAME and --map) is the file's name in lower case; give another as NAME=FILE.", valueName: "file"))
    var api: [String] = []

    @Flag(help: "With --api, answer every request from the document alone: POST to a collection keeps nothing for a later GET.")
    var stateless = false

    @Option(name: .customLong("proxy-port"), help: ArgumentHelp("Also run a forward proxy on this port (0 picks a free one): an app whose HTTP(S) proxy is this port keeps its real URLs, and the hosts the APIs answer to (their own, and --map) are answered here, HTTPS with a certificate from the local CA. Other hosts are refused unless --pass-through. `mock-server proxy-setup` prints how to point a Mac, the simulator or a device at it.", valueName: "port"))
    var proxyPort: Int?

    @Flag(name: .customLong("pass-through"), help: "With --proxy-port, send hosts no API answers to on to the real host (tunnelled unchanged) instead of refusing them.")
    var passThrough = false

    @Option(name: .customLong("proxy-allow-port"), help: ArgumentHelp("With --pass-through, one more port tunnels may go to besides 443 and 80; repeat for several.", valueName: "port"))
    var proxyAllowPort: [Int] = []

    @Flag(name: .customLong("proxy-open"), help: "With a --host other machines can reach, run the proxy without --admin-token: anyone who reaches the port may use it.")
    var proxyOpen = false

    func validate() throws {
        if let problem = settings.problem { throw ValidationError(problem) }
    }

    /// What was asked for, without the parser's property wrappers.
    var settings: ServeSettings {
        ServeSettings(host: host, port: port, fixtures: fixtureOptions.fixtures, variants: fixtureOptions.variant,
                      logLevel: logLevel, maxBodySize: maxBodySize, journalCapacity: journalCapacity,
                      journalMaxBytes: journalMaxBytes, journalResponseBytes: journalResponseBytes, scenario: scenario,
                      timeScale: timeScale, seed: seed, watch: watch, strict: strict, threads: threads, state: state,
                      idleTimeout: idleTimeout, headTimeout: headTimeout, maxHeadSize: maxHeadSize,
                      maxConnections: maxConnections, adminToken: adminToken, adminOpen: adminOpen, network: network,
                      tls: tls, tlsPort: tlsPort, caDirectory: caDirectory, san: san, noHTTP2: noHTTP2, tlsCert: tlsCert, tlsKey: tlsKey,
                      maps: map, documents: api, stateless: stateless, proxyPort: proxyPort, passThrough: passThrough,
                      proxyAllowPorts: proxyAllowPort, proxyOpen: proxyOpen)
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
    var journalResponseBytes = 64 * 1024
    var scenario = Scenario.happyPath.name
    var timeScale = 1.0
    var seed: UInt64 = 0
    var watch = false
    var strict = false
    var threads: Int?
    var state: String?
    var idleTimeout = 60.0
    var headTimeout = 10.0
    var maxHeadSize = 32 * 1024
    var maxConnections = 4_096
    var adminToken: String?
    var adminOpen = false
    var network: String?
    var tls = false
    var tlsPort: Int?
    var caDirectory: String?
    var san: [String] = []
    var noHTTP2 = false
    var tlsCert: String?
    var tlsKey: String?
    /// `--map HOST=API` values.
    var maps: [String] = []
    /// `--api [NAME=]FILE` values.
    var documents: [String] = []
    var stateless = false
    /// `--proxy-port`, `--pass-through`, `--proxy-allow-port`, `--proxy-open`.
    var proxyPort: Int?
    var passThrough = false
    var proxyAllowPorts: [Int] = []
    var proxyOpen = false

    static let defaults = ServeSettings()

    /// Whether clients on other machines can connect.
    var isExposed: Bool { !ServerConfiguration.isLoopback(host) }

    var limits: ConnectionLimits {
        ConnectionLimits(idleTimeout: .nanoseconds(Int64(idleTimeout * 1e9)), headTimeout: .nanoseconds(Int64(headTimeout * 1e9)),
                         maxHeadSize: maxHeadSize, maxConnections: maxConnections)
    }

    /// What is wrong with these settings, in the words ArgumentParser prints; nil if nothing.
    var problem: String? {
        if !(0...65535).contains(port) { return "--port must be between 0 and 65535" }
        if maxBodySize <= 0 { return "--max-body-size must be positive" }
        if journalCapacity <= 0 { return "--journal-capacity must be positive" }
        if journalMaxBytes <= 0 { return "--journal-max-bytes must be positive" }
        if journalResponseBytes < 0 { return "--journal-response-bytes must be zero or more" }
        if !(timeScale >= 0 && timeScale.isFinite) { return "--time-scale must be zero or more" }
        if let threads, !(1...256).contains(threads) { return "--threads must be between 1 and 256" }
        if !(idleTimeout > 0 && idleTimeout <= 86_400) { return "--idle-timeout must be more than 0 and at most 86400 seconds" }
        if !(headTimeout > 0 && headTimeout <= 86_400) { return "--head-timeout must be more than 0 and at most 86400 seconds" }
        if !(1_024...1_048_576).contains(maxHeadSize) { return "--max-head-size must be between 1024 and 1048576 bytes" }
        if !(1...1_000_000).contains(maxConnections) { return "--max-connections must be between 1 and 1000000" }
        if let adminToken, adminToken.isEmpty || adminToken.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) {
            return "--admin-token must be printable ASCII without spaces"
        }
        if adminToken != nil && adminOpen { return "--admin-token and --admin-open contradict each other; give one" }
        if isExposed && adminToken == nil && !adminOpen {
            return "--host \(host) lets other machines connect, and the admin API can change and reset everything: give --admin-token TOKEN (clients send X-Admin-Token), or --admin-open to leave it open"
        }
        do { _ = try VariantSelection.parse(variants) } catch { return error.description }
        if let network, NetworkProfile.preset(named: network) == nil { return NetworkProfileError.unknown(network).description }
        if let tlsPort, !(0...65535).contains(tlsPort) { return "--tls-port must be between 0 and 65535" }
        if let tlsPort, tlsPort == port, port != 0 { return "--tls-port must differ from --port (HTTP stays on --port)" }
        if let bad = san.first(where: { SubjectName(parsing: $0) == nil }) {
            return "--san \(bad) is neither a DNS name nor an IP address"
        }
        if !usesTLS && (!san.isEmpty || tlsCert != nil || tlsKey != nil || (proxyPort == nil && (caDirectory != nil || noHTTP2))) {
            return "--ca-dir, --san, --no-http2, --tls-cert and --tls-key need --tls or --tls-port (--ca-dir and --no-http2 also go with --proxy-port)"
        }
        if (tlsCert == nil) != (tlsKey == nil) { return "--tls-cert and --tls-key go together" }
        if case .failure(let problem) = hostMap { return problem.description }
        var names = Set(BuiltInAPIs.all.map(\.name))
        for (name, _) in documentFiles where !names.insert(name).inserted {
            return "--api: the API name \"\(name)\" is taken (built-in APIs: \(BuiltInAPIs.all.map(\.name).joined(separator: ", "))); name it with --api NAME=FILE"
        }
        if stateless && documents.isEmpty { return "--stateless needs --api" }
        if let proxyPort {
            if !(0...65535).contains(proxyPort) { return "--proxy-port must be between 0 and 65535" }
            if proxyPort != 0 && (proxyPort == port || proxyPort == tlsPort) { return "--proxy-port must differ from --port and --tls-port" }
            if let bad = proxyAllowPorts.first(where: { !(1...65535).contains($0) }) { return "--proxy-allow-port \(bad) must be between 1 and 65535" }
            if !proxyAllowPorts.isEmpty && !passThrough { return "--proxy-allow-port needs --pass-through (mapped hosts are answered on any port)" }
            if isExposed && adminToken == nil && !proxyOpen {
                return "--host \(host) lets other machines connect, and the proxy would let them use it: give --admin-token TOKEN (clients send it as Proxy-Authorization), or --proxy-open to leave it open"
            }
            if proxyOpen && adminToken != nil { return "--admin-token and --proxy-open contradict each other; give one" }
        } else if passThrough || !proxyAllowPorts.isEmpty || proxyOpen {
            return "--pass-through, --proxy-allow-port and --proxy-open need --proxy-port"
        }
        return nil
    }

    /// `--api` values as API name and file: `NAME=FILE`, or the file, named by its file name.
    var documentFiles: [(name: String, file: String)] {
        documents.map { value in
            if let equals = value.firstIndex(of: "="), !FileManager.default.fileExists(atPath: value) {
                let name = String(value[..<equals]).lowercased()
                if !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) {
                    return (name, String(value[value.index(after: equals)...]))
                }
            }
            return (OpenAPIDocumentAPI.name(of: URL(fileURLWithPath: value)), value)
        }
    }

    /// The APIs of the `--api` documents, read now; their problems with file and pointer.
    func documentAPIs() throws(FixtureError) -> [OpenAPIDocumentAPI] {
        var apis: [OpenAPIDocumentAPI] = []
        var problems: [FixtureProblem] = []
        for (name, file) in documentFiles {
            do {
                apis.append(try OpenAPIDocumentAPI(contentsOf: URL(fileURLWithPath: file), name: name, stateful: !stateless))
            } catch {
                problems += error.problems
            }
        }
        guard problems.isEmpty else { throw FixtureError(problems) }
        return apis
    }

    var fixturesDirectory: URL { FixtureOptions.directory(fixtures) }
    var scenarioDirectories: [URL] { FixtureOptions.scenarioDirectories(fixtures) }

    func run() async throws {
        let stop = StopSignal.install()
        let logger = logLevel.bootstrap()
        let variants = try VariantSelection.parse(variants)

        // Taken before the files are read, so an edit made at any moment after is seen.
        let watchedFolders = [fixturesDirectory] + scenarioDirectories
        let baseline = watch ? FixtureWatcher.Baseline.take(watchedFolders) : nil
        let engine: MockEngine
        logger.debug("reading fixtures", metadata: ["folder": "\(fixturesDirectory.path)"])
        do {
            let documentAPIs = try documentAPIs()
            for api in documentAPIs {
                let document = try api.document()
                logger.info("serving an OpenAPI document", metadata: [
                    "api": "\(api.name)", "file": "\(document.file)", "files": "\(document.fileCount)", "operations": "\(document.operationCount)",
                    "paths": "\(document.basePaths.map { $0.isEmpty ? "/" : $0 }.joined(separator: ", "))",
                    "hosts": "\(api.hosts.joined(separator: ", "))"])
                if document.declaredVersion == "2.0" {
                    logger.info("a Swagger 2.0 document, read as OpenAPI 3.1", metadata: ["api": "\(api.name)"])
                }
                for kind in DocumentNote.Kind.allCases {
                    for line in document.notes.filter({ $0.kind == kind }).summarized(root: document.file) {
                        logger.warning("\(kind.label): \(line)", metadata: ["api": "\(api.name)"])
                    }
                }
            }
            let selection = try ScenarioOption.resolve(scenario)
            engine = try MockEngine(configuration: EngineConfiguration(
                fixturesDirectory: fixturesDirectory,
                apis: BuiltInAPIs.all + documentAPIs,
                variants: variants.chosen,
                hostMap: (try? hostMap.get()) ?? [:],
                journalCapacity: journalCapacity,
                journalByteBudget: journalMaxBytes,
                journalResponseBodyLimit: journalResponseBytes,
                seed: seed,
                scenarioDirectories: scenarioDirectories,
                extraScenarios: selection.extra,
                scenario: selection.name,
                timeScale: timeScale,
                strict: strict,
                network: network.flatMap(NetworkProfile.preset(named:))))
        } catch {
            throw failForFixtures(error)
        }
        if let state, let saved = FileManager.default.contents(atPath: state) {
            do { try engine.restore(snapshot: saved, source: state) } catch { throw failForFixtures(error) }
            logger.info("state restored", metadata: ["file": "\(state)"])
        }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads ?? UsableCores.count)
        let server = MockHTTPServer(
            engine: engine,
            configuration: ServerConfiguration(host: host, port: port, maxRequestBodySize: maxBodySize, limits: limits, adminToken: adminToken,
                                               secureTransport: tlsSettings, forwardProxy: forwardProxy),
            group: group,
            logger: logger)
        if isExposed {
            FileHandle.standardError.write(Data("warning: listening on \(host): other machines can reach this server; \(adminToken == nil ? "the admin API is OPEN to them (--admin-open)" : "the admin API needs --admin-token"). Fixtures, scenarios and recorded requests are visible to anyone who connects.\n".utf8))
        }
        try await listen(server, stop: stop)
        var watcher: FixtureWatcher?
        if watch {
            watcher = FixtureWatcher(engine: engine, folders: watchedFolders, since: baseline, logger: logger)
            await watcher?.start()
        }

        let signal = await stop.next()
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

import ArgumentParser
import MockCore
import MockServerCLI

/// The entry point. `mock-server` with only plain serve options (what scripts, CI jobs and
/// the benchmark run) is read by `ServeSettings(quick:)`; everything else — help,
/// subcommands, unusual spellings, bad values — goes to ArgumentParser, which also
/// writes every error message.
///
/// Why: ArgumentParser builds its whole command tree by reflection before it reads an
/// argument, and in the statically linked binary each first protocol-conformance lookup
/// it makes scans every conformance record: a large share of the work from process
/// start to the first response.
@main
enum Main {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let settings = ServeSettings(quick: arguments) else {
            await UsageExit.main(MockServerCommand.self, arguments)
        }
        do {
            try await settings.run()
        } catch {
            MockServerCommand.exit(withError: error)
        }
    }
}

extension ServeSettings {
    /// The settings for `[serve] [--option value | --watch]...` when every argument is one
    /// of `serve`'s own options, written `--name value`, each at most once (`--variant`
    /// may repeat), with a value that parses, and the settings have no `problem`.
    /// Anything else is nil, and ArgumentParser reads the arguments instead.
    /// `QuickServeTests` checks that both readings agree.
    init?(quick arguments: [String]) {
        var rest = arguments[...]
        if rest.first == "serve" { rest = rest.dropFirst() }
        var seen = Set<String>()
        while let name = rest.popFirst() {
            guard name.hasPrefix("--"), !name.utf8.contains(UInt8(ascii: "=")), name == "--variant" || name == "--san" || seen.insert(name).inserted else { return nil }
            switch name {
            case "--watch": watch = true; continue
            case "--admin-open": adminOpen = true; continue
            case "--strict": strict = true; continue
            case "--tls": tls = true; continue
            case "--no-http2": noHTTP2 = true; continue
            default: break
            }
            guard let value = rest.popFirst(), !value.hasPrefix("-") else { return nil }
            switch name {
            case "--host": host = value
            case "--port": guard let number = Int(value) else { return nil }; port = number
            case "--fixtures": fixtures = value
            case "--variant": variants.append(value)
            case "--log-level": guard let level = LogLevelOption(rawValue: value) else { return nil }; logLevel = level
            case "--max-body-size": guard let number = Int(value) else { return nil }; maxBodySize = number
            case "--journal-capacity": guard let number = Int(value) else { return nil }; journalCapacity = number
            case "--journal-max-bytes": guard let number = Int(value) else { return nil }; journalMaxBytes = number
            case "--scenario": scenario = value
            case "--time-scale": guard let number = Double(value) else { return nil }; timeScale = number
            case "--seed": guard let number = UInt64(value) else { return nil }; seed = number
            case "--threads": guard let number = Int(value) else { return nil }; threads = number
            case "--state": state = value
            case "--idle-timeout": guard let number = Double(value) else { return nil }; idleTimeout = number
            case "--head-timeout": guard let number = Double(value) else { return nil }; headTimeout = number
            case "--max-head-size": guard let number = Int(value) else { return nil }; maxHeadSize = number
            case "--max-connections": guard let number = Int(value) else { return nil }; maxConnections = number
            case "--admin-token": adminToken = value
            case "--tls-port": guard let number = Int(value) else { return nil }; tlsPort = number
            case "--ca-dir": caDirectory = value
            case "--san": san.append(value)
            case "--tls-cert": tlsCert = value
            case "--tls-key": tlsKey = value
            default: return nil
            }
        }
        guard problem == nil else { return nil }
    }
}

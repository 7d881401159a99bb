import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `mock-server record ...` runs `mock-server-record ...`, built beside this binary.
/// Recording needs URLSession (HTTPS upstreams); on Linux that is FoundationNetworking,
/// which loads libcurl and some 30 shared libraries into the process. Keeping it in its
/// own binary keeps `serve` free of them, and of the start-up time and memory they
/// cost.
struct RecordForwarder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Proxy to a real server and record its answers as fixtures and a replay scenario (runs mock-server-record).",
        discussion: "Every option goes to mock-server-record; see `mock-server record --help`.")

    @Argument(parsing: .captureForPassthrough, help: "Options for mock-server-record.")
    var arguments: [String] = []

    static var recorderPath: String? {
        let own = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        let sibling = own.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("mock-server-record").path
        return FileManager.default.isExecutableFile(atPath: sibling) ? sibling : nil
    }

    func run() throws { try Self.forward(arguments) }

    /// Runs `mock-server-record ARGUMENTS` in place of this process; exit 2 when it is not built.
    static func forward(_ arguments: [String]) throws {
        guard let path = recorderPath else {
            FileHandle.standardError.write(Data("error: mock-server-record is not built next to mock-server; run `swift build --product mock-server-record` (or `swift run mock-server-record ...`)\n".utf8))
            throw ExitCode(2)
        }
        exec(path, arguments)
    }

    /// Replaces this process with `mock-server-record ARGUMENTS`.
    static func exec(_ path: String, _ arguments: [String]) {
        let argv = [path] + arguments
        var pointers = argv.map { strdup($0) }
        pointers.append(nil)
        // This runs on a Swift concurrency worker thread, whose mask blocks SIGINT and
        // SIGTERM; an exec'd image keeps the mask, and would never see Ctrl-C.
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        execv(path, pointers)
        FileHandle.standardError.write(Data("error: cannot run \(path): \(String(cString: strerror(errno)))\n".utf8))
        Foundation.exit(1)
    }
}

/// `mock-server drift ...` runs `mock-server-record drift ...` (URLSession, like recording).
struct DriftForwarder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drift",
        abstract: "Compare a real server's answers with the mock's by structure; name the closest variant (runs mock-server-record drift).",
        discussion: "Every option goes to mock-server-record drift; see `mock-server drift --help`.")

    @Argument(parsing: .captureForPassthrough, help: "Options for mock-server-record drift.")
    var arguments: [String] = []

    func run() throws { try RecordForwarder.forward(["drift"] + arguments) }
}

/// `mock-server proxy ...` runs `mock-server-record proxy ...` (URLSession, like recording).
struct ProxyForwarder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy",
        abstract: "A chaos proxy: forward to a real server and play a scenario's latency, faults and sequences over its answers (runs mock-server-record proxy).",
        discussion: "Every option goes to mock-server-record proxy; see `mock-server proxy --help`.")

    @Argument(parsing: .captureForPassthrough, help: "Options for mock-server-record proxy.")
    var arguments: [String] = []

    func run() throws { try RecordForwarder.forward(["proxy"] + arguments) }
}

/// `mock-server pact ...` runs `mock-server-record pact ...` (URLSession, like recording).
struct PactForwarder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pact",
        abstract: "Write a Pact file of the interactions a running mock-server saw (runs mock-server-record pact).",
        discussion: "Every option goes to mock-server-record pact; see `mock-server pact --help`.")

    @Argument(parsing: .captureForPassthrough, help: "Options for mock-server-record pact.")
    var arguments: [String] = []

    func run() throws { try RecordForwarder.forward(["pact"] + arguments) }
}

/// `mock-server import-har ...` runs `mock-server-record import-har ...`: the HAR import
/// writes through the recording code, which lives with URLSession in `MockRecording`.
struct ImportHARForwarder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-har",
        abstract: "Turn a HAR capture (Proxyman, Charles, Safari, Chrome, mitmproxy) into a replay scenario with its bodies as fixtures (runs mock-server-record import-har).",
        discussion: """
            Usage: mock-server import-har <file.har> [--host <host[:port]>] [--out <dir>] [--name <name>] [--keep-secrets] [--keep-timing]
            Every option goes to mock-server-record import-har; see `mock-server import-har --help`.
            """)

    @Argument(parsing: .captureForPassthrough, help: "Options for mock-server-record import-har.")
    var arguments: [String] = []

    func run() throws { try RecordForwarder.forward(["import-har"] + arguments) }
}

import ArgumentParser
import BuiltInMockAPIs
import Foundation
import Logging
import MockCore
import MockFixtures
import MockServer
import MockServerCLI

struct MockServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-server",
        abstract: "A scenario-driven fake server for the built-in APIs (\(BuiltInAPIs.all.map(\.name).joined(separator: ", "))) and APIs of your own OpenAPI documents.",
        discussion: """
            With no subcommand, serves the built-in fixtures on http://127.0.0.1:8080.
            Exit status: 0 after a clean stop (SIGINT/SIGTERM), 1 when the server cannot \
            listen (port in use), 2 for a bad fixture or scenario file or bad arguments.
            """,
        subcommands: [Serve.self, CACommand.self, ProxySetupCommand.self, RecordForwarder.self, DriftForwarder.self, ProxyForwarder.self, PactForwarder.self, Validate.self, OpenAPICommand.self, ImportHARForwarder.self],
        defaultSubcommand: Serve.self
    )
}

/// Options every subcommand that loads fixtures shares.
struct FixtureOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A folder with \(BuiltInAPIs.all.map { $0.name + "/" }.joined(separator: " and/or ")) fixture sets. Default: the built-in fixtures.", valueName: "dir"))
    var fixtures: String?

    @Option(name: .long, help: ArgumentHelp("An API variant to play; repeat for several. One of: \(VariantSelection.names().joined(separator: ", ")). Default: original.", valueName: "name"))
    var variant: [String] = []

    static func directory(_ fixtures: String?) -> URL {
        fixtures.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? MockFixtures.directory
    }

    /// The built-in scenarios, plus `scenarios/` of a custom fixtures folder.
    static func scenarioDirectories(_ fixtures: String?) -> [URL] {
        var folders = [MockFixtures.scenarios]
        if fixtures != nil { folders.append(directory(fixtures).appendingPathComponent("scenarios")) }
        return folders
    }
}

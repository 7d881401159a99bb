import ArgumentParser
import BuiltInDrift
import Foundation
import MockServerCLI

/// `mock-server drift`: is the mock still shaped like the real server?
struct DriftCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-server drift",
        abstract: "Compare a real server's answers with the mock's, by structure, and name the closest variant.",
        discussion: """
            Sends the same probes to --upstream and to the simulator (reads; for Open Market with \
            --identifier and --password also a create → read → secret → delete of one scratch product \
            on the upstream) and compares status codes, Content-Type, keys present, missing and extra, \
            types, nullability, number shapes (1 vs 1.0) and date formats; values are ignored. Each \
            difference is printed with its JSON path. Every variant of the API is played to name the \
            closest; the differences are against --variant, else against the closest.
            Exit status: 0 no drift, 1 drift, 2 bad arguments or an upstream that cannot be reached.
            """)

    @Option(help: ArgumentHelp("The real server, e.g. http://localhost:8080 or https://example.com.", valueName: "url"))
    var upstream: String

    @Option(help: ArgumentHelp("Which API: \(DriftCheck.API.allCases.map(\.rawValue).joined(separator: " or "))."))
    var api: DriftCheck.API

    @Option(help: ArgumentHelp("The variant the upstream should match (default: compare with the closest).", valueName: "name"))
    var variant: String?

    @Option(help: "Open Market vendor identifier, for the write probes.")
    var identifier: String?

    @Option(help: "Open Market vendor password, for the write probes.")
    var password: String?

    @Option(help: ArgumentHelp("Write the report as JUnit XML here too.", valueName: "file"))
    var junit: String?

    @Option(help: "Seconds to wait for each upstream answer.")
    var timeout = 15.0

    var upstreamURL: URL? {
        guard let url = URL(string: upstream), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil, url.query == nil else { return nil }
        return url
    }

    func validate() throws {
        guard upstreamURL != nil else { throw ValidationError("--upstream must be an http:// or https:// URL with a host and no query") }
        guard (identifier == nil) == (password == nil) else { throw ValidationError("--identifier and --password go together") }
        guard identifier == nil || api == .openmarket else { throw ValidationError("--identifier and --password are for --api \(DriftCheck.API.openmarket.rawValue)") }
        if let variant {
            let names = api.variantNames
            guard names.contains(variant) else { throw ValidationError("--variant \(variant) is not a \(api.rawValue) variant; choose from: \(names.joined(separator: ", "))") }
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        guard let upstreamURL else { throw ExitCode(2) }
        let check = DriftCheck(api: api, credentials: identifier.flatMap { id in password.map { (id, $0) } })
        let outcome: DriftOutcome
        do {
            outcome = try await check.check(upstream: DriftCheck.upstream(upstreamURL, timeout: timeout), variant: variant)
        } catch {
            FileHandle.standardError.write(Data("error: the drift probes failed: \(error)\n".utf8))
            throw ExitCode(2)
        }
        print(outcome.report)
        if let junit {
            do { try Data(outcome.junitXML().utf8).write(to: URL(fileURLWithPath: junit), options: .atomic) } catch {
                FileHandle.standardError.write(Data("error: cannot write \(junit): \(error.localizedDescription)\n".utf8))
                throw ExitCode(2)
            }
        }
        if outcome.drifted { throw ExitCode(1) }
    }
}

extension DriftCheck.API: ExpressibleByArgument {}

import ArgumentParser
import Foundation
import MockServerCLI
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `mock-server pact`: the Pact of what a running mock-server saw.
struct PactCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-server pact",
        abstract: "Write a Pact file (specification V4, or V3) of the interactions a running mock-server saw.",
        discussion: """
            Asks the server's admin API (GET /__admin/pact) for the Pact of its journal: one \
            interaction per distinct request and answer, with type and regex matchers for ids, \
            dates, tokens and the server's own URLs, and provider states for what came after writes. \
            Requests answered with a transport fault cannot be expressed and are listed as skipped \
            (on standard error). Verify the file against the real provider with any Pact verifier.
            Exit status: 0 written, 1 the server cannot be reached or refused, 2 bad arguments.
            """)

    @Option(help: "The consumer's name (your app).")
    var consumer: String

    @Option(help: "The provider's name (the API).")
    var provider: String

    @Option(help: ArgumentHelp("The running mock-server.", valueName: "url"))
    var server = "http://127.0.0.1:8080"

    @Option(help: ArgumentHelp("Only the requests of this X-Mock-Session.", valueName: "name"))
    var session: String?

    @Option(help: "The Pact specification: 4 (Synchronous/HTTP interactions) or 3.")
    var spec = 4

    @Option(help: ArgumentHelp("Write the file here (default: standard output).", valueName: "file"))
    var out: String?

    @Option(name: .customLong("admin-token"), help: ArgumentHelp("The server's --admin-token, if it has one.", valueName: "token"))
    var adminToken: String?

    var serverURL: URL? {
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else { return nil }
        return url
    }

    func validate() throws {
        guard serverURL != nil else { throw ValidationError("--server must be an http:// or https:// URL with a host") }
        guard [3, 4].contains(spec) else { throw ValidationError("--spec must be 3 or 4") }
        guard !consumer.isEmpty, !provider.isEmpty else { throw ValidationError("--consumer and --provider must not be empty") }
    }

    func run() async throws {
        guard let serverURL else { throw ExitCode(2) }
        var components = URLComponents(url: serverURL.appendingPathComponent("__admin/pact"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "consumer", value: consumer), URLQueryItem(name: "provider", value: provider),
                                 URLQueryItem(name: "spec", value: String(spec))] + (session.map { [URLQueryItem(name: "session", value: $0)] } ?? [])
        var request = URLRequest(url: components.url!, timeoutInterval: 30)
        if let adminToken { request.setValue(adminToken, forHTTPHeaderField: "X-Admin-Token") }
        let data: Data
        do {
            let (body, response) = try await URLSession(configuration: .ephemeral).data(for: request)
            guard let status = (response as? HTTPURLResponse)?.statusCode, status == 200 else {
                FileHandle.standardError.write(Data("error: \(components.url!.absoluteString) answered \((response as? HTTPURLResponse)?.statusCode ?? 0): \(String(decoding: body.prefix(500), as: UTF8.self))\n".utf8))
                throw ExitCode(1)
            }
            data = body
        } catch let exit as ExitCode {
            throw exit
        } catch {
            FileHandle.standardError.write(Data("error: cannot reach \(serverURL.absoluteString): \(error.localizedDescription)\n".utf8))
            throw ExitCode(1)
        }
        let pact = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        let interactions = (pact?["interactions"] as? [Any])?.count ?? 0
        let skipped = ((pact?["metadata"] as? [String: Any])?["mockServer"] as? [String: Any])?["skipped"] as? [String] ?? []
        if let out {
            do { try data.write(to: URL(fileURLWithPath: out), options: .atomic) } catch {
                FileHandle.standardError.write(Data("error: cannot write \(out): \(error.localizedDescription)\n".utf8))
                throw ExitCode(2)
            }
        } else {
            FileHandle.standardOutput.write(data)
            FileHandle.standardOutput.write(Data("\n".utf8))
        }
        var summary = "\(interactions) interaction\(interactions == 1 ? "" : "s") between \(consumer) and \(provider)" + (out.map { " written to \($0)" } ?? "")
        if !skipped.isEmpty { summary += "; skipped \(skipped.count):\n" + skipped.map { "  " + $0 }.joined(separator: "\n") }
        FileHandle.standardError.write(Data((summary + "\n").utf8))
    }
}

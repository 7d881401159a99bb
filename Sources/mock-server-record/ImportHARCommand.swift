import ArgumentParser
import Foundation
import MockCore
import MockRecording
import MockServerCLI

/// `mock-server-record import-har FILE.har` (`mock-server import-har` runs it): a capture
/// from Proxyman, Charles, Safari, Chrome or mitmproxy becomes what `record` writes, a
/// replay scenario with its bodies as fixtures. It lives in this binary with the rest of
/// recording, so the serving binary links none of it.
struct ImportHARCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-server import-har",
        abstract: "Turn a HAR capture (Proxyman, Charles, Safari, Chrome, mitmproxy) into a replay scenario with its bodies as fixtures.",
        discussion: """
            Writes what `mock-server record` writes: DIR/scenarios/NAME.json and the bodies under \
            DIR/scenarios/NAME/ (images as .png/.jpg files), one rule per distinct request, repeated \
            requests as a sequence. The capture's own address in text bodies and Location becomes the \
            replay server's. Replay with: mock-server serve --fixtures DIR --scenario NAME
            Redacted to REDACTED unless --keep-secrets: the headers Authorization, Cookie, Set-Cookie, \
            Proxy-Authorization and identifier, and identifier/secret/password values in JSON bodies, \
            multipart parts, forms and query strings; the replay accepts any value where one was redacted.
            Nothing is written unless the whole capture imports; an earlier scenario of the same name is \
            replaced only then.
            Exit status: 0 when imported, 2 for a bad capture (each problem with its JSON path, e.g. \
            $.log.entries[3].response.content.text), several hosts without --host, bad arguments, or an \
            unwritable DIR.
            """)

    @Argument(help: ArgumentHelp("The HAR file (HAR 1.2).", valueName: "file.har"))
    var file: String

    @Option(help: ArgumentHelp("Import only the requests to this host (host or host:port). Needed when the capture has several hosts.", valueName: "host"))
    var host: String?

    @Option(help: ArgumentHelp("Where the scenario goes (created if missing); serve it with --fixtures DIR.", valueName: "dir"))
    var out = "."

    @Option(help: ArgumentHelp("The scenario's name (and file name). Default: the capture's file name, e.g. menu-app for Menu App.har.", valueName: "name"))
    var name: String?

    @Flag(name: .customLong("keep-secrets"), help: "Keep credentials as captured instead of redacting them.")
    var keepSecrets = false

    @Flag(name: .customLong("keep-timing"), help: "Replay each response after its captured time: timings.wait + timings.receive, else the entry's time, as a fixed latency.")
    var keepTiming = false

    var scenarioName: String { name ?? HARImport.defaultName(for: URL(fileURLWithPath: file)) }

    func validate() throws {
        guard !scenarioName.isEmpty, !scenarioName.contains("/"), !scenarioName.hasPrefix(".") else {
            throw ValidationError("--name must be a plain file name")
        }
        if let host, host.isEmpty || host.contains("/") { throw ValidationError("--host takes a host or host:port, e.g. localhost:8080") }
    }

    func run() async throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            FileHandle.standardError.write(Data("error: cannot read \(file): \(error.localizedDescription)\n".utf8))
            throw ExitCode(2)
        }
        let capture: HARImport.Capture
        do {
            capture = try HARImport.read(data, file: file, options: HARImport.Options(host: host, keepSecrets: keepSecrets, keepTiming: keepTiming))
        } catch {
            throw failForFixtures(error)
        }
        let directory = URL(fileURLWithPath: out, isDirectory: true)
        let scenarioFile: URL
        do {
            scenarioFile = try HARImport.write(capture, to: directory, name: scenarioName, source: URL(fileURLWithPath: file).lastPathComponent)
        } catch let error as FixtureError {
            throw failForFixtures(error)
        } catch {
            FileHandle.standardError.write(Data("error: cannot write the scenario in \(directory.path): \(error.localizedDescription)\n".utf8))
            throw ExitCode(2)
        }
        for note in capture.notes { FileHandle.standardError.write(Data("note: \(file): \(note)\n".utf8)) }
        let count = capture.exchanges.count
        var report = "Imported \(count) request\(count == 1 ? "" : "s") to \(capture.host) into \(scenarioFile.path)\n"
        if !capture.redactions.isEmpty {
            let listing = capture.redactions.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
            report += "Redacted (--keep-secrets keeps them): \(listing)\n"
        }
        report += "Replay: mock-server serve --fixtures \(out) --scenario \(scenarioName)\n"
        FileHandle.standardOutput.write(Data(report.utf8))
    }
}

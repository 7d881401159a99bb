import Foundation
import MockFixtures
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct CLITests {
    @Test(arguments: [SIGINT, SIGTERM])
    func servesOnPortZeroPrintsOneLineAndStopsCleanly(signal: Int32) async throws {
        let child = try MockServerProcess(["--port", "0"])
        let line = try #require(await child.firstLine())
        let match = try #require(line.wholeMatch(of: /Listening on http:\/\/127\.0\.0\.1:(\d+)/))
        let port = try #require(Int(match.1))
        #expect(port > 0 && port != 8080)
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/categories")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains("appetizers"))
        child.signal(signal)
        #expect(await child.waitForExit() == 0)
        #expect(child.readAll(child.stdout).isEmpty, "exactly one line on stdout")
    }

    /// A supervisor (a test, a script) that stops the server as soon as it is listening
    /// gets a clean exit every time: the handler is in place before the first line.
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalRightAfterListeningStopsTheServerEveryTime(signal: Int32) async throws {
        var missed = 0
        for _ in 0..<15 {
            let child = try MockServerProcess(["--port", "0"])
            _ = try #require(await child.firstLine())
            child.signal(signal)
            // 120 s only bounds a lost signal (a clean stop takes milliseconds), however loaded the machine.
            if await child.waitForExit(timeout: 120) != 0 { missed += 1 }
        }
        #expect(missed == 0, "\(missed) of 15 servers did not stop cleanly on a signal sent right after they listened")
    }

    /// A signal sent while the server reads its files (here a 150 MB scenario file) is
    /// never lost: the process ends by itself. Before the bind it ends at once with 128 +
    /// the signal; on a machine busy with other suites the handler can run only after the
    /// bind, and the stop is then the graceful one. A lost signal leaves it running.
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalDuringStartUpIsNeverLost(signal: Int32) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("slow-start-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("scenarios"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: MockFixtures.restaurant, to: folder.appendingPathComponent("restaurant"))
        let description = String(repeating: "x", count: 150_000_000)
        try Data(#"{"version": 1, "name": "big", "description": "\#(description)", "rules": []}"#.utf8)
            .write(to: folder.appendingPathComponent("scenarios/big.json"))
        let child = try MockServerProcess(["--port", "0", "--fixtures", folder.path, "--log-level", "debug"])
        // The first log line says the fixtures are being read: the handler is in place.
        let line = try #require(await child.firstLine(of: child.stderr))
        #expect(line.contains("reading fixtures"), "\(line)")
        child.signal(signal)
        // -1: still running after 5 minutes (a bound for a lost signal, which a loaded
        // machine reading 150 MB does not reach), and killed.
        #expect(await child.waitForExit(timeout: 300) != -1)
    }

    @Test func portInUseIsOneLineAndStatus1() async throws {
        let first = try MockServerProcess(["--port", "0"])
        let line = try #require(await first.firstLine())
        let port = String(line.split(separator: ":").last!)
        let (status, stdout, stderr) = try await MockServerProcess.run(["--port", port])
        #expect(status == 1)
        #expect(stdout.isEmpty)
        let lines = stderr.split(separator: "\n").filter { !$0.contains(" info ") }
        #expect(lines.count == 1, "\(stderr)")
        #expect(lines.first?.contains("already in use") == true)
        first.signal(SIGTERM)
        _ = await first.waitForExit()
    }

    @Test func threadsOptionServesAndIsChecked() async throws {
        let single = try MockServerProcess(["--port", "0", "--threads", "1"])
        let line = try #require(await single.firstLine())
        let base = String(line.dropFirst("Listening on ".count))
        let (_, response) = try await URLSession.shared.data(from: URL(string: base + "/menu")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        single.signal(SIGTERM)
        #expect(await single.waitForExit() == 0)
        let (status, _, stderr) = try await MockServerProcess.run(["--port", "0", "--threads", "0"])
        #expect(status == 2)
        #expect(stderr.contains("--threads must be between 1 and 256"))
    }

    @Test func brokenFixtureIsReportedWithFileJSONPathAndStatus2() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cli-fixtures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: MockFixtures.restaurant, to: folder.appendingPathComponent("restaurant"))
        let menu = folder.appendingPathComponent("restaurant/menu.json")
        let text = try String(contentsOf: menu, encoding: .utf8).replacingOccurrences(of: #""id": 4,"#, with: #""id": "four","#)
        try text.write(to: menu, atomically: true, encoding: .utf8)

        let (status, stdout, stderr) = try await MockServerProcess.run(["--port", "0", "--fixtures", folder.path])
        #expect(status == 2)
        #expect(stdout.isEmpty)
        #expect(stderr.contains("restaurant/menu.json: $.items[3].id: expected an integer"), "\(stderr)")
        #expect(!stderr.contains("Fatal error"))
    }

    @Test func unknownVariantIsAUsageError() async throws {
        let (status, _, stderr) = try await MockServerProcess.run(["--variant", "vintage"])
        #expect(status == 2)
        #expect(stderr.contains("unknown variant \"vintage\""))
    }

    /// Every kind of usage error exits 2, as `--help` and the README say (ArgumentParser's
    /// own default is 64), with ArgumentParser's message on standard error and nothing on stdout.
    static let badArguments: [(arguments: [String], says: String)] = [
        (["--port", "abc"], "--port"),
        (["--port=abc"], "--port"),
        (["--no-such-flag"], "--no-such-flag"),
        (["--variant", "no-such"], "no-such"),
        (["--threads", "0"], "--threads"),
        (["--port", "99999"], "--port"),
        (["--time-scale", "-1"], "--time-scale"),
        (["--log-level", "loud"], "loud"),
        (["validate"], "validate"),
        (["no-such-subcommand"], "no-such-subcommand"),
        (["serve", "--port"], "--port"),
        (["--host", "0.0.0.0"], "--admin-token"),
        (["--max-connections", "0"], "--max-connections"),
        (["openapi"], "--api"),
        (["openapi", "--api", "pizza"], "pizza"),
        (["openapi", "--api", "openmarket", "--variant", "vintage"], "vintage"),
        (["import-har"], "<file.har>"),
        (["import-har", "c.har", "--name", "a/b"], "--name"),
        (["--map", "api.example.com"], "HOST=API"),
        (["--map", "api.example.com=pizza"], "unknown API \"pizza\""),
        (["--map", "https://api.example.com=openmarket"], "not a host name"),
        (["--pass-through"], "--proxy-port"),
        (["--proxy-port", "70000"], "--proxy-port"),
        (["--proxy-port", "0", "--proxy-allow-port", "25"], "--pass-through"),
        (["--host", "0.0.0.0", "--admin-open", "--proxy-port", "0"], "--proxy-open"),
        (["proxy-setup", "--proxy-port", "0"], "--proxy-port"),
    ]

    @Test(arguments: badArguments)
    func badArgumentsExit2(arguments: [String], says: String) async throws {
        let (status, stdout, stderr) = try await MockServerProcess.run(arguments)
        #expect(status == 2, "\(arguments) exited \(status): \(stderr)")
        #expect(stdout.isEmpty, "\(arguments) wrote to stdout: \(stdout)")
        #expect(stderr.contains(says), "\(arguments): \(stderr)")
        #expect(stderr.lowercased().contains("usage"), "\(arguments) prints no usage: \(stderr)")
    }

    @Test func recorderBadArgumentsExit2() async throws {
        let (status, _, stderr) = try await MockServerProcess.run(["record", "--port", "abc"])
        #expect(status == 2, "\(stderr)")
        let (missing, _, missingError) = try await MockServerProcess.run(["record"])
        #expect(missing == 2, "\(missingError)")
        #expect(missingError.contains("--upstream"))
        let (help, helpText, _) = try await MockServerProcess.run(["record", "--help"])
        #expect(help == 0)
        #expect(helpText.contains("Exit status"))
    }

    @Test func helpExitsZero() async throws {
        for arguments in [["--help"], ["serve", "--help"], ["validate", "--help"], ["openapi", "--help"], ["import-har", "--help"], ["pact", "--help"], ["help"]] {
            let (status, stdout, _) = try await MockServerProcess.run(arguments)
            #expect(status == 0, "\(arguments)")
            #expect(stdout.contains("USAGE"), "\(arguments)")
        }
    }

    @Test func communityVariantFromTheCommandLine() async throws {
        let child = try MockServerProcess(["--port", "0", "--variant", "community"])
        let line = try #require(await child.firstLine())
        let base = String(line.dropFirst("Listening on ".count))
        let (data, _) = try await URLSession.shared.data(from: URL(string: base + "/categories")!)
        #expect(String(decoding: data, as: UTF8.self).contains(#"{"id":1,"name":"appetizers"}"#))
        child.signal(SIGINT)
        #expect(await child.waitForExit() == 0)
    }

    @Test func helpDocumentsEveryFlag() async throws {
        let (status, stdout, _) = try await MockServerProcess.run(["serve", "--help"])
        #expect(status == 0)
        for flag in ["--host", "--port", "--fixtures", "--variant", "--log-level", "--max-body-size", "--journal-capacity", "--journal-max-bytes",
                     "--journal-response-bytes",
                     "--scenario", "--time-scale", "--seed", "--state", "--watch", "--strict",
                     "--idle-timeout", "--head-timeout", "--max-head-size", "--max-connections", "--admin-token", "--admin-open", "--threads"] {
            #expect(stdout.contains(flag), "--help does not mention \(flag)")
        }
        let (_, rootHelp, _) = try await MockServerProcess.run(["--help"])
        #expect(rootHelp.contains("serve"))
        #expect(rootHelp.contains("validate"))
        #expect(rootHelp.contains("openapi"))
        #expect(rootHelp.contains("Exit status"))
    }
}

/// `mock-server drift` as a user runs it in a scheduled CI job (#14).
@Suite struct DriftCLITests {
    /// Heavy (two servers, drift playing every variant): holds the test gate shared.
    @Test func exitsOneOnDriftWithJUnitAndZeroWithout() async throws {
        try await driftExits()
    }

    func driftExits() async throws {
        let upstream = try MockServerProcess(["--port", "0", "--variant", "openmarket-2022-late"])
        let line = try #require(await upstream.firstLine())
        let base = String(line.dropFirst("Listening on ".count))
        let junit = FileManager.default.temporaryDirectory.appendingPathComponent("drift-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: junit) }

        let (drift, report, _) = try await MockServerProcess.run(["drift", "--upstream", base, "--api", "openmarket",
                                                                  "--variant", "openmarket-2022-01", "--junit", junit.path])
        #expect(drift == 1, "\(report)")
        #expect(report.contains("closest variant: openmarket-2022-late"), "\(report)")
        #expect(report.contains("$.pageNo: missing key"), "\(report)")
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains("<testsuite name=\"drift openmarket openmarket-2022-01\""))
        #expect(xml.contains("<failure"))

        let (same, sameReport, _) = try await MockServerProcess.run(["drift", "--upstream", base, "--api", "openmarket",
                                                                     "--identifier", "c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1", "--password", "mart1234"])
        #expect(same == 0, "\(sameReport)")
        #expect(sameReport.contains("no drift"), "\(sameReport)")
        upstream.signal(SIGTERM)
        _ = await upstream.waitForExit()

        let (bad, _, error) = try await MockServerProcess.run(["drift", "--upstream", base, "--api", "pizza"])
        #expect(bad == 2, "\(error)")
        let (unreachable, _, message) = try await MockServerProcess.run(["drift", "--upstream", base, "--api", "restaurant"])
        #expect(unreachable == 2, "the upstream stopped: \(message)")
    }
}

/// `mock-server pact`: the Pact of what a running server saw, written where asked (#23).
/// (Tests/Pact/pact_verify_test.py verifies such files with the reference Pact core.)
@Suite struct PactCLITests {
    @Test func writesThePactOfARunningServer() async throws {
        let server = try MockServerProcess(["--port", "0"])
        let line = try #require(await server.firstLine())
        let base = String(line.dropFirst("Listening on ".count))
        _ = try await URLSession.shared.data(from: URL(string: base + "/categories")!)
        _ = try await URLSession.shared.data(from: URL(string: base + "/menu?category=soups")!)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pact-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let (status, _, stderr) = try await MockServerProcess.run(["pact", "--server", base, "--consumer", "OrderApp", "--provider", "Restaurant",
                                                                  "--out", file.path])
        #expect(status == 0, "\(stderr)")
        #expect(stderr.contains("2 interactions between OrderApp and Restaurant written to \(file.path)"), "\(stderr)")
        let pact = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        #expect((pact["interactions"] as? [[String: Any]])?.compactMap { $0["description"] as? String }
                == ["GET /categories → 200", "GET /menu?category=soups → 200"])
        server.signal(SIGTERM)
        _ = await server.waitForExit()
        // The server is gone: exit 1, saying so.
        let (gone, _, message) = try await MockServerProcess.run(["pact", "--server", base, "--consumer", "a", "--provider", "b"])
        #expect(gone == 1, "\(message)")
        #expect(message.contains("cannot reach \(base)"), "\(message)")
    }

    @Test(arguments: [["pact", "--consumer", "a"], ["pact", "--consumer", "a", "--provider", "b", "--spec", "5"],
                      ["pact", "--consumer", "a", "--provider", "b", "--server", "ftp://x"]])
    func badArgumentsExit2(arguments: [String]) async throws {
        let (status, _, stderr) = try await MockServerProcess.run(arguments)
        #expect(status == 2, "\(arguments): \(stderr)")
    }
}

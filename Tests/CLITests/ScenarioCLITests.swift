import Foundation
import MockFixtures
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct ScenarioCLITests {
    func write(_ text: String, name: String = "scenario.json") throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    static let broken = #"{"version": 1, "name": "broken", "rules": [{"name": "a", "request": {"path": "/menu"}, "response": {"status": 999, "fault": "meltdown"}}], "defaults": {"latency": {"fixed": "slow"}}}"#

    @Test func validateAcceptsEveryShippedFileAndFolder() async throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: MockFixtures.scenarios.path)
            .filter { $0.hasSuffix(".json") && !$0.hasSuffix(".schema.json") }
            .map { MockFixtures.scenarios.appendingPathComponent($0).path }
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Examples/checkout-trouble.json").standardizedFileURL.path
        let (status, stdout, stderr) = try await MockServerProcess.run(["validate"] + files + [MockFixtures.directory.path, example])
        #expect(status == 0, "\(stderr)")
        #expect(stdout.split(separator: "\n").count == files.count + 2)
    }

    @Test func validateReportsEveryProblemWithFileAndJSONPath() async throws {
        let url = try write(Self.broken)
        let (status, _, stderr) = try await MockServerProcess.run(["validate", url.path, "/no/such/file.json"])
        #expect(status == 2)
        let lines = stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains("error: \(url.path): $.defaults.latency.fixed: expected a number, found a string"))
        #expect(lines.contains("error: \(url.path): $.rules[0].response.status: must be between 100 and 599, found 999"))
        #expect(lines.contains { $0.hasPrefix("error: \(url.path): $.rules[0].response.fault: \"meltdown\" is not one of") })
        #expect(lines.contains("error: /no/such/file.json: $: no such file or folder"))
        #expect(!stderr.contains("Fatal error"))
    }

    @Test func serveRefusesABadScenarioWithStatus2() async throws {
        let url = try write(Self.broken)
        let (status, stdout, stderr) = try await MockServerProcess.run(["--port", "0", "--scenario", url.path])
        #expect(status == 2)
        #expect(stdout.isEmpty)
        #expect(stderr.contains("$.rules[0].response.status"))
        let (unknown, _, message) = try await MockServerProcess.run(["--port", "0", "--scenario", "no-such-scenario"])
        #expect(unknown == 2)
        #expect(message.contains("Unknown scenario \"no-such-scenario\""))
    }

    @Test func serveStartsInAScenarioFromAFileOrAName() async throws {
        let url = try write(#"{"version": 1, "name": "teapot", "rules": [{"name": "t", "request": {"path": "/menu"}, "response": {"status": 418, "text": "short and stout"}}]}"#)
        for (argument, path, expected) in [(url.path, "/menu", 418), ("server-errors", "/categories", 500)] {
            let child = try MockServerProcess(["--port", "0", "--scenario", argument, "--time-scale", "0.01"])
            let line = try #require(await child.firstLine())
            let base = String(line.dropFirst("Listening on ".count))
            let (_, response) = try await URLSession.shared.data(from: URL(string: base + path)!)
            #expect((response as? HTTPURLResponse)?.statusCode == expected)
            child.signal(SIGTERM)
            #expect(await child.waitForExit() == 0)
        }
    }
}

/// `mock-server record` in front of a second `mock-server`, then `serve --fixtures DIR
/// --scenario recorded` answering the same requests the same way, with no upstream.
@Suite struct RecordCLITests {
    static func get(_ url: String, headers: [String: String] = [:]) async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: url)!)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func recordThenServeTheRecording() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cli-record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let upstream = try MockServerProcess(["--port", "0"])
        let upstreamBase = String(try #require(await upstream.firstLine()).dropFirst("Listening on ".count))
        let recorder = try MockServerProcess(["record", "--upstream", upstreamBase, "--out", folder.path, "--port", "0"])
        let recorderBase = String(try #require(await recorder.firstLine()).dropFirst("Listening on ".count))

        let paths = ["/menu?category=soups", "/categories", "/api/products?page_no=2&items_per_page=2", "/api/products/99999"]
        var recorded: [(Int, String)] = []
        for path in paths { recorded.append(try await Self.get(recorderBase + path)) }
        let direct = try await Self.get(upstreamBase + "/menu?category=soups")
        #expect(recorded[0].1 == direct.1.replacingOccurrences(of: upstreamBase, with: recorderBase), "the client gets the real answer, addressed to the recorder")
        recorder.signal(SIGINT)
        #expect(await recorder.waitForExit() == 0)
        let summary = recorder.readAll(recorder.stdout)
        #expect(summary.contains("Recorded 4 requests to \(folder.path)/scenarios/recorded.json"))
        #expect(summary.contains("Replay: mock-server serve --fixtures \(folder.path) --scenario recorded"))
        upstream.signal(SIGTERM)
        #expect(await upstream.waitForExit() == 0)

        let (status, _, errors) = try await MockServerProcess.run(["validate", "\(folder.path)/scenarios/recorded.json"])
        #expect(status == 0, "the recording is a valid scenario: \(errors)")
        let replay = try MockServerProcess(["serve", "--fixtures", folder.path, "--scenario", "recorded", "--port", "0"])
        let replayBase = String(try #require(await replay.firstLine()).dropFirst("Listening on ".count))
        for (path, answer) in zip(paths, recorded) {
            let replayed = try await Self.get(replayBase + path)
            #expect(replayed.0 == answer.0, "\(path)")
            #expect(replayed.1 == answer.1.replacingOccurrences(of: recorderBase, with: replayBase), "\(path)")
        }
        #expect(try await Self.get(replayBase + "/menu?category=desserts").0 == 404, "not recorded")
        replay.signal(SIGTERM)
        #expect(await replay.waitForExit() == 0)
    }

    @Test func recordRefusesABadUpstream() async throws {
        let (status, _, errors) = try await MockServerProcess.run(["record", "--upstream", "ftp://example.com", "--out", "/tmp/x"])
        #expect(status == 2, "a usage error exits 2 (ArgumentParser alone would exit 64)")
        #expect(errors.contains("--upstream must be an http:// or https:// URL"))
    }
}

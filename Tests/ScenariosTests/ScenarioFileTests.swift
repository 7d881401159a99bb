import Foundation
import MockFixtures
import Testing
@testable import BuiltInMockAPIs
@testable import MockCore

@Suite struct ScenarioFileTests {
    @Test func fileAndSwiftAPIBuildTheSameValue() throws {
        let json = #"""
        {
          "version": 1, "name": "checkout", "description": "d", "seed": 9,
          "defaults": {"latency": {"lognormal": {"median": 200, "sigma": 0.5}}, "throttle": {"bytesPerSecond": 2048, "chunkSize": 512}},
          "rules": [
            {"name": "order", "request": {"method": "POST", "path": "/order", "body": {"json": {"menuIds": [1]}}},
             "responses": [{"status": 503, "headers": {"Retry-After": "1"}, "json": {"error": true}}, {"simulator": true, "latency": {"fixed": 150}}],
             "afterLast": "cycle", "state": {"machine": "m", "is": "Started", "becomes": "ordered"}},
            {"name": "menu", "request": {"method": "GET", "path": "/menu", "query": {"category": "soups"}, "headers": {"identifier": {"present": true}}},
             "random": [{"weight": 1, "response": {"fault": "truncatedBody", "simulator": true}}, {"weight": 3, "response": {"simulator": true, "transform": {"repeatItems": 2}}}]},
            {"name": "images", "request": {"path": "/images/*"}, "response": {"simulator": true, "throttle": {"dribble": {"duration": 1000, "chunks": 4}}, "transform": "malformedJSON"}}
          ]
        }
        """#
        let parsed = try ScenarioFile.parse(Data(json.utf8), file: "checkout.json")
        let built = Scenario(
            name: "checkout", description: "d", seed: 9,
            defaults: .init(latency: .lognormal(median: 0.2, sigma: 0.5), throttle: .bytesPerSecond(2048, chunkSize: 512)),
            rules: [
                Rule("order", RequestPattern(method: "POST", path: "/order", body: .json(["menuIds": [1]])),
                     .sequence([.status(503, json: ["error": true], headers: ["Retry-After": "1"]), Outcome.simulator.delayed(.fixed(0.15))], afterLast: .cycle),
                     state: StateRequirement(machine: "m", is: "Started", becomes: "ordered")),
                Rule("menu", RequestPattern(method: "GET", path: "/menu", query: ["category": .equalTo("soups")], headers: ["identifier": .present]),
                     .random([WeightedOutcome(1, Outcome(fault: .truncatedBody)), WeightedOutcome(3, Outcome.simulator.transformed(.repeatItems(2)))])),
                Rule("images", RequestPattern(path: "/images/*"),
                     always: Outcome(transform: .malformedJSON, throttle: .dribble(duration: 1, chunks: 4))),
            ])
        #expect(parsed == built)
    }

    @Test func everyProblemIsReportedWithItsPath() {
        let json = #"{"version": 1, "name": "x", "rules": [{"name": "a", "request": {"path": "/m", "query": {"q": {"regex": "x"}}}, "responses": [], "afterLast": "never"}, {"name": "a", "request": {"path": "/n"}, "response": {"status": "200", "latency": {"fixed": -5}}}, {"name": "b", "request": {"path": "/o"}, "response": {"simulator": true}, "random": []}]}"#
        #expect {
            try ScenarioFile.parse(Data(json.utf8), file: "x.json")
        } throws: { error in
            let problems = (error as? FixtureError)?.problems.map { "\($0.jsonPath): \($0.reason)" } ?? []
            let expected = [
                "$.rules[0].request.query.q.regex: unknown key",
                "$.rules[0].responses: must not be empty",
                "$.rules[0].afterLast: \"never\" is not one of",
                "$.rules[1].response.status: expected a number, found a string",
                "$.rules[1].response.latency.fixed: must be between 0 and 3600000, found -5",
                "$.rules[2]: give only one of \"response\", \"random\"",
            ]
            return expected.allSatisfy { wanted in problems.contains { $0.hasPrefix(wanted) } }
        }
    }

    /// Headers that would break the response's head are refused at load, with their path.
    @Test func headersThatCannotBeWrittenAreProblems() {
        let json = #"{"version": 1, "name": "x", "rules": [{"name": "a", "request": {"path": "/m"}, "response": {"status": 200, "headers": {"X-Split": "a\r\nSet-Cookie: x=1", "Bad Name": "v", "X-Fine": "ok"}}}]}"#
        #expect {
            try ScenarioFile.parse(Data(json.utf8), file: "x.json")
        } throws: { error in
            let problems = (error as? FixtureError)?.problems.map { "\($0.jsonPath): \($0.reason)" } ?? []
            return problems.count == 2
                && problems.contains { $0.hasPrefix("$.rules[0].response.headers.X-Split: the value of X-Split holds a carriage return") }
                && problems.contains { $0.hasPrefix("$.rules[0].response.headers.Bad Name: the header name \"Bad Name\" holds a space") }
        }
    }

    @Test func bodyFilesTemplatesAndConditionalStubs() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bodies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("b"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"url":"{{baseURL}}/x.png"}"#.utf8).write(to: folder.appendingPathComponent("b/menu.json"))
        let json = #"{"version": 1, "name": "files", "rules": [{"name": "m", "request": {"path": "/menu"}, "response": {"status": 200, "bodyFile": "b/menu.json", "templated": true, "headers": {"ETag": "\"1\""}, "conditional": true}}]}"#
        let url = folder.appendingPathComponent("files.json")
        try Data(json.utf8).write(to: url)
        let scenario = try ScenarioFile.load(url)
        let engine = try MockEngine(scenarios: [scenario], current: "files", source: ClosureResponder { _ in .error(404, "none") })
        let plan = engine.respond(to: MockRequest(method: "GET", uri: "/menu", baseURL: "http://h:1"))
        #expect(String(decoding: plan.body, as: UTF8.self) == #"{"url":"http://h:1/x.png"}"#)
        #expect(plan.headers["Content-Type"] == "application/json; charset=utf-8", "the type follows the file's extension")
        #expect(engine.respond(to: MockRequest(method: "GET", uri: "/menu", headers: ["If-None-Match": "\"1\""])).status == 304)
        #expect(engine.respond(to: MockRequest(method: "POST", uri: "/menu", headers: ["If-None-Match": "\"1\""])).status == 200)
    }

    /// Scenario files are data: a body file cannot reach outside the scenario's folder (#12).
    @Test(arguments: ["../outside.json", "/etc/hostname", "sub/../../outside.json"])
    func bodyFilesStayInsideTheScenarioFolder(name: String) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("confined-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("scenarios")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("secret".utf8).write(to: root.appendingPathComponent("outside.json"))
        let json = #"{"version": 1, "name": "escape", "rules": [{"name": "a", "request": {"path": "/a"}, "response": {"status": 200, "bodyFile": "NAME"}}]}"#
            .replacingOccurrences(of: "NAME", with: name)
        let url = folder.appendingPathComponent("escape.json")
        try Data(json.utf8).write(to: url)
        #expect {
            try ScenarioFile.load(url)
        } throws: { error in
            (error as? FixtureError)?.problems.contains { $0.jsonPath == "$.rules[0].response.bodyFile" && $0.reason.contains("outside the scenario file's folder") } ?? false
        }
    }

    /// A missing body file in a folder reached through a symbolic link (macOS's temporary
    /// folder is one: /var → /private/var) is "cannot read", not "outside the folder" (#22).
    @Test func aMissingBodyFileThroughASymlinkedFolderIsMissingNotOutside() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("linked-\(UUID().uuidString)")
        let real = base.appendingPathComponent("real")
        let link = base.appendingPathComponent("link")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        defer { try? FileManager.default.removeItem(at: base) }
        let json = #"{"version": 1, "name": "linked", "rules": [{"name": "a", "request": {"path": "/a"}, "response": {"status": 200, "bodyFile": "sub/missing.json"}}, {"name": "b", "request": {"path": "/b"}, "response": {"status": 200, "bodyFile": "../escape.json"}}]}"#
        try Data(json.utf8).write(to: real.appendingPathComponent("linked.json"))
        let reasons: [String]
        do {
            _ = try ScenarioFile.load(link.appendingPathComponent("linked.json"))
            reasons = []
        } catch {
            reasons = error.problems.map { "\($0.jsonPath): \($0.reason)" }
        }
        #expect(reasons.contains { $0.hasPrefix("$.rules[0].response.bodyFile: cannot read ") }, "\(reasons)")
        #expect(reasons.contains { $0.hasPrefix("$.rules[1].response.bodyFile: \"../escape.json\" is outside the scenario file's folder") }, "\(reasons)")
    }

    @Test func bodyFileProblemsSayWhichFileAndWhere() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bodies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = #"{"version": 1, "name": "bad", "rules": [{"name": "a", "request": {"path": "/a"}, "response": {"status": 200, "bodyFile": "missing.json", "text": "x"}}, {"name": "b", "request": {"path": "/b"}, "response": {"status": 204, "templated": true, "conditional": "yes"}}, {"name": "c", "request": {"path": "/c"}, "response": {"simulator": true, "templated": true}}]}"#
        let url = folder.appendingPathComponent("bad.json")
        try Data(json.utf8).write(to: url)
        let expected = [
            "$.rules[0].response: give only one body: text, bodyFile",
            "$.rules[0].response.bodyFile: cannot read \(folder.appendingPathComponent("missing.json").path)",
            "$.rules[1].response.templated: neither the body nor a header has a {{…}} hole to fill in",
            "$.rules[1].response.conditional: expected true or false, found a string",
            "$.rules[2].response.templated: cannot be combined with \"simulator\"",
        ]
        #expect {
            try ScenarioFile.load(url)
        } throws: { error in
            let problems = (error as? FixtureError)?.problems.map { "\($0.jsonPath): \($0.reason)" } ?? []
            return expected.allSatisfy { wanted in problems.contains { $0.hasPrefix(wanted) } }
        }
        // Without a file there is nothing for the path to be relative to.
        #expect(throws: FixtureError.self) {
            try ScenarioFile.parse(Data(#"{"version": 1, "name": "p", "rules": [{"name": "a", "request": {"path": "/a"}, "response": {"status": 200, "bodyFile": "x.json"}}]}"#.utf8), file: "request body")
        }
    }

    @Test func invalidJSONSaysWhere() {
        #expect {
            try ScenarioFile.parse(Data(#"{"version": 1, "name": }"#.utf8), file: "broken.json")
        } throws: { error in
            (error as? FixtureError)?.problems.first?.reason.contains("not valid JSON") == true
        }
    }

    /// swift-foundation's `JSONDecoder` traps on this input (fuzz-scenario found it: a CR,
    /// then 513 arrays left open). A scenario file, and a snapshot to restore, are read by
    /// our parser first, so both are refused with where and why, and nothing crashes.
    @Test func aDeepUnclosedArrayAfterACarriageReturnIsAnError() throws {
        let data = Data(" \r".utf8 + Array(repeating: UInt8(ascii: "["), count: 513) + [0x0D])
        #expect {
            try ScenarioFile.parse(data, file: "deep.json")
        } throws: { error in
            (error as? FixtureError)?.problems.first?.reason == "not valid JSON: nested deeper than 512 levels at line 1, column 515"
        }
        // A fixture file is read the same way.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("deep-\(UUID().uuidString).json")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect {
            _ = try FixtureFile.read(file) { _, _ in 1 }
        } throws: { error in
            (error as? FixtureError)?.problems.first?.reason.hasPrefix("not valid JSON: nested deeper than 512 levels") == true
        }
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory))
        #expect {
            try engine.restore(snapshot: data, source: "state.json")
        } throws: { error in
            (error as? FixtureError)?.problems.first?.reason.hasPrefix("not valid JSON: nested deeper than 512 levels") == true
        }
    }

    static let shipped = ["happy-path", "slow-3g", "flaky", "server-errors", "malformed-json", "truncated-body", "connection-reset",
                          "hang", "rate-limited", "empty-catalog", "large-catalog", "image-failures", "order-fails-then-succeeds",
                          "slow-images", "malformed-http", "tls-untrusted-certificate", "tls-expired-certificate", "tls-wrong-host",
                          "tls-handshake-reset", "tls-slow-handshake"]

    @Test func everyShippedScenarioValidates() throws {
        let scenarios = try ScenarioFile.loadFolder(MockFixtures.scenarios)
        #expect(Set(scenarios.map(\.name)) == Set(Self.shipped))
        for scenario in scenarios {
            #expect(!scenario.description.isEmpty, "\(scenario.name) needs a description")
        }
    }
}

@Suite struct ReadmeExampleTests {
    /// The README's Swift snippet and `Examples/checkout-trouble.json` build the same value.
    @Test func swiftSnippetEqualsTheExampleFile() throws {
        let scenario = Scenario(
            name: "checkout-trouble",
            description: "Slow everywhere; the first two orders fail; 10 % of menu calls reset.",
            seed: 42,
            defaults: .init(latency: .lognormal(median: 0.12, sigma: 0.5)),
            rules: [
                Rule("order-fails-twice", RequestPattern(method: "POST", path: "/order", body: .jsonHasKey("menuIds")),
                     .sequence([.status(500, json: ["error": true, "reason": "kitchen down"]),
                                .status(503, headers: ["Retry-After": "1"]), .simulator], afterLast: .repeatLast)),
                Rule("menu-resets", RequestPattern(method: "GET", path: "/menu", query: ["category": .present]),
                     .random([WeightedOutcome(10, .fault(.connectionReset)), WeightedOutcome(90, .simulator)])),
                Rule("after-login", RequestPattern(method: "GET", path: "/api/products/{id}"),
                     always: Outcome.simulator.throttled(.bytesPerSecond(20000, chunkSize: 1024)),
                     state: StateRequirement(machine: "auth", is: "logged-in", becomes: "browsed")),
            ])
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Examples/checkout-trouble.json").standardizedFileURL
        #expect(try ScenarioFile.load(file) == scenario)
    }
}

/// The `tls` key of scenario files (#15) and how the engine picks a handshake.
@Suite struct TLSHandshakeScenarioTests {
    static func parse(_ tls: String) throws -> Scenario {
        try ScenarioFile.parse(Data(#"{"version": 1, "name": "t", "tls": \#(tls)}"#.utf8), file: "t.json")
    }

    @Test func readsEveryField() throws {
        let scenario = try Self.parse(#"{"fault": "slowHandshake", "handshakeDelay": 2500, "probability": 0.25, "times": 3}"#)
        #expect(scenario.tls == TLSHandshake(fault: .slowHandshake, handshakeDelay: 2.5, probability: 0.25, times: 3))
        #expect(try Self.parse(#"{"fault": "wrongHost"}"#).tls == TLSHandshake(fault: .wrongHost))
    }

    @Test func namesEachProblemWithItsPath() {
        func problems(_ tls: String) -> [String] {
            do {
                _ = try Self.parse(tls)
                return []
            } catch {
                return (error as? FixtureError)?.problems.map { "\($0.jsonPath): \($0.reason)" } ?? ["\(error)"]
            }
        }
        #expect(problems(#"{"fault": "meltdown"}"#).first?.hasPrefix("$.tls.fault: \"meltdown\" is not one of: expiredCertificate, handshakeReset") == true)
        #expect(problems(#"{}"#) == ["$.tls.fault: required key is missing"])
        #expect(problems(#"{"fault": "wrongHost", "handshakeDelay": 5}"#) == ["$.tls.handshakeDelay: only a slowHandshake waits"])
        #expect(problems(#"{"fault": "wrongHost", "probability": 2}"#).first?.hasPrefix("$.tls.probability:") == true)
        #expect(problems(#"{"fault": "wrongHost", "times": 0}"#).first?.hasPrefix("$.tls.times:") == true)
        #expect(problems(#"{"fault": "wrongHost", "port": 1}"#).first?.hasPrefix("$.tls") == true)
    }

    static func engine(_ tls: TLSHandshake, seed: UInt64 = 7) -> ScenarioEngine {
        let library = ScenarioLibrary([Scenario(name: "tls", tls: tls)])
        return ScenarioEngine(library: library, current: "tls", seed: seed, timeScale: 1)
    }

    @Test func timesCountsConnectionsFromTheSelection() throws {
        let engine = Self.engine(TLSHandshake(fault: .handshakeReset, times: 2))
        #expect((0..<4).map { _ in engine.handshake()?.fault } == [.handshakeReset, .handshakeReset, nil, nil])
        try engine.select("tls")
        #expect(engine.handshake()?.fault == .handshakeReset, "selecting the scenario again starts the count afresh")
        try engine.select("happy-path")
        #expect(engine.handshake() == nil)
    }

    @Test func probabilityIsSeededAndReproducible() {
        let first = Self.engine(TLSHandshake(fault: .wrongHost, probability: 0.3))
        let second = Self.engine(TLSHandshake(fault: .wrongHost, probability: 0.3))
        let a = (0..<200).map { _ in first.handshake() != nil }
        let b = (0..<200).map { _ in second.handshake() != nil }
        #expect(a == b, "the same seed gives the same connections their fault")
        let share = Double(a.filter { $0 }.count) / 200
        #expect(share > 0.2 && share < 0.4, "about 30 %: \(share)")
    }
}

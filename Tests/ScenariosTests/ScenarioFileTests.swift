import Foundation
import MockFixtures
import Testing
@testable import Scenarios

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

    @Test func invalidJSONSaysWhere() {
        #expect {
            try ScenarioFile.parse(Data(#"{"version": 1, "name": }"#.utf8), file: "broken.json")
        } throws: { error in
            (error as? FixtureError)?.problems.first?.reason.contains("not valid JSON") == true
        }
    }

    static let shipped = ["happy-path", "slow-3g", "flaky", "server-errors", "malformed-json", "truncated-body", "connection-reset",
                          "hang", "rate-limited", "empty-catalog", "large-catalog", "image-failures", "order-fails-then-succeeds",
                          "slow-images", "malformed-http"]

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

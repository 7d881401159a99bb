import Foundation
import Testing
@testable import MockCore

/// Templated stubs answer from the request, in WireMock's words.
@Suite struct ResponseTemplateTests {
    /// An engine playing one scenario of the given rules (JSON), over a responder that 404s.
    static func engine(_ rules: String, seed: UInt64 = 0) throws -> MockEngine {
        let scenario = try ScenarioFile.parse(Data(#"{"version": 1, "name": "t", "rules": \#(rules)}"#.utf8), file: "t.json")
        return try MockEngine(scenarios: [scenario], current: "t", source: ClosureResponder { _ in .error(404, "none") }, seed: seed)
    }

    static let echo = #"""
        [{"name": "echo", "request": {"method": "POST", "path": "/pets/{id}"}, "response": {"status": 201, "templated": true,
          "headers": {"Location": "{{baseURL}}/pets/{{request.path.id}}", "X-Trace": "{{request.headers.x-trace}}"},
          "json": {"id": "{{request.path.id}}", "second": "{{request.path.[1]}}", "name": "{{jsonPath request.body '$.pet.name'}}",
                   "tags": "{{jsonPath request.body '$.pet.tags'}}", "first": "{{jsonPath request.body '$.pet.tags[0]'}}",
                   "q": "{{request.query.q}}", "missing": "{{request.query.nope}}", "method": "{{request.method}}"}}}]
        """#

    @Test func pathQueryHeadersAndBodyComeBack() throws {
        let engine = try Self.engine(Self.echo)
        let request = MockRequest(method: "POST", uri: "/pets/7?q=fluffy", headers: ["X-Trace": "abc"],
                                  body: Data(#"{"pet": {"name": "Rex", "tags": ["a", "b"]}}"#.utf8), baseURL: "http://h:1")
        let plan = engine.respond(to: request)
        #expect(plan.status == 201)
        let body = try #require(JSONValue(parsing: plan.body))
        #expect(body == ["id": "7", "second": "7", "name": "Rex", "tags": #"["a","b"]"#, "first": "a", "q": "fluffy", "missing": "", "method": "POST"])
        #expect(plan.headers["Location"] == "http://h:1/pets/7")
        #expect(plan.headers["X-Trace"] == "abc")
        #expect(plan.headers["Content-Type"] == "application/json; charset=utf-8")
    }

    /// Whatever the request holds, the JSON body stays JSON: values are escaped.
    @Test func valuesAreEscapedForJSON() throws {
        let engine = try Self.engine(Self.echo)
        let name = "quote \" backslash \\ newline \n tab \t bell \u{07}"
        let body = JSONCoding.encode(JSONValue.object(["pet": ["name": .string(name)]]))
        let plan = engine.respond(to: MockRequest(method: "POST", uri: "/pets/%22x%22?q=%7B%22a%22%3A1%7D", body: body))
        let parsed = try #require(JSONValue(parsing: plan.body), "\(String(decoding: plan.body, as: UTF8.self))")
        #expect(parsed["name"]?.stringValue == name)
        #expect(parsed["q"]?.stringValue == #"{"a":1}"#)
    }

    /// A template that is one hole and nothing else gives the hole's value, escaped as the
    /// place it goes asks.
    @Test func aTemplateOfOneHoleGivesItsValueEscaped() throws {
        let template = try ResponseTemplate("{{request.query.q}}")
        var context = ResponseTemplate.Context(request: MockRequest(method: "GET", uri: "/?q=a%22b"), pathParameters: [:],
                                               generator: SeededRandom(seed: 0))
        #expect(template.render(&context, escaping: .none) == #"a"b"#)
        #expect(template.render(&context, escaping: .json) == #"a\"b"#)
        #expect(try ResponseTemplate("{{request.query.missing}}").render(&context, escaping: .none) == "")
    }

    /// `\{{` is the text `{{`: a body that holds a template language's own braces can be
    /// templated too.
    @Test func aBackslashWritesBracesThemselves() throws {
        let engine = try Self.engine(#"[{"name": "b", "request": {"path": "/b/{id}"}, "response": {"status": 200, "templated": true, "text": "\\{{name}} is {{request.path.id}}, \\{{x}}{{request.path.id}} a\\b"}}]"#)
        let plan = engine.respond(to: MockRequest(method: "GET", uri: "/b/7"))
        #expect(String(decoding: plan.body, as: UTF8.self) == #"{{name}} is 7, {{x}}7 a\b"#)
        #expect(throws: TemplateError.self) { try ResponseTemplate("{{unknown}} \\{{fine}}") }
        #expect(try ResponseTemplate(#"\{{only text}}"#).hasHoles == false)
    }

    /// A header cannot be split by what the request sends.
    @Test func headerValuesLoseControlCharacters() throws {
        let engine = try Self.engine(#"[{"name": "h", "request": {"path": "/h"}, "response": {"status": 200, "templated": true, "headers": {"X-Echo": "{{request.query.v}}"}}}]"#)
        let plan = engine.respond(to: MockRequest(method: "GET", uri: "/h?v=a%0D%0AX-Injected:%201"))
        #expect(plan.headers["X-Echo"] == "aX-Injected: 1")
        #expect(plan.headers["X-Injected"] == nil)
    }

    static let random = #"""
        [{"name": "r", "request": {"path": "/r"}, "response": {"status": 200, "templated": true,
          "text": "{{randomValue type='UUID'}} {{randomValue length=6 type='NUMERIC'}} {{randomInt lower=5 upper=9}} {{now}} {{now format='yyyy-MM-dd' offset='1 days'}} {{now format='epoch'}}"}}]
        """#

    /// Random values come from the seed, time from the request's clock: the same seed and
    /// clock give the same answers, another seed others.
    @Test func randomValuesFollowTheSeedAndTimeTheClock() throws {
        let at = Date(timeIntervalSince1970: 1_700_000_000.25)
        func answers(seed: UInt64) throws -> [String] {
            let engine = try Self.engine(Self.random, seed: seed)
            return (0..<3).map { _ in String(decoding: engine.respond(to: MockRequest(method: "GET", uri: "/r", receivedAt: at)).body, as: UTF8.self) }
        }
        let first = try answers(seed: 1)
        #expect(first == (try answers(seed: 1)))
        #expect(first != (try answers(seed: 2)))
        #expect(Set(first).count == 3, "each request draws anew")
        let words = first[0].split(separator: " ").map(String.init)
        #expect(words.count == 6)
        #expect(words[0].range(of: #"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"#, options: .regularExpression) != nil, "\(words[0])")
        #expect(words[1].count == 6 && words[1].allSatisfy(\.isNumber))
        #expect((5...9).contains(Int(words[2]) ?? 0))
        #expect(words[3] == "2023-11-14T22:13:20Z")
        #expect(words[4] == "2023-11-15")
        #expect(words[5] == "1700000000250")
    }

    /// An unknown hole is refused when the file is read, at its JSON path.
    @Test(arguments: [
        ("{{request.pathx.id}}", "unknown template variable"),
        ("{{jsonPath request.body 'a.b'}}", "jsonPath takes request.body"),
        ("{{randomValue type='WORDS'}}", "randomValue type 'WORDS'"),
        ("{{now offset='3 fortnights'}}", "now's offset"),
        ("{{request.query.q", "a {{ with no }}"),
    ])
    func unknownHolesAreRefusedWithTheirPath(hole: String, says: String) throws {
        let rules = #"[{"name": "x", "request": {"path": "/x"}, "response": {"status": 200, "templated": true, "json": {"a": "\#(hole)"}}}]"#
        let error = #expect(throws: FixtureError.self) { _ = try Self.engine(rules) }
        let problem = try #require(error?.problems.first)
        #expect(problem.jsonPath == "$.rules[0].response.json")
        #expect(problem.reason.contains(says), "\(problem.reason)")
    }

    @Test func anUnknownHoleInAHeaderNamesTheHeader() throws {
        let rules = #"[{"name": "x", "request": {"path": "/x"}, "response": {"status": 200, "templated": true, "headers": {"X-A": "{{nope}}"}, "text": "{{request.path}}"}}]"#
        let error = #expect(throws: FixtureError.self) { _ = try Self.engine(rules) }
        #expect(error?.problems.first?.jsonPath == "$.rules[0].response.headers.X-A")
    }

    /// A text body is not JSON: its values go in as they are.
    @Test func textBodiesAreNotEscaped() throws {
        let engine = try Self.engine(#"[{"name": "t", "request": {"path": "/t"}, "response": {"status": 200, "templated": true, "text": "hello {{request.query.who}}"}}]"#)
        let plan = engine.respond(to: MockRequest(method: "GET", uri: "/t?who=%22you%22"))
        #expect(String(decoding: plan.body, as: UTF8.self) == #"hello "you""#)
    }
}

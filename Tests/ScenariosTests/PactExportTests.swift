import Foundation
@testable import MockCore
import Testing

/// `PactExport` writes the journal as a Pact (#23): V4 and V3 shapes, one interaction per
/// distinct exchange, matchers where values vary, provider states after writes, and what
/// a Pact cannot express left out with a reason.
@Suite struct PactExportTests {
    /// A journal of `entries`: request, status, response body, fault, scenario step.
    static func journal(_ entries: [(MockRequest, Int, String, Fault?, String?)]) -> [ServeEvent] {
        let journal = Journal(responseBodyLimit: 64 * 1024)
        for (request, status, body, fault, step) in entries {
            var plan = ResponsePlan.json(status, Data(body.utf8))
            plan.fault = fault
            plan.scenarioStep = step
            plan.answeredBy = step ?? "route"
            journal.record(request, plan: plan)
        }
        return journal.entries()
    }

    static func get(_ uri: String) -> MockRequest { MockRequest(method: "GET", uri: uri, headers: ["Host": "127.0.0.1:8080", "User-Agent": "x"]) }

    static let menu = #"{"items":[{"id":1,"name":"Soup","image_url":"http://127.0.0.1:8080/images/1.png","created_at":"2022-01-04T00:00:00.00"}]}"#

    @Test func aReadOnlySessionIsV4InteractionsWithMatchersAndNoStates() throws {
        let events = Self.journal([(Self.get("/menu?category=soups"), 200, Self.menu, nil, nil),
                                   (Self.get("/menu?category=soups"), 200, Self.menu, nil, nil),
                                   (Self.get("/categories"), 200, #"{"categories":["soups"]}"#, nil, nil)])
        let (pact, skipped) = PactExport(consumer: "OrderApp", provider: "Restaurant").pact(from: events)
        #expect(skipped.isEmpty)
        #expect(pact["consumer"]?["name"] == "OrderApp")
        #expect(pact["metadata"]?["pactSpecification"]?["version"] == "4.0")
        let interactions = try #require(pact["interactions"]?.arrayValue)
        #expect(interactions.count == 2, "the repeated read is one interaction")
        let menu = interactions[0]
        #expect(menu["type"] == "Synchronous/HTTP")
        #expect(menu["description"] == "GET /menu?category=soups → 200")
        #expect(menu["key"]?.stringValue?.count == 16)
        #expect(menu["providerStates"] == nil, "nothing moved the state")
        #expect(menu["request"] == ["method": "GET", "path": "/menu", "query": ["category": ["soups"]]], "no Host or User-Agent")
        #expect(menu["response"]?["body"]?["content"]?["items"]?.arrayValue?.first?["name"] == "Soup")
        let rules = try #require(menu["response"]?["matchingRules"]?["body"]?.objectValue)
        #expect(rules["$.items[0].id"] == ["combine": "AND", "matchers": [["match": "type"]]])
        #expect(rules["$.items[0].created_at"]?["matchers"]?.arrayValue?.first?["match"] == "regex")
        #expect(rules["$.items[0].image_url"] == ["combine": "AND", "matchers": [["match": "regex", "regex": #"^https?://[^/]+/images/1\.png$"#]]],
                "the mock's own address becomes any host")
        #expect(rules["$.items[0].name"] == nil, "a name must be equal")
    }

    @Test func faultsAndWhatNothingAnsweredAreSkippedWithReasons() throws {
        let journal = Journal(responseBodyLimit: 1024)
        var reset = ResponsePlan(status: 200, answeredBy: "r")
        reset.fault = .connectionReset
        journal.record(Self.get("/menu"), plan: reset)
        journal.record(Self.get("/nope"), plan: ResponsePlan.json(404, Data("{}".utf8)))
        journal.record(MockRequest(method: "GET", uri: "/__admin/requests"), plan: ResponsePlan(status: 200, answeredBy: "admin.requests"))
        let (pact, skipped) = PactExport(consumer: "a", provider: "b").pact(from: journal.entries())
        #expect(pact["interactions"] == [])
        #expect(skipped == ["#1 GET /menu: the connectionReset fault (a Pact cannot express a transport fault)",
                            "#2 GET /nope: no route or rule answered it (404)"])
        #expect(pact["metadata"]?["mockServer"]?["skipped"]?.arrayValue?.count == 2)
    }

    @Test func afterAWriteEveryInteractionNamesTheStateToReplay() throws {
        let create = MockRequest(method: "POST", uri: "/order", headers: ["Content-Type": "application/json", "Host": "h"], body: Data(#"{"menuIds":[1]}"#.utf8))
        let events = Self.journal([(Self.get("/categories"), 200, #"{"categories":[]}"#, nil, nil),
                                   (create, 200, #"{"preparation_time":10}"#, nil, nil),
                                   (Self.get("/categories"), 200, #"{"categories":[]}"#, nil, nil)])
        let interactions = try #require(PactExport(consumer: "a", provider: "b").pact(from: events).document["interactions"]?.arrayValue)
        #expect(interactions.count == 3, "the same read before and after a write is two interactions")
        #expect(interactions[0]["providerStates"]?.arrayValue?.first?["name"] == "the provider's initial data")
        #expect(interactions[0]["providerStates"]?.arrayValue?.first?["params"] == ["replay": []])
        #expect(interactions[2]["providerStates"]?.arrayValue?.first?["name"] == "after 1 earlier request (POST /order)")
        let replay = try #require(interactions[2]["providerStates"]?.arrayValue?.first?["params"]?["replay"]?.arrayValue)
        let body = Data(#"{"menuIds":[1]}"#.utf8).base64EncodedString()
        #expect(replay == [["method": "POST", "uri": "/order", "headers": ["Content-Type": "application/json"], "body": JSONValue.string(body)]])
        #expect(interactions[1]["request"]?["body"] == ["content": ["menuIds": [1]], "contentType": "application/json", "encoded": false])
        #expect(interactions[2]["description"] == "GET /categories → 200 #2")
    }

    @Test func v3WritesPlainBodiesAndLeavesBinaryRequestsOut() throws {
        let image = MockRequest(method: "GET", uri: "/images/1.png")
        let journal = Journal(responseBodyLimit: 1024)
        var png = ResponsePlan(status: 200, headers: ["Content-Type": "image/png"], body: Data([0x89, 0x50, 0x4E, 0x47]), answeredBy: "img")
        png.body = Data([0x89, 0x50, 0x4E, 0x47])
        journal.record(image, plan: png)
        journal.record(MockRequest(method: "POST", uri: "/upload", headers: ["Content-Type": "application/octet-stream"], body: Data([0xFF, 0x00])),
                       plan: ResponsePlan.json(201, Data("{}".utf8)).answered(by: "up"))
        let export = PactExport(consumer: "a", provider: "b", specification: .v3)
        let (pact, skipped) = export.pact(from: journal.entries())
        #expect(pact["metadata"]?["pactSpecification"]?["version"] == "3.0.0")
        let interactions = try #require(pact["interactions"]?.arrayValue)
        #expect(interactions.count == 1)
        #expect(interactions[0]["type"] == nil && interactions[0]["key"] == nil, "V3 has neither")
        #expect(interactions[0]["response"]?["headers"] == ["Content-Type": "image/png"], "V3 headers are strings")
        #expect(interactions[0]["response"]?["body"] == nil, "a binary response body has no V3 form")
        #expect(skipped == ["#2 POST /upload: its body (application/octet-stream) cannot be written in Pact V3; V4 carries it"])
        // The same in V4: base64.
        let v4 = try #require(PactExport(consumer: "a", provider: "b").pact(from: journal.entries()).document["interactions"]?.arrayValue)
        #expect(v4[0]["response"]?["body"] == ["content": .string(Data([0x89, 0x50, 0x4E, 0x47]).base64EncodedString()), "contentType": "image/png", "encoded": "base64"])
        #expect(v4[1]["request"]?["body"]?["encoded"] == "base64")
    }

    @Test(arguments: [("2022-01-04T00:00:00.00", true), ("2022-01-04 00:00:00.000", true), ("2022-01-04T00:00:00", true),
                      ("2022-01-04T00:00:00Z", true), ("2022-01-04", false), ("soups", false), ("2022-01-04T0:00:00", false)])
    func datesAreRecognisedByShape(text: String, isDate: Bool) throws {
        let pattern = PactExport.datePattern(text)
        #expect((pattern != nil) == isDate, "\(text)")
        if let pattern { #expect(text.range(of: pattern, options: .regularExpression) != nil, "its own regex matches \(text)") }
    }
}

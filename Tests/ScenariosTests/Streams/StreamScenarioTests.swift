import Foundation
import Testing
@testable import MockCore

/// Streams in scenario files and in the engine: the file and the Swift API build the same
/// values, bad streams are reported with their paths, and the engine's plan carries the
/// stream, its fault and its templates filled.
@Suite struct StreamScenarioTests {
    /// The Streams article's scenario, as written there.
    static let file = #"""
    {
      "version": 1, "name": "live",
      "rules": [
        {"name": "completion", "request": {"method": "POST", "path": "/v1/chat/completions"},
         "response": {"templated": true, "headers": {"X-Request-Id": "{{randomValue type='UUID'}}"},
                      "eventStream": {"events": [
                        {"event": "delta", "json": {"model": "{{jsonPath request.body '$.model'}}", "text": "Hel"}, "id": "1"},
                        {"event": "delta", "json": {"text": "lo"}, "id": "2", "delay": 120},
                        {"data": "[DONE]", "id": "3", "delay": 120}]}}},
        {"name": "ticker", "request": {"path": "/prices"},
         "response": {"eventStream": {"events": [{"comment": "keep-alive"}, {"event": "price", "json": {"p": 1}, "delay": 1000, "retry": 2000}],
                                      "repeat": "forever", "autoIds": true}}},
        {"name": "flaky-feed", "request": {"path": "/feed"},
         "random": [{"weight": 3, "response": {"eventStream": {"events": [{"data": "a"}, {"data": "b", "delay": 100}]}}},
                    {"weight": 1, "response": {"eventStream": {"events": [{"data": "a"}, {"data": "b", "delay": 100}]},
                                               "streamFault": {"drop": {"after": 1}}}}]},
        {"name": "chat", "request": {"path": "/chat/{room}"},
         "response": {"templated": true, "webSocket": {
           "subprotocol": "chat.v1",
           "onConnect": [{"json": {"type": "welcome", "room": "{{request.path.room}}"}}],
           "onMessage": [
             {"name": "echo", "match": {"matchesJsonPath": {"expression": "$.type", "equalTo": "say"}},
              "reply": [{"json": {"type": "said", "text": "{{jsonPath message '$.text'}}"}, "delay": 50}]},
             {"name": "bye", "match": {"equalTo": "bye"}, "reply": [{"text": "bye"}], "close": {"code": 1000, "reason": "done"}},
             {"name": "blob", "match": {"type": "binary"}, "reply": [{"binary": "AAEC"}]}],
           "pushes": [{"every": 5000, "times": 3, "messages": [{"ping": "hb"}]}],
           "close": {"code": 1001, "reason": "restarting", "delay": 60000}},
                      "streamFault": {"close": {"after": 10, "code": 1011, "reason": "overloaded"}}}}
      ]
    }
    """#

    @Test func theFileAndTheSwiftAPIBuildTheSameScenario() throws {
        let parsed = try ScenarioFile.parse(Data(Self.file.utf8), file: "live.json")
        let template = { (text: String) in try ResponseTemplate(text) }
        let feed = EventStream([.text("a"), .text("b", delay: 0.1)])
        let built = Scenario(name: "live", rules: [
            Rule("completion", .post("/v1/chat/completions"), always: .eventStream(EventStream([
                ServerSentEvent(event: "delta", data: .template(try template(#"{"model":"{{jsonPath request.body '$.model'}}","text":"Hel"}"#), json: true), id: "1"),
                ServerSentEvent(event: "delta", data: .template(try template(#"{"text":"lo"}"#), json: true), id: "2", delay: 0.12),
                ServerSentEvent(data: .template(try template("[DONE]"), json: false), id: "3", delay: 0.12),
            ]), headers: ["X-Request-Id": "{{randomValue type='UUID'}}"])),
            Rule("ticker", RequestPattern(path: "/prices"), always: .eventStream(EventStream([
                ServerSentEvent(comment: "keep-alive"), ServerSentEvent(event: "price", data: .json(["p": 1]), retry: 2000, delay: 1),
            ], repetition: .forever, autoIDs: true))),
            Rule("flaky-feed", RequestPattern(path: "/feed"), .random([
                WeightedOutcome(3, .eventStream(feed)), WeightedOutcome(1, Outcome.eventStream(feed).streamFaulted(.drop(after: 1, clean: false))),
            ])),
            Rule("chat", RequestPattern(path: "/chat/{room}"), always: Outcome.webSocket(WebSocketScript(
                subprotocol: "chat.v1",
                onConnect: [WebSocketMessage(.template(try template(#"{"room":"{{request.path.room}}","type":"welcome"}"#), json: true))],
                onMessage: [
                    WebSocketReply("echo", match: MessagePattern(body: .jsonValue(at: JSONLocation(path: "$.type")!, .equalTo("say"))),
                                   messages: [WebSocketMessage(.template(try template(#"{"text":"{{jsonPath message '$.text'}}","type":"said"}"#), json: true), delay: 0.05)]),
                    WebSocketReply("bye", match: MessagePattern(text: .equalTo("bye")), messages: [WebSocketMessage(.template(try template("bye"), json: false))],
                                   close: WebSocketClose(code: 1000, reason: "done")),
                    WebSocketReply("blob", match: MessagePattern(kind: .binary), messages: [.binary(Data([0, 1, 2]))]),
                ],
                pushes: [WebSocketPush(every: 5, times: 3, messages: [WebSocketMessage(.ping(Data("hb".utf8)))])],
                close: WebSocketClose(code: 1001, reason: "restarting", delay: 60))).streamFaulted(.close(after: 10, code: 1011, reason: "overloaded"))),
        ])
        #expect(parsed == built)
    }

    static func problems(_ json: String) -> [String] {
        do {
            _ = try ScenarioFile.parse(Data(json.utf8), file: "s.json")
            return []
        } catch {
            return error.problems.map { "\($0.jsonPath): \($0.reason)" }
        }
    }

    static func rule(_ response: String) -> String {
        #"{"version": 1, "name": "s", "rules": [{"name": "r", "request": {"path": "/s"}, "response": "# + response + "}]}"
    }

    @Test(arguments: [
        (#"{"eventStream": {"events": []}}"#, "$.rules[0].response.eventStream.events: must not be empty"),
        (#"{"eventStream": {"events": [{}]}}"#, "$.rules[0].response.eventStream.events[0]: an event needs data, json, a comment, an id or retry"),
        (#"{"eventStream": {"events": [{"data": "a", "json": 1}]}}"#, "$.rules[0].response.eventStream.events[0]: give data (text) or json, not both"),
        (#"{"eventStream": {"events": [{"data": "a", "event": "x\ny"}]}}"#, "$.rules[0].response.eventStream.events[0].event: holds a line break"),
        (#"{"eventStream": {"events": [{"data": "a", "id": "1\r"}]}}"#, "$.rules[0].response.eventStream.events[0].id: holds a line break"),
        (#"{"eventStream": {"events": [{"data": "a", "delay": -1}]}}"#, "$.rules[0].response.eventStream.events[0].delay: must be between 0 and 3600000"),
        (#"{"eventStream": {"events": [{"data": "a", "retry": 1.5}]}}"#, "$.rules[0].response.eventStream.events[0].retry: expected a whole number"),
        (#"{"eventStream": {"events": [{"data": "a"}], "repeat": "often"}}"#, "$.rules[0].response.eventStream.repeat: a number of times, or \"forever\""),
        (#"{"eventStream": {"events": [{"data": "a"}], "repeat": "forever"}}"#, "$.rules[0].response.eventStream.repeat: a stream without end needs a delay"),
        (#"{"eventStream": {"events": [{"data": "a", "delay": 5}], "repeat": "forever", "keepOpen": true}}"#, "$.rules[0].response.eventStream.keepOpen: a stream without end"),
        (#"{"eventStream": {"events": [{"data": "a"}], "sometimes": 1}}"#, "$.rules[0].response.eventStream.sometimes: unknown key"),
        (#"{"eventStream": {"events": [{"data": "a"}]}, "json": {}}"#, "$.rules[0].response.json: a stream has no body"),
        (#"{"eventStream": {"events": [{"data": "a"}]}, "simulator": true}"#, "$.rules[0].response.simulator: cannot be combined with a stream"),
        (#"{"eventStream": {"events": [{"data": "a"}]}, "throttle": {"bytesPerSecond": 5}}"#, "$.rules[0].response.throttle: a stream is paced by its own delays"),
        (#"{"eventStream": {"events": [{"data": "a"}]}, "status": 500}"#, "$.rules[0].response.status: must be between 200 and 299"),
        (#"{"eventStream": {"events": [{"data": "a"}]}, "webSocket": {}}"#, "$.rules[0].response: give an eventStream or a webSocket, not both"),
        (#"{"eventStream": {"events": [{"data": "{{nope}}"}]}, "templated": true}"#, "$.rules[0].response.eventStream.events[0].data: {{nope}}: unknown template variable"),
        (#"{"eventStream": {"events": [{"data": "{{message}}"}]}, "templated": true}"#, "$.rules[0].response.eventStream.events[0].data: {{message}} is the client message"),
        (#"{"status": 200, "text": "{{message}}", "templated": true}"#, "$.rules[0].response.text: {{message}} is the client message"),
        (#"{"eventStream": {"events": [{"data": "plain"}]}, "templated": true}"#, "$.rules[0].response.templated: neither a header nor an event or message has a {{…}} hole"),
        (#"{"webSocket": {}, "status": 200}"#, "$.rules[0].response.status: a WebSocket answers 101"),
        (#"{"webSocket": {"onConnect": [{"text": "a", "json": 1}]}}"#, "$.rules[0].response.webSocket.onConnect[0]: give exactly one of text, json, binary (base64), ping, pong"),
        (#"{"webSocket": {"onConnect": [{"binary": "%%"}]}}"#, "$.rules[0].response.webSocket.onConnect[0].binary: not valid base64"),
        (#"{"webSocket": {"onConnect": [{"ping": "\#(String(repeating: "x", count: 126))"}]}}"#, "$.rules[0].response.webSocket.onConnect[0].ping: a control frame carries at most 125 bytes"),
        (#"{"webSocket": {"onConnect": [{"text": "{{message}}"}]}, "templated": true}"#, "$.rules[0].response.webSocket.onConnect[0].text: {{message}} is the client message"),
        (#"{"webSocket": {"onMessage": [{"match": {"equalTo": "a"}}]}}"#, "$.rules[0].response.webSocket.onMessage[0]: needs a reply, a close, or both"),
        (#"{"webSocket": {"onMessage": [{"match": {"equalTo": "a", "prefix": "b"}, "reply": []}]}}"#, "$.rules[0].response.webSocket.onMessage[0].match: give at most one of equalTo"),
        (#"{"webSocket": {"onMessage": [{"match": {"matches": "(("}, "reply": []}]}}"#, "$.rules[0].response.webSocket.onMessage[0].match.matches: not a valid regular expression"),
        (#"{"webSocket": {"onMessage": [{"match": {"matchesJsonPath": "a.b"}, "reply": []}]}}"#, "$.rules[0].response.webSocket.onMessage[0].match.matchesJsonPath: not a JSONPath"),
        (#"{"webSocket": {"onMessage": [{"match": {"matchesJsonPointer": "a"}, "reply": []}]}}"#, "$.rules[0].response.webSocket.onMessage[0].match.matchesJsonPointer: not a JSON Pointer"),
        (#"{"webSocket": {"onMessage": [{"match": {"type": "video"}, "reply": []}]}}"#, "$.rules[0].response.webSocket.onMessage[0].match.type: \"video\" is not one of"),
        (#"{"webSocket": {"pushes": [{"times": 2, "messages": [{"text": "x"}]}]}}"#, "$.rules[0].response.webSocket.pushes[0].every: required key is missing"),
        (#"{"webSocket": {"pushes": [{"every": 10, "messages": []}]}}"#, "$.rules[0].response.webSocket.pushes[0].messages: must not be empty"),
        (#"{"webSocket": {"close": {"code": 1005}}}"#, "$.rules[0].response.webSocket.close.code: 1005 may not be sent in a close frame"),
        (#"{"webSocket": {"close": {"withoutCode": true, "reason": "x"}}}"#, "$.rules[0].response.webSocket.close.reason: a close without a code has no reason"),
        (#"{"webSocket": {"close": {"reason": "\#(String(repeating: "x", count: 124))"}}}"#, "$.rules[0].response.webSocket.close.reason: a close reason is at most 123 bytes"),
        (#"{"webSocket": {"subprotocol": "a, b"}}"#, "$.rules[0].response.webSocket.subprotocol: a subprotocol is one token"),
        (#"{"status": 200, "streamFault": "burst"}"#, "$.rules[0].response.streamFault: a stream fault needs an eventStream or a webSocket"),
        (#"{"eventStream": {"events": [{"data": "a"}]}, "streamFault": "closeWithoutCode"}"#, "$.rules[0].response.streamFault: closeWithoutCode is a WebSocket's close frame"),
        (#"{"eventStream": {"events": [{"data": "a"}]}, "streamFault": {"close": {"code": 1011}}}"#, "$.rules[0].response.streamFault: close is a WebSocket's close frame"),
        (#"{"eventStream": {"events": [{"data": "a"}], "repeat": 2}, "streamFault": {"drop": {"after": 3}}}"#, "$.rules[0].response.streamFault: the stream sends 2 events; a fault after 3 never strikes"),
        (#"{"webSocket": {}, "streamFault": "sometimes"}"#, "$.rules[0].response.streamFault: \"sometimes\" is not one of"),
        (#"{"webSocket": {}, "streamFault": {"stall": {}, "drop": {}}}"#, "$.rules[0].response.streamFault: give exactly one of"),
        (#"{"webSocket": {}, "streamFault": {"slowDrip": {}}}"#, "$.rules[0].response.streamFault.slowDrip.interval: required key is missing"),
        (#"{"webSocket": {}, "streamFault": {"close": {"code": 1006}}}"#, "$.rules[0].response.streamFault.close.code: 1006 may not be sent"),
        (#"{"webSocket": {}, "streamFault": {"stall": {"after": -1}}}"#, "$.rules[0].response.streamFault.stall.after: must be between 0 and 1000000"),
        (#"{"webSocket": {}, "streamFault": {"drop": {"clean": "yes"}}}"#, "$.rules[0].response.streamFault.drop.clean: expected true or false"),
    ])
    func aBadStreamIsReportedWithItsPath(response: String, expected: String) {
        let problems = Self.problems(Self.rule(response))
        #expect(problems.contains { $0.hasPrefix(expected) }, "\(problems)")
    }

    @Test func streamFaultsByName() throws {
        let names: [(String, StreamFault)] = [
            ("burst", .burst), ("stall", .stall(after: 0, duration: nil)), ("drop", .drop(after: 0, clean: false)),
            ("malformed", .malformed(after: 0)), ("closeWithoutCode", .closeWithoutCode(after: 0)), ("endEarly", .endEarly(after: 0)),
        ]
        for (name, fault) in names {
            let scenario = try ScenarioFile.parse(Data(Self.rule(#"{"webSocket": {}, "streamFault": "\#(name)"}"#).utf8), file: "s.json")
            #expect(scenario.rules.first?.responses.outcomes.first?.streamFault == fault, "\(name)")
        }
        let objects: [(String, StreamFault)] = [
            (#"{"stall": {"after": 2, "for": 1500}}"#, .stall(after: 2, duration: 1.5)),
            (#"{"drop": {"after": 1, "clean": true}}"#, .drop(after: 1, clean: true)),
            (#"{"slowDrip": {"interval": 250}}"#, .slowDrip(interval: 0.25)),
            (#"{"malformed": {"after": 3}}"#, .malformed(after: 3)),
            (#"{"close": {"after": 4, "code": 1001}}"#, .close(after: 4, code: 1001, reason: "")),
            (#"{"closeWithoutCode": {"after": 5}}"#, .closeWithoutCode(after: 5)),
            (#"{"endEarly": {"after": 6}}"#, .endEarly(after: 6)),
        ]
        for (json, fault) in objects {
            let scenario = try ScenarioFile.parse(Data(Self.rule(#"{"webSocket": {}, "streamFault": \#(json)}"#).utf8), file: "s.json")
            #expect(scenario.rules.first?.responses.outcomes.first?.streamFault == fault, "\(json)")
            #expect(fault.json != .null)
        }
    }

    /// Request bodies match by a JSONPath's or a JSON Pointer's value too, as messages do.
    @Test func requestBodiesMatchByJSONPathAndPointer() throws {
        let json = #"{"version": 1, "name": "b", "rules": [{"name": "a", "request": {"path": "/o", "body": {"matchesJsonPath": {"expression": "$.items[0].id", "equalTo": "7"}}}, "response": {"status": 201}}, {"name": "b", "request": {"path": "/o", "body": {"matchesJsonPointer": "/note"}}, "response": {"status": 202}}]}"#
        let scenario = try ScenarioFile.parse(Data(json.utf8), file: "b.json")
        #expect(scenario.rules[0].request.body == .jsonValue(at: JSONLocation(path: "$.items[0].id")!, .equalTo("7")))
        #expect(scenario.rules[1].request.body == .jsonValue(at: JSONLocation(pointer: "/note")!, nil))
        let engine = try MockEngine(scenarios: [scenario], current: "b", source: ClosureResponder { _ in .error(404, "none") })
        func status(_ body: String) -> Int { engine.respond(to: MockRequest(method: "POST", uri: "/o", body: Data(body.utf8))).status }
        #expect(status(#"{"items": [{"id": 7}]}"#) == 201)
        #expect(status(#"{"items": [{"id": 8}], "note": null}"#) == 202)
        #expect(status(#"{"items": [{"id": 8}]}"#) == 404)
    }

    // MARK: The engine's plan

    static func engine(_ json: String = file, timeScale: Double = 1, seed: UInt64 = 0) throws -> MockEngine {
        let scenario = try ScenarioFile.parse(Data(json.utf8), file: "live.json")
        return try MockEngine(scenarios: [scenario], current: scenario.name, source: ClosureResponder { _ in .error(404, "none") },
                              seed: seed, timeScale: timeScale)
    }

    @Test func anEventStreamsPlanCarriesItsEventsFilledAndScaled() throws {
        let engine = try Self.engine(timeScale: 0.5)
        let plan = engine.respond(to: MockRequest(method: "POST", uri: "/v1/chat/completions", body: Data(#"{"model": "m\"1"}"#.utf8)))
        #expect(plan.status == 200)
        #expect(plan.body.isEmpty)
        #expect(plan.headers["Content-Type"] == "text/event-stream; charset=utf-8")
        #expect(plan.headers["Cache-Control"] == "no-cache")
        #expect(plan.headers["X-Request-Id"]?.count == 36)
        #expect(plan.isStream && plan.webSocket == nil && plan.streamFault == nil)
        let stream = try #require(plan.eventStream)
        #expect(stream.events.map(\.delay) == [0, 0.06, 0.06])
        #expect(stream.events.first?.data == .text(#"{"model":"m\"1","text":"Hel"}"#))
        #expect(stream.events.last?.data == .text("[DONE]"))
    }

    @Test func aWebSocketsPlanIs101ForAnUpgradeAnd426Otherwise() throws {
        let engine = try Self.engine(timeScale: 0.1)
        let plain = engine.respond(to: MockRequest(method: "GET", uri: "/chat/blue"))
        #expect(plain.status == 426)
        #expect(plain.headers["Upgrade"] == "websocket" && plain.headers["Sec-WebSocket-Version"] == "13")
        #expect(plain.webSocket == nil && !plain.isStream)
        let upgrade = MockRequest(method: "GET", uri: "/chat/blue", headers: [
            "Upgrade": "WebSocket", "Connection": "keep-alive, Upgrade", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
            "Sec-WebSocket-Version": "13", "Sec-WebSocket-Protocol": "other, chat.v1",
        ])
        let plan = engine.respond(to: upgrade)
        #expect(plan.status == 101)
        #expect(plan.headers["Sec-WebSocket-Protocol"] == "chat.v1")
        #expect(plan.webSocket?.close.map { abs($0.delay - 6) < 1e-9 } == true)
        #expect(plan.streamFault == .close(after: 10, code: 1011, reason: "overloaded"))
        var conversation = try #require(WebSocketConversation(plan: plan, request: upgrade))
        #expect(conversation.handle(.opened, at: 0).first == .send(.text(#"{"room":"blue","type":"welcome"}"#)))
        // Not offered, not agreed: no subprotocol header.
        var other = upgrade
        other.headers.remove("Sec-WebSocket-Protocol")
        #expect(engine.respond(to: other).headers["Sec-WebSocket-Protocol"] == nil)
        var old = upgrade
        old.headers.set("Sec-WebSocket-Version", "8")
        #expect(engine.respond(to: old).status == 426)
    }

    /// Chaos: a rule drawing stream faults by weight draws them from its seed, the same
    /// sequence run after run, and each kind as often as its weight says.
    @Test func streamFaultsAreDrawnFromTheSeed() throws {
        func draws(seed: UInt64) throws -> [StreamFault?] {
            let engine = try Self.engine(seed: seed)
            return (0..<400).map { _ in engine.respond(to: MockRequest(method: "GET", uri: "/feed")).streamFault }
        }
        let first = try draws(seed: 7)
        #expect(first == (try draws(seed: 7)))
        #expect(first != (try draws(seed: 8)))
        let dropped = first.filter { $0 == .drop(after: 1, clean: false) }.count
        #expect((70...130).contains(dropped), "a weight of 1 in 4 dropped \(dropped) of 400")
    }

    @Test func aStreamFaultIsScaledWithTheEngine() throws {
        let json = Self.rule(#"{"eventStream": {"events": [{"data": "a"}, {"data": "b", "delay": 100}]}, "streamFault": {"stall": {"after": 1, "for": 4000}}}"#)
        let plan = try Self.engine(json, timeScale: 0.25).respond(to: MockRequest(method: "GET", uri: "/s"))
        #expect(plan.streamFault == .stall(after: 1, duration: 1))
        #expect(plan.eventStream?.events.last?.delay == 0.025)
    }
}

import Foundation
import MockFixtures
@testable import OpenAPIDocumentAPI
import BuiltInMockAPIs
import MockCore
import Testing

/// A documented `text/event-stream` answer is played as Server-Sent Events: chosen by the
/// request's `stream: true` or its `Accept`, each event made from the event schema (or
/// taken from the example), seeded, and broken by the scenario's stream faults like any
/// stream. The events are checked against the document with the project's own validator,
/// not with the code that made them.
@Suite struct EventStreamTests {
    static let chat = "generated/chat.yaml"
    static let messages = "generated/messages.yaml"
    static let chatRequest = #"{"model": "gpt-mock", "messages": [{"role": "user", "content": "Hi"}], "stream": true}"#
    static let messageRequest = #"{"model": "claude-mock", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}], "stream": true}"#

    static func engine(_ name: String, seed: UInt64 = 0, strict: Bool = false, timeScale: Double = 1,
                       scenarios: [Scenario] = []) throws -> MockEngine {
        try MockEngine(configuration: EngineConfiguration(
            fixturesDirectory: MockFixtures.directory, apis: BuiltInAPIs.all + [Documents.api(name)],
            seed: seed, timeSource: FixedTimeSource(), extraScenarios: scenarios, scenario: scenarios.first?.name ?? Scenario.happyPath.name,
            timeScale: timeScale, strict: strict))
    }

    /// The document's own validator and the schema named `name` in its components.
    static func schema(_ document: String, _ name: String) throws -> (SchemaValidator, JSONValue) {
        let json = try Documents.api(document).document().json
        return (SchemaValidator(document: json), ["$ref": .string("#/components/schemas/\(name)")])
    }

    /// The bytes a plan's stream writes, played to its end, and how it ended.
    static func played(_ plan: ResponsePlan) -> (text: String, last: EventStreamPlayer.Step?) {
        guard let stream = plan.eventStream else { return ("", nil) }
        var player = EventStreamPlayer(stream: stream, fault: plan.streamFault)
        var text = ""
        var last: EventStreamPlayer.Step?
        while let step = player.next() {
            if case .write(let data, _) = step { text += String(decoding: data, as: UTF8.self) }
            last = step
        }
        return (text, last)
    }

    // MARK: Choosing the stream

    @Test func streamTrueAnswersAChatCompletionAsEventsValidAgainstTheChunkSchema() throws {
        let engine = try Self.engine(Self.chat)
        let (status, _, plan) = engine.send("POST", "/v1/chat/completions", json: Self.chatRequest)
        #expect(status == 200)
        #expect(plan.headers["Content-Type"] == "text/event-stream; charset=utf-8")
        #expect(plan.headers["Cache-Control"] == "no-cache")
        #expect(plan.body.isEmpty)
        let stream = try #require(plan.eventStream)
        #expect(DocumentEventStream.eventCounts.contains(stream.events.count))
        let (validator, chunk) = try Self.schema(Self.chat, "ChatCompletionChunk")
        // What a client reads off the wire, parsed by the test's own reading of the format.
        let (text, last) = Self.played(plan)
        let events = SSEText.events(text)
        #expect(events.count == stream.events.count)
        for event in events {
            let data = try #require(JSONValue(parsing: Data(event.data.utf8)), "not JSON: \(event.data)")
            #expect(validator.problems(data, against: chunk).isEmpty, "\(data): \(validator.problems(data, against: chunk))")
        }
        #expect(last == .end(at: stream.roundDuration), "the stream ends cleanly after its last event")
    }

    @Test func withoutStreamTheSameOperationAnswersJSON() throws {
        let engine = try Self.engine(Self.chat)
        let (validator, completion) = try Self.schema(Self.chat, "ChatCompletion")
        for body in [Self.chatRequest.replacingOccurrences(of: #", "stream": true"#, with: ""),
                     Self.chatRequest.replacingOccurrences(of: "true", with: "false")] {
            let (status, json, plan) = engine.send("POST", "/v1/chat/completions", json: body)
            #expect(status == 200)
            #expect(plan.eventStream == nil)
            #expect(plan.headers["Content-Type"] == "application/json; charset=utf-8")
            let value = try #require(json)
            #expect(validator.problems(value, against: completion).isEmpty)
        }
    }

    @Test func acceptingEventStreamAsksForTheStreamUnlessTheBodySaysStreamFalse() throws {
        let engine = try Self.engine(Self.chat)
        let unflagged = Self.chatRequest.replacingOccurrences(of: #", "stream": true"#, with: "")
        #expect(engine.send("POST", "/v1/chat/completions", json: unflagged, headers: ["Accept": "text/event-stream"]).plan.eventStream != nil)
        #expect(engine.send("POST", "/v1/chat/completions", json: unflagged,
                            headers: ["Accept": "application/json, text/event-stream;q=0.5"]).plan.eventStream != nil)
        #expect(engine.send("POST", "/v1/chat/completions", json: unflagged, headers: ["Accept": "text/event-stream;q=0"]).plan.eventStream == nil)
        let off = Self.chatRequest.replacingOccurrences(of: "true", with: "false")
        #expect(engine.send("POST", "/v1/chat/completions", json: off, headers: ["Accept": "text/event-stream"]).plan.eventStream == nil)
        // An operation without a documented stream answers JSON whatever is accepted.
        let models = engine.send("GET", "/v1/models", headers: ["Accept": "text/event-stream"])
        #expect(models.plan.eventStream == nil)
        #expect(models.body?["object"] == "list")
    }

    @Test func theSameSeedPlaysTheSameStreamAndAnotherSeedAnother() throws {
        func events(_ seed: UInt64) throws -> [ServerSentEvent] {
            try #require(Self.engine(Self.chat, seed: seed).send("POST", "/v1/chat/completions", json: Self.chatRequest).plan.eventStream).events
        }
        let first = try events(7)
        #expect(try events(7) == first)
        #expect(try events(8) != first)
        #expect(first.first?.delay == 0)
        for event in first.dropFirst() { #expect(DocumentEventStream.delays.contains(event.delay)) }
    }

    @Test func theEnginesTimeScaleScalesTheEventsDelays() throws {
        let plain = try #require(Self.engine(Self.chat, seed: 3).send("POST", "/v1/chat/completions", json: Self.chatRequest).plan.eventStream)
        let scaled = try #require(Self.engine(Self.chat, seed: 3, timeScale: 0.5).send("POST", "/v1/chat/completions", json: Self.chatRequest).plan.eventStream)
        #expect(scaled.events.map(\.delay) == plain.events.map { $0.delay * 0.5 })
        #expect(scaled.roundDuration > 0)
    }

    // MARK: OpenAPI 3.2's itemSchema, and examples

    @Test func anItemSchemasEventsKeepItAndTheirDataKeepsItsContentSchema() throws {
        let (validator, item) = try Self.schema(Self.messages, "MessageStreamEvent")
        let dataSchemas = ["message_start": "MessageStart", "content_block_delta": "ContentBlockDelta", "message_stop": "MessageStop", "ping": "Ping"]
        var names = Set<String>()
        for seed: UInt64 in 0..<4 {
            let plan = try Self.engine(Self.messages, seed: seed).send("POST", "/v1/messages", json: Self.messageRequest).plan
            #expect(plan.eventStream != nil)
            for event in SSEText.events(Self.played(plan).text) {
                var object: [String: JSONValue] = ["data": .string(event.data)]
                if let name = event.event { object["event"] = .string(name) }
                #expect(validator.problems(.object(object), against: item).isEmpty, "\(object)")
                let name = try #require(event.event)
                names.insert(name)
                let schema = try Self.schema(Self.messages, try #require(dataSchemas[name])).1
                let data = try #require(JSONValue(parsing: Data(event.data.utf8)))
                #expect(validator.problems(data, against: schema).isEmpty, "\(name): \(data)")
                #expect(data["type"] == .string(name))
            }
        }
        // A oneOf's branches are drawn per event, not the first every time.
        #expect(names.count >= 3, "event kinds seen: \(names.sorted())")
    }

    @Test func anEventStreamTextExampleIsSplitIntoItsEvents() throws {
        let engine = try Self.engine(Self.messages)
        // The operation documents only the stream: it is answered without being asked for.
        let plan = engine.send("POST", "/v1/complete", json: #"{"prompt": "Hi"}"#).plan
        let stream = try #require(plan.eventStream)
        #expect(stream.events.map(\.event) == ["completion", "completion", "done"])
        #expect(stream.events.map(\.id) == ["1", "2", "3"])
        #expect(stream.events.map { $0.data?.content } == ["Hello", ", world", "[DONE]"])
        #expect(Self.played(plan).text == "id: 1\nevent: completion\ndata: Hello\n\nid: 2\nevent: completion\ndata: , world\n\nid: 3\nevent: done\ndata: [DONE]\n\n")
        // Prefer: dynamic=true makes the events from the itemSchema instead.
        let dynamic = try #require(engine.send("POST", "/v1/complete", json: #"{"prompt": "Hi"}"#, headers: ["Prefer": "dynamic=true"]).plan.eventStream)
        #expect(dynamic.events.map { $0.data?.content } != ["Hello", ", world", "[DONE]"])
        #expect(DocumentEventStream.eventCounts.contains(dynamic.events.count))
    }

    /// In a 3.1 document, a `schema` of an event object's fields describes the event (as
    /// Schemathesis reads it), not its data; its optional `data` is always made.
    @Test func aSchemaOfTheEventsOwnFieldsIsReadAsTheEvent() throws {
        let folder = try Documents.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("ticks.yaml")
        try Data("""
            openapi: 3.1.0
            info: {title: Ticks, version: "1"}
            paths:
              /ticks:
                get:
                  responses:
                    "200":
                      description: Ticks
                      content:
                        text/event-stream:
                          schema:
                            type: object
                            properties:
                              event: {const: tick}
                              data: {type: string, pattern: "^[0-9]{3}$"}
            """.utf8).write(to: file)
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory,
                                                                       apis: [OpenAPIDocumentAPI(contentsOf: file)], timeSource: FixedTimeSource()))
        let events = try #require(engine.send("GET", "/ticks").plan.eventStream?.events)
        #expect(DocumentEventStream.eventCounts.contains(events.count))
        for event in events {
            #expect(event.event == "tick")
            #expect(event.data?.content.wholeMatch(of: /[0-9]{3}/) != nil, "\(String(describing: event.data))")
        }
    }

    @Test func readingTheFormatFollowsTheStandard() {
        let events = DocumentEventStream.parse("data: a\r\ndata:b\n\n: comment\n\nevent: x\nretry: 300\nretry: soon\nunknown: 1\nid\n\ndata: tail")
        #expect(events.map { $0.data?.content } == ["a\nb", nil, "tail"])
        #expect(events[1].event == "x")
        #expect(events[1].retry == 300)
        #expect(events[1].id == "")
    }

    @Test func validateNamesAStreamsExamplesThatHoldNoEventsOrBreakTheEventSchema() throws {
        let folder = try Documents.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("feed.yaml")
        try Data("""
            openapi: 3.1.0
            info: {title: Feed, version: "1"}
            paths:
              /feed:
                get:
                  responses:
                    "200":
                      description: Ticks
                      content:
                        text/event-stream:
                          schema: {type: object, required: [n], properties: {n: {type: integer}}}
                          examples:
                            words: {value: "just words"}
                            wrong: {value: "data: {\\"n\\": \\"one\\"}\\n\\n"}
                            right: {value: "data: {\\"n\\": 1}\\n\\n"}
              /bare:
                get:
                  responses:
                    "200": {description: Text, content: {text/event-stream: {}}}
            """.utf8).write(to: file)
        let document = try OpenAPIDocumentAPI.read(file)
        let messages = document.notes.map(\.message)
        #expect(messages.contains { $0.contains(#"the example "words" holds no events"#) }, "\(messages)")
        #expect(messages.contains { $0.contains(#"event 1 of the example "wrong" breaks its event schema"#) }, "\(messages)")
        #expect(!messages.contains { $0.contains(#""right""#) })
        #expect(messages.contains { $0.contains("GET /bare 200 text/event-stream has no itemSchema, schema or example") }, "\(messages)")
        // The example that keeps its schema is the one played; the others only by name.
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory,
                                                                       apis: [OpenAPIDocumentAPI(contentsOf: file)], timeSource: FixedTimeSource()))
        #expect(engine.send("GET", "/feed").plan.eventStream?.events.map { $0.data?.content } == [#"{"n": 1}"#])
        #expect(engine.send("GET", "/feed", headers: ["Prefer": "example=wrong"]).plan.eventStream?.events.map { $0.data?.content } == [#"{"n": "one"}"#])
        #expect(engine.send("GET", "/feed", headers: ["Prefer": "example=none"]).status == 400)
    }

    // MARK: Strict, faults, profiles

    @Test func strictChecksAStreamingRequestAsAnyOther() throws {
        let engine = try Self.engine(Self.chat, strict: true)
        #expect(engine.send("POST", "/v1/chat/completions", json: Self.chatRequest).plan.eventStream != nil)
        let bad = engine.send("POST", "/v1/chat/completions", json: Self.chatRequest.replacingOccurrences(of: "true", with: #""yes""#))
        #expect(bad.status == 400)
        #expect(bad.plan.eventStream == nil)
    }

    @Test func aScenariosStreamFaultBreaksADocumentsStream() throws {
        let rule = Rule("cut", .post("/v1/chat/completions"), always: Outcome.simulator.streamFaulted(.drop(after: 2, clean: false)))
        let engine = try Self.engine(Self.chat, scenarios: [Scenario(name: "cut", rules: [rule])])
        let plan = engine.send("POST", "/v1/chat/completions", json: Self.chatRequest).plan
        #expect(plan.streamFault == .drop(after: 2, clean: false))
        let (text, last) = Self.played(plan)
        #expect(SSEText.events(text).count == 2)
        if case .drop? = last {} else { Issue.record("the stream ends with \(String(describing: last)), not a reset") }
    }

    @Test func aScenarioFileFaultsTheAPIsOwnStream() throws {
        let json = #"{"version": 1, "name": "flaky", "rules": [{"name": "cut", "request": {"method": "POST", "path": "/v1/chat/completions"},"#
            + #" "response": {"simulator": true, "streamFault": {"endEarly": {"after": 1}}}}]}"#
        let scenario = try ScenarioFile.parse(Data(json.utf8), file: "flaky.json")
        let engine = try Self.engine(Self.chat, scenarios: [scenario])
        let plan = engine.send("POST", "/v1/chat/completions", json: Self.chatRequest).plan
        #expect(plan.streamFault == .endEarly(after: 1))
        // The same rule over the JSON answer leaves it whole.
        let whole = engine.send("POST", "/v1/chat/completions", json: Self.chatRequest.replacingOccurrences(of: "true", with: "false"))
        #expect(whole.plan.streamFault == nil)
        #expect(whole.body?["object"] == "chat.completion")
    }

    @Test func aNetworkProfileShapesADocumentsStream() throws {
        let engine = try Self.engine(Self.chat)
        let plan = engine.send("POST", "/v1/chat/completions", json: Self.chatRequest, headers: [NetworkConditions.header: "3G"]).plan
        #expect(plan.eventStream != nil)
        #expect(plan.network?.name == "3G")
        #expect(plan.delay > 0)
    }
}

/// The events of event-stream text as a client reads them (WHATWG HTML): fields up to an
/// empty line, `data` lines joined with LF, comments left out; an event without data is
/// not dispatched. Written apart from the code under test.
enum SSEText {
    struct Event: Equatable {
        var event: String?
        var id: String?
        var data: String
    }

    static func events(_ text: String) -> [Event] {
        var events: [Event] = []
        for block in text.components(separatedBy: "\n\n") where !block.isEmpty {
            var event = Event(data: "")
            var data: [String] = []
            for line in block.split(separator: "\n") where !line.hasPrefix(":") {
                let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                let value = parts.count > 1 ? String(parts[1].hasPrefix(" ") ? parts[1].dropFirst() : parts[1]) : ""
                switch parts[0] {
                case "event": event.event = value
                case "id": event.id = value
                case "data": data.append(value)
                default: break
                }
            }
            guard !data.isEmpty else { continue }
            event.data = data.joined(separator: "\n")
            events.append(event)
        }
        return events
    }
}

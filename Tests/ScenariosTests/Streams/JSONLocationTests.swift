import Foundation
import Testing
@testable import MockCore

@Suite struct JSONLocationTests {
    static let document: JSONValue = ["a": ["b": [10, ["c d": "x"]]], "a/b": 1, "m~n": 2, "0": "key", "list": ["first"]]

    @Test func aJSONPathFindsKeysAndIndices() {
        #expect(JSONLocation(path: "$.a.b[0]")?.value(in: Self.document) == 10)
        #expect(JSONLocation(path: "$.a.b[1]['c d']")?.value(in: Self.document) == "x")
        #expect(JSONLocation(path: "$")?.value(in: Self.document) == Self.document)
        #expect(JSONLocation(path: "$.a.b[5]")?.value(in: Self.document) == nil)
        #expect(JSONLocation(path: "$.nope.deeper")?.value(in: Self.document) == nil)
        #expect(JSONLocation(path: "a.b") == nil)
        #expect(JSONLocation(path: "$.a[") == nil)
    }

    @Test func aJSONPointerFollowsRFC6901() {
        #expect(JSONLocation(pointer: "/a/b/0")?.value(in: Self.document) == 10)
        #expect(JSONLocation(pointer: "/a~1b")?.value(in: Self.document) == 1)
        #expect(JSONLocation(pointer: "/m~0n")?.value(in: Self.document) == 2)
        #expect(JSONLocation(pointer: "/0")?.value(in: Self.document) == "key")
        #expect(JSONLocation(pointer: "")?.value(in: Self.document) == Self.document)
        #expect(JSONLocation(pointer: "/list/01")?.value(in: Self.document) == nil)
        #expect(JSONLocation(pointer: "/list/-")?.value(in: Self.document) == nil)
        #expect(JSONLocation(pointer: "a") == nil)
    }

    @Test func aBodyMatchesByTheValueAtALocation() {
        let body = Data(#"{"order": {"items": [{"id": 3, "tags": ["x"]}], "paid": true}}"#.utf8)
        #expect(BodyPattern.jsonValue(at: JSONLocation(path: "$.order.items[0].id")!, .equalTo("3")).matches(body))
        #expect(BodyPattern.jsonValue(at: JSONLocation(pointer: "/order/paid")!, .equalTo("true")).matches(body))
        #expect(BodyPattern.jsonValue(at: JSONLocation(pointer: "/order/items/0/tags")!, .equalTo(#"["x"]"#)).matches(body))
        #expect(BodyPattern.jsonValue(at: JSONLocation(path: "$.order.paid")!, nil).matches(body))
        #expect(!BodyPattern.jsonValue(at: JSONLocation(path: "$.order.refund")!, nil).matches(body))
        #expect(!BodyPattern.jsonValue(at: JSONLocation(path: "$.order.items[0].id")!, .matches("[4-9]")).matches(body))
        #expect(!BodyPattern.jsonValue(at: JSONLocation(path: "$")!, nil).matches(Data("not json".utf8)))
        #expect(BodyPattern.jsonValue(at: JSONLocation(path: "$.a")!, .equalTo("1")).description == #"JSON at $.a == "1""#)
    }

    @Test func templatesReadTheMessageARepliesAnswers() throws {
        let template = try ResponseTemplate(#"{{message}} / {{jsonPath message '$.user.name'}} / {{request.query.room}}"#)
        #expect(template.readsMessage)
        #expect(try !ResponseTemplate("{{request.body}}").readsMessage)
        var context = ResponseTemplate.Context(request: MockRequest(method: "GET", uri: "/ws?room=7"), generator: SeededRandom(seed: 0),
                                               message: Data(#"{"user": {"name": "Ann"}}"#.utf8))
        #expect(template.render(&context, escaping: .none) == #"{"user": {"name": "Ann"}} / Ann / 7"#)
        // Outside a reply there is no message: its holes are empty.
        var plain = ResponseTemplate.Context(request: MockRequest(method: "GET", uri: "/"), generator: SeededRandom(seed: 0))
        #expect(template.render(&plain, escaping: .none) == " /  / ")
        #expect(throws: TemplateError.self) { try ResponseTemplate("{{jsonPath message 'a'}}") }
    }
}

@testable import OpenAPIDocumentAPI
import MockCore
import Testing

/// Notes name places with RFC 6901 pointers: `~` and `/` in a key are escaped, and a
/// pointer resolves back to the value it names.
@Suite struct JSONPointerTests {
    @Test(arguments: [
        ("/pets/{id}", "~1pets~1{id}"),
        ("a~b", "a~0b"),
        ("~/", "~0~1"),
        ("application/json", "application~1json"),
        ("plain", "plain"),
        ("día/ñ~", "día~1ñ~0"),
    ])
    func escapesTildeAndSlash(key: String, escaped: String) {
        #expect(JSONPointer.escape(key) == escaped)
        #expect(JSONPointer.unescape(Substring(escaped)) == key)
    }

    @Test func aPointerOfKeysResolvesToItsValue() {
        let document: JSONValue = ["paths": ["/pets/{id}": ["get": ["responses": ["200": ["description": "ok"]]]]]]
        let pointer = JSONPointer.pointer(["paths", "/pets/{id}", "get", "responses", "200", "description"])
        #expect(pointer == "/paths/~1pets~1{id}/get/responses/200/description")
        #expect(JSONPointer.resolve(pointer, in: document) == "ok")
    }
}

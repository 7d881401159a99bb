import Foundation
import MockCore
import Testing

/// What documents other than the shipped ones use: a `servers` path, parameters by
/// `$ref` and on the path item, array query parameters, API keys in the query, and the
/// schema keywords beyond the shipped documents'.
@Suite struct RequestConformanceDocumentTests {
    static let document: JSONValue = [
        "openapi": "3.1.0",
        "servers": [["url": "https://api.example.com/v1"]],
        "paths": [
            "/items/{id}": [
                "parameters": [["name": "id", "in": "path", "required": true, "schema": ["type": "integer"]]],
                "get": ["parameters": [["$ref": "#/components/parameters/limit"],
                                       ["name": "tags", "in": "query", "schema": ["type": "array", "items": ["type": "string", "enum": ["a", "b"]]]]],
                        "responses": ["200": ["description": "ok"]]],
                "post": ["requestBody": ["$ref": "#/components/requestBodies/Item"], "responses": ["201": ["description": "ok"]]],
            ],
        ],
        "components": [
            "parameters": ["limit": ["name": "limit", "in": "query", "schema": ["type": "integer", "maximum": 10]]],
            "requestBodies": ["Item": ["required": true, "content": ["application/json": ["schema": [
                "type": "object", "required": ["name"],
                "properties": ["name": ["type": "string", "minLength": 2],
                               "kind": ["oneOf": [["type": "string"], ["type": "integer"]]]]]]]]],
            "securitySchemes": ["key": ["type": "apiKey", "in": "query", "name": "api_key"]],
        ],
    ]

    let conformance = RequestConformance(documents: [Self.document])

    func violations(_ method: String, _ uri: String, body: String? = nil) -> [String]? {
        var headers = HeaderFields()
        if body != nil { headers.set("Content-Type", "application/json") }
        return conformance.violations(of: MockRequest(method: method, uri: uri, headers: headers, body: Data((body ?? "").utf8)))?.map(\.description)
    }

    @Test func pathsAreUnderTheServersPath() {
        #expect(violations("GET", "/items/3") == nil)
        #expect(violations("GET", "/v1/items/3") == [])
        #expect(violations("GET", "/v1/items/x")?.first?.hasPrefix("$.path.id") == true)
        #expect(RequestConformance.basePaths(of: Self.document) == ["/v1"])
        #expect(RequestConformance.basePaths(of: ["servers": [["url": "/api/"], ["url": "{scheme}://h/{base}", "variables": ["base": ["default": "v2"]]]]]) == ["/api", "/v2"])
        #expect(RequestConformance.basePaths(of: [:]) == [""])
    }

    @Test func referencedAndArrayParametersAreChecked() {
        #expect(violations("GET", "/v1/items/3?limit=11")?.first?.hasPrefix("$.query.limit") == true)
        #expect(violations("GET", "/v1/items/3?limit=5&tags=a&tags=b") == [])
        #expect(violations("GET", "/v1/items/3?tags=c")?.first?.hasPrefix("$.query.tags[0]") == true)
        #expect(violations("GET", "/v1/items/3?api_key=k") == [], "a credential is no unknown parameter")
    }

    /// Form bodies are read as the object their schema describes; empty names and values
    /// are read, not trapped on.
    @Test func formBodiesAreChecked() {
        let form = RequestConformance(documents: [[
            "openapi": "3.1.0",
            "paths": ["/f": ["post": ["requestBody": ["content": ["application/x-www-form-urlencoded": ["schema": [
                "type": "object", "required": ["n"], "properties": ["n": ["type": "integer", "format": "int32"], "tags": ["type": "array", "items": ["type": "string"]]]]]]],
                                      "responses": ["200": ["description": "ok"]]]]],
        ]])
        func check(_ body: String) -> [String]? {
            form.violations(of: MockRequest(method: "POST", uri: "/f", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(body.utf8)))?.map(\.description)
        }
        #expect(check("n=3&tags=a&tags=b") == [])
        #expect(check("n=3") == [], "a list left out is empty")
        #expect(check("n=2147483648")?.first?.contains("int32") == true)
        #expect(check("=&=x&n=1") != nil)
        #expect(check("tags=a")?.first?.contains("\"n\"") == true)
    }

    @Test func referencedBodiesAndNewKeywordsAreChecked() {
        #expect(violations("POST", "/v1/items/3", body: #"{"name": "ok", "kind": 2}"#) == [])
        #expect(violations("POST", "/v1/items/3", body: #"{"name": "x"}"#)?.first?.contains("at least 2") == true)
        #expect(violations("POST", "/v1/items/3", body: #"{"name": "ok", "kind": true}"#)?.first?.contains("oneOf") == true)
        #expect(violations("POST", "/v1/items/3")?.first?.contains("required body") == true)
    }
}

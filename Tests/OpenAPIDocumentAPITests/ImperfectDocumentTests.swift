import Foundation
import MockFixtures
@testable import OpenAPIDocumentAPI
import BuiltInMockAPIs
import MockCore
import Testing

/// Real documents are imperfect: the mock repairs their common mistakes, skips what
/// cannot be read (saying what, where), and serves the rest.
@Suite struct ImperfectDocumentTests {
    private func notes(_ name: String) throws -> [DocumentNote] {
        try Documents.api(name).document().notes
    }

    private func note(_ notes: [DocumentNote], _ kind: DocumentNote.Kind, at pointer: String) -> DocumentNote? {
        notes.first { $0.kind == kind && $0.pointer == pointer }
    }

    @Test func threeZeroWordsInA31DocumentAreRepairedAtTheirPointers() throws {
        let notes = try notes("generated/imperfect.yaml")
        let temperature = "/components/schemas/CompletionRequest/properties/temperature"
        let exclusive = try #require(note(notes, .repaired, at: temperature + "/exclusiveMinimum"), "\(notes)")
        #expect(exclusive.message.contains("exclusiveMinimum: true") && exclusive.message.contains("exclusiveMinimum: 0"), "\(exclusive)")
        #expect(note(notes, .repaired, at: temperature + "/nullable") != nil, "\(notes)")
        #expect(note(notes, .repaired, at: "/components/schemas/CompletionRequest/properties/model/example") != nil, "\(notes)")
        let schema = try Documents.api("generated/imperfect.yaml").document().json["components"]?["schemas"]?["CompletionRequest"]?["properties"]?["temperature"]
        #expect(schema?["exclusiveMinimum"] == 0 && schema?["minimum"] == nil, "\(String(describing: schema))")
        #expect(SchemaValidator.typeNames(schema?["type"] ?? .null) == ["number", "null"], "\(String(describing: schema))")
    }

    @Test func boundsBeyondInt64FormatsAndDescriptionsAreRepaired() throws {
        let notes = try notes("generated/imperfect.yaml")
        let properties = "/components/schemas/CompletionRequest/properties"
        let bound = try #require(note(notes, .repaired, at: properties + "/max_tokens/maximum"), "\(notes)")
        #expect(bound.message.contains("64-bit integer") && bound.message.contains("int64"), "\(bound)")
        #expect(note(notes, .repaired, at: properties + "/seed/minimum") != nil, "\(notes)")
        #expect(note(notes, .repaired, at: properties + "/user/format")?.message.contains("\"uuid\"") == true, "\(notes)")
        // `format: UUID` read as uuid, then its own example shows it is used loosely: not checked.
        let user = try Documents.api("generated/imperfect.yaml").document().json["components"]?["schemas"]?["CompletionRequest"]?["properties"]?["user"]
        #expect(user?["format"] == nil, "\(String(describing: user))")
        #expect(note(notes, .repaired, at: "/components/schemas/Completion/properties/link/format")?.message.contains("loosely") == true, "\(notes)")
        #expect(note(notes, .repaired, at: "/components/schemas/File/properties/created_at/format") != nil, "\(notes)")
        #expect(note(notes, .repaired, at: "/components/schemas/File/properties/bytes/required") != nil, "\(notes)")
        #expect(note(notes, .repaired, at: "/paths/~1completions/post/responses/400")?.message.contains("description") == true, "\(notes)")
        let duplicate = try #require(note(notes, .repaired, at: "/paths/~1settings/put/operationId"), "\(notes)")
        #expect(duplicate.message.contains("listThings_2"), "\(duplicate)")
        let document = try Documents.api("generated/imperfect.yaml").document()
        #expect(document.operations.map(\.name).contains("listThings_2"))
        #expect(document.json["components"]?["schemas"]?["File"]?["required"]?.arrayValue?.contains("bytes") == true)
    }

    @Test func whatCannotBeReadIsSkippedNamingItAndTheRestIsServed() throws {
        let notes = try notes("generated/imperfect.yaml")
        let skipped = notes.filter { $0.kind == .skipped }
        #expect(skipped.contains { $0.pointer == "/paths/~1broken/get/responses" && $0.message.contains("GET /broken") }, "\(skipped)")
        #expect(skipped.contains { $0.pointer == "/components/schemas/Bad/type" && $0.message.contains("Bad") }, "\(skipped)")
        #expect(skipped.contains { $0.message.contains("GET /uses-bad-schema") && $0.message.contains("#/components/schemas/Bad") }, "\(skipped)")
        let dangling = try #require(skipped.first { $0.message.contains("GET /dangling") }, "\(skipped)")
        #expect(dangling.message.contains("#/components/schemas/Missing"), "the reference it could not find: \(dangling)")
        #expect(dangling.pointer == "/paths/~1dangling/get/responses/200/content/application~1json/schema/$ref", "\(dangling)")
        #expect(skipped.contains { $0.message.contains("the example \"linked\"") }, "\(skipped)")

        let engine = try Documents.engine("generated/imperfect.yaml")
        #expect(engine.send("GET", "/imperfect/broken").status == 404, "a skipped operation is not served")
        #expect(engine.send("GET", "/imperfect/dangling").status == 404)
        let created = engine.send("POST", "/imperfect/completions", json: #"{"model": "small-1", "prompt": "Hi", "temperature": 0.5}"#)
        #expect(created.status == 200)
        #expect(created.body?["text"]?.stringValue != nil, "\(String(describing: created.body))")
        let served = try Documents.api("generated/imperfect.yaml").document().json
        #expect(served["paths"]?["/broken"]?["get"] == nil && served["components"]?["schemas"]?["Bad"] == nil)
    }

    @Test func aDocumentNothingOfWhichCanBeServedIsRefusedWithItsProblems() throws {
        let folder = try Documents.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("nothing.yaml")
        try Data("""
            openapi: 3.1.0
            info: { title: Nothing, version: '1' }
            paths:
              /a: { get: { responses: 7 } }
              /b: { get: { responses: { '200': { description: x, content: { application/json: { schema: { $ref: '#/components/schemas/Gone' } } } } } } }
            """.utf8).write(to: file)
        let error = #expect(throws: FixtureError.self) { try OpenAPIDocumentAPI.read(file) }
        let problems = error?.problems ?? []
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains { $0.file == file.path && $0.jsonPath == "/paths/~1a/get/responses" }, "\(problems)")
        #expect(problems.contains { $0.jsonPath.hasSuffix("/schema/$ref") && $0.reason.contains("#/components/schemas/Gone") }, "\(problems)")
    }

    /// A path keyed with a fragment (`/shared#folders`, as some generated documents key a
    /// second operation on one URL) is named at start: a request reaches the plain path.
    @Test func aPathWithAFragmentIsNamedAsNotServed() throws {
        let folder = try Documents.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("fragments.yaml")
        try Data("""
            openapi: 3.0.2
            info: { title: Fragments, version: '1' }
            paths:
              /shared:
                get: { responses: { '200': { description: x, content: { application/json: { example: { type: file } } } } } }
              /shared#folders:
                get: { responses: { '200': { description: x, content: { application/json: { example: { type: folder } } } } } }
            """.utf8).write(to: file)
        let api = try OpenAPIDocumentAPI(contentsOf: file, name: "fragments")
        let notes = try api.document().notes
        let note = try #require(notes.first { $0.kind == .notServed && $0.pointer == "/paths/~1shared#folders" }, "\(notes)")
        #expect(note.message == "/shared#folders: a request's path carries no fragment, so it reaches /shared, never this path's operations")
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory, apis: [api]))
        #expect(engine.send("GET", "/shared").body == ["type": "file"])
    }

    @Test func aSwagger20DocumentIsConvertedAndServed() throws {
        let document = try Documents.api("generated/swagger.json").document()
        #expect(document.declaredVersion == "2.0")
        #expect(document.basePaths == ["/v1"])
        #expect(try Documents.api("generated/swagger.json").hosts == ["inventory.example"])
        #expect(document.json["components"]?["schemas"]?["Item"] != nil)
        let upload = document.json["paths"]?["/items/{id}/photo"]?["post"]?["requestBody"]?["content"]?["multipart/form-data"]?["schema"]
        #expect(upload?["properties"]?["photo"] == ["type": "string", "format": "binary"], "\(String(describing: upload))")
        #expect(upload?["required"] == ["photo"])
        let engine = try Documents.engine("generated/swagger.json", strict: true)
        let listed = engine.send("GET", "/v1/items?limit=5&tags=a,b")
        #expect(listed.status == 200, "\(String(describing: listed.body))")
        #expect(listed.body == [["id": 1, "name": "bolt", "tags": ["metal"]]], "the 2.0 example")
        #expect(engine.send("GET", "/v1/items?limit=500").status == 400, "the global parameter's bound")
        let created = engine.send("POST", "/v1/items", json: #"{"name": "nut"}"#)
        #expect(created.status == 201)
        #expect(created.body?["name"] == "nut")
        #expect(created.plan.headers["X-Rate-Limit"] != nil)
        #expect(engine.send("POST", "/v1/items", json: #"{"tags": []}"#).status == 422, "a body parameter's schema is checked")
        #expect(engine.send("DELETE", "/v1/items/1").status == 401, "securityDefinitions are read")
        let deleted = engine.send("DELETE", "/v1/items/\(created.body?["id"]?.intValue ?? 0)", headers: ["X-API-Key": "k"])
        #expect(deleted.status == 204)
    }
}

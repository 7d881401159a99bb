import Foundation
@testable import OpenAPIDocumentAPI
import MockCore
import Testing

/// Every operation answers under the servers' path, with the document's example or a
/// value made from its schema, valid against it and the same for the same seed.
@Suite struct ServingTests {
    /// A concrete path for a template: each parameter replaced by a value of its schema.
    static func concrete(_ operation: DocumentOperation, _ document: OpenAPIDocument) -> String {
        var path = operation.path
        let parameters = (document.json["paths"]?[operation.path]?["parameters"]?.arrayValue ?? [])
            + (document.json["paths"]?[operation.path]?[operation.method.lowercased()]?["parameters"]?.arrayValue ?? [])
        for parameter in parameters.map(document.validator.resolved) where parameter["in"] == "path" {
            guard let name = parameter["name"]?.stringValue else { continue }
            var random = SeededRandom(seed: 1)
            let value = SchemaSampler(document: document.json, direction: .request).sample(parameter["schema"] ?? [:], using: &random)
            path = path.replacingOccurrences(of: "{\(name)}", with: DocumentAnswers.text(value))
        }
        return path
    }

    @Test(arguments: ["petstore.yaml", "catalog.json"])
    func everyOperationAnswersWithABodyValidAgainstItsSchema(file: String) throws {
        let document = try Documents.api(file).document()
        let engine = try Documents.engine(file, stateful: false)
        for operation in document.operations {
            let base = document.basePaths[0]
            var body: String?
            if let schema = operation.requestSchema {
                var random = SeededRandom(seed: 3)
                body = "\(SchemaSampler(document: document.json, direction: .request).sample(schema, using: &random))"
            }
            let (status, json, plan) = engine.send(operation.method, base + Self.concrete(operation, document), json: body)
            let index = try #require(operation.primary)
            let response = operation.responses[index]
            #expect(status == response.status, "\(operation.name): \(status) \(String(decoding: plan.body, as: UTF8.self))")
            #expect(plan.answeredBy == "\(OpenAPIDocumentAPI.name(of: Documents.url(file))).\(operation.name)")
            guard let content = response.contents.first, content.isJSON, let schema = content.schema else { continue }
            let value = try #require(json, "\(operation.name) answered no JSON")
            let problems = document.validator.problems(value, against: schema)
            #expect(problems.isEmpty, "\(operation.name): \(problems) in \(value)")
            for header in response.headers {
                #expect(plan.headers[header.name] != nil, "\(operation.name) lacks \(header.name)")
            }
        }
    }

    @Test func theDocumentsExampleIsTheAnswer() throws {
        let engine = try Documents.engine("petstore.yaml", stateful: false)
        let (status, body, plan) = engine.send("GET", "/api/pets")
        #expect(status == 200)
        #expect(body == [], "the examples' first by name, \"none\"")
        #expect(engine.send("GET", "/api/pets", headers: ["Prefer": "example=two"]).body
                == [["id": 1, "name": "Rex", "tag": "dog"], ["id": 2, "name": "Tom", "tag": "cat"]])
        #expect(plan.headers["Content-Type"]?.hasPrefix("application/json") == true)
        #expect(engine.send("GET", "/pets").status == 404, "served under the servers' path only")
        #expect(engine.send("GET", "/api/pets", base: "https://api.pets.example").status == 200)
        #expect(engine.send("GET", "/menu", base: "https://api.pets.example").status == 404, "its host is its own")
        #expect(engine.send("DELETE", "/api/pets/1").status == 204)
    }

    @Test func preferPicksADocumentedStatusOrANamedExample() throws {
        let engine = try Documents.engine("petstore.yaml", stateful: false)
        let missing = engine.send("GET", "/api/pets/1", headers: ["Prefer": "code=404"])
        #expect(missing.status == 404)
        #expect(missing.body == ["code": 404, "message": "no such pet"])
        #expect(engine.send("GET", "/api/pets", headers: ["Prefer": "example=two"]).body?.arrayValue?.count == 2)
        let unknown = engine.send("GET", "/api/pets", headers: ["Prefer": "code=503"])
        #expect(unknown.status == 400)
        #expect(unknown.body?["reason"]?.stringValue?.contains("200") == true)
        #expect(engine.send("GET", "/api/pets", headers: ["Prefer": "example=three"]).status == 400)
        // A range or default answers the status asked for.
        let catalog = try Documents.engine("catalog.json", stateful: false)
        let failed = catalog.send("GET", "/v2/categories/books/tree", headers: ["Prefer": "code=503"])
        #expect(failed.status == 503)
        #expect(failed.body?["title"] != nil)
    }

    @Test func generatedBodiesAreTheSameForASeedAndDifferForAnother() throws {
        func bodies(_ seed: UInt64) throws -> [Data] {
            let engine = try Documents.engine("catalog.json", seed: seed, stateful: false)
            return ["/v2/products", "/v2/status", "/v2/products/6a1f1d2e-0000-4000-8000-000000000000", "/v2/categories/books/tree"]
                .map { engine.send("GET", $0).plan.body }
        }
        #expect(try bodies(7) == bodies(7))
        #expect(try bodies(7) != bodies(8))
        let engine = try Documents.engine("catalog.json", seed: 7, stateful: false)
        #expect(engine.send("GET", "/v2/status").plan.body == engine.send("GET", "/v2/status").plan.body)
        #expect(engine.send("GET", "/v2/status", headers: ["Prefer": "dynamic=true"]).plan.body
                != engine.send("GET", "/v2/status", headers: ["Prefer": "dynamic=true"]).plan.body)
    }

    @Test func theSamplerMeetsEachKeyword() throws {
        let document = try Documents.api("catalog.json").document()
        let status = try #require(document.operations.first { $0.name == "status" })
        let schema = try #require(status.responses.first?.contents.first?.schema)
        for seed in 0..<200 as Range<UInt64> {
            var random = SeededRandom(seed: seed)
            let value = SchemaSampler(document: document.json).sample(schema, using: &random)
            #expect(document.validator.problems(value, against: schema).isEmpty, "seed \(seed): \(value)")
        }
    }

    @Test func theDocumentIsServedToTheAdminAPIAndChecksRequests() throws {
        let engine = try Documents.engine("petstore.yaml")
        // What `/__admin/openapi/petstore` serves (the admin API reads the same source).
        let served = try #require(engine.servedAPI(named: "petstore"))
        let document = try #require(served.served.openAPI).document(variant: served.variant, strict: false)
        #expect(document["info"]?["title"] == "Pet Store")
        #expect(document["paths"]?["/pets/{petId}"] != nil)
        // The engine checks requests against it, under its base path.
        let violations = engine.violations(of: MockRequest(method: "GET", uri: "/api/pets?limit=0&colour=red"))
        #expect(violations?.contains { $0.path == "$.query.limit" } == true, "\(String(describing: violations))")
        #expect(violations?.contains { $0.path == "$.query.colour" } == true)
        #expect(engine.violations(of: MockRequest(method: "GET", uri: "/api/pets?limit=5")) == [])
    }
}

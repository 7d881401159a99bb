import Foundation
@testable import OpenAPIDocumentAPI
import MockCore
import Testing

/// Documents are read as OpenAPI 3.0 or 3.1, YAML or JSON, with their external `$ref`s;
/// a bad one is refused with the file, the JSON pointer and the problem.
@Suite struct LoadingTests {
    @Test func a30YAMLDocumentIsReadAs31() throws {
        let api = try Documents.api("petstore.yaml")
        let document = try api.document()
        #expect(api.name == "petstore")
        #expect(document.json["openapi"]?.stringValue?.hasPrefix("3.1") == true)
        #expect(document.basePaths == ["/api"])
        #expect(api.hosts == ["api.pets.example"])
        #expect(document.operationCount == 6)
        // nullable: true becomes a type that admits null.
        let tag = document.json["components"]?["schemas"]?["NewPet"]?["properties"]?["tag"]
        let types = SchemaValidator.typeNames(tag?["type"] ?? .null)
        #expect(types.contains("null"), "\(String(describing: tag))")
    }

    @Test func a31JSONDocumentWithExternalReferencesIsOneDocument() throws {
        let document = try Documents.api("catalog.json").document()
        #expect(document.basePaths == ["/v2"])
        #expect(try Documents.api("catalog.json").hosts.isEmpty)
        // The external file's schemas are components, read once however often they are used,
        // and its self-referring one refers to itself there.
        let product = document.json["paths"]?["/products/{productId}"]?["get"]?["responses"]?["200"]?["content"]?["application/json"]?["schema"]
        #expect(product?["$ref"] == "#/components/schemas/Product", "\(String(describing: product))")
        #expect(document.validator.resolved(product ?? [:])["allOf"] != nil, "\(String(describing: product))")
        #expect(document.json["components"]?["schemas"]?["Category"]?["properties"]?["children"]?["items"]?["$ref"] == "#/components/schemas/Category")
        #expect(!"\(document.json)".contains("product.json"))
    }

    @Test func whatCannotBeServedIsNamed() throws {
        let petstore = try Documents.api("petstore.yaml").warnings
        #expect(petstore.contains { $0.contains("POST /pets") && $0.contains("callbacks") }, "\(petstore)")
        #expect(petstore.contains { $0.contains("/pets/{petId}/photo") && $0.contains("XML") }, "\(petstore)")
        let catalog = try Documents.api("catalog.json").warnings
        #expect(catalog.contains { $0.contains("webhooks") && $0.contains("productChanged") }, "\(catalog)")
    }

    @Test func aBadDocumentNamesTheFileThePointerAndTheProblem() throws {
        let error = #expect(throws: FixtureError.self) { try Documents.api("broken.yaml") }
        let problem = try #require(error?.problems.first)
        #expect(problem.file.hasSuffix("broken.yaml"))
        #expect(problem.jsonPath.hasPrefix("/paths/~1things/get/responses/200"), "\(problem)")
        #expect(!problem.reason.isEmpty)
    }

    @Test func aMissingReferencedFileNamesTheReference() throws {
        let error = #expect(throws: FixtureError.self) { try Documents.api("dangling.yaml") }
        let problem = try #require(error?.problems.first)
        #expect(problem.file.hasSuffix("dangling.yaml"))
        #expect(problem.jsonPath == "/paths/~1things/get/responses/200/content/application~1json/schema/$ref", "\(problem)")
        #expect(problem.reason.contains("missing.yaml"), "\(problem)")
    }

    @Test func yamlThatDoesNotParseNamesTheLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("bad.yaml")
        try Data("openapi: 3.1.0\ninfo: [unclosed\n".utf8).write(to: file)
        let error = #expect(throws: FixtureError.self) { try OpenAPIDocumentAPI(contentsOf: file) }
        #expect(error?.description.contains("line") == true, "\(String(describing: error))")
        // Swagger 2.0 is read (converted); an older Swagger is refused naming its version.
        let swagger = folder.appendingPathComponent("old.json")
        try Data(#"{"swagger": "2.0", "info": {"title": "x", "version": "1"}, "paths": {}}"#.utf8).write(to: swagger)
        #expect(try OpenAPIDocumentAPI(contentsOf: swagger).document().declaredVersion == "2.0")
        let older = folder.appendingPathComponent("older.json")
        try Data(#"{"swagger": "1.2", "info": {"title": "x", "version": "1"}, "paths": {}}"#.utf8).write(to: older)
        let old = #expect(throws: FixtureError.self) { try OpenAPIDocumentAPI(contentsOf: older) }
        #expect(old?.problems.first?.jsonPath == "/swagger")
    }

    @Test(arguments: [("Pet Store.yaml", "pet-store"), ("openapi.json", "openapi"), ("v2_API.yml", "v2-api"), ("!!.yaml", "api")])
    func theNameComesFromTheFile(file: String, name: String) {
        #expect(OpenAPIDocumentAPI.name(of: URL(fileURLWithPath: "/tmp/" + file)) == name)
    }
}

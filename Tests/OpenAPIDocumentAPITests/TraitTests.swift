import ContractTests
import ContractTestsTesting
import Foundation
import OpenAPIDocumentAPI
import OpenAPIDocumentAPITesting
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `.mockServer(api:)` serves a document's API over a real socket, beside the built-ins.
@Suite struct TraitTests {
    private func send(_ method: String, _ path: String, body: String? = nil) async throws -> (JSONValue?, Int) {
        var request = URLRequest(url: MockServer.current.url(path))
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return (JSONValue(parsing: data), (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    @Test(.mockServer(api: Documents.url("petstore.yaml")))
    func theDocumentsAPIIsServedByTheTrait() async throws {
        let (created, status) = try await send("POST", "/api/pets", body: #"{"name": "Kit"}"#)
        #expect(status == 201)
        let id = try #require(created?["id"]?.intValue)
        let (read, _) = try await send("GET", "/api/pets/\(id)")
        #expect(read?["name"] == "Kit")
        #expect(MockServer.current.engine.apis.contains("petstore"))
        let (document, documentStatus) = try await send("GET", "/__admin/openapi/petstore")
        #expect(documentStatus == 200)
        #expect(document?["info"]?["title"] == "Pet Store")
        try await MockServer.current.expectations.expect(.post("/api/pets"), .exactly(1))
    }

    @Test func aBadDocumentFailsTheServersStart() async throws {
        let api = OpenAPIDocumentAPI.reading(Documents.url("broken.yaml"))
        #expect(api.name == "broken")
        let error = await #expect(throws: FixtureError.self) { _ = try await TestMockServer.start(apis: [api]) }
        #expect(error?.problems.first?.file.hasSuffix("broken.yaml") == true)
    }
}

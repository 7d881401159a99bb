import Foundation
import MockFixtures
import OpenAPIDocumentAPI
import BuiltInMockAPIs
import MockCore
import Testing

/// An operation that asks for credentials answers 401 without them, as its server would.
@Suite struct SecurityTests {
    static let document = """
        openapi: 3.1.0
        info: { title: Vault, version: "1" }
        paths:
          /secrets:
            get:
              security: [{ token: [] }, { key: [] }]
              responses:
                '200':
                  description: Secrets
                  content: { application/json: { schema: { type: array, items: { type: string } } } }
                '401':
                  description: No credentials
                  content: { application/json: { schema: { type: object, required: [message], properties: { message: { type: string } } } } }
          /open:
            get:
              security: [{}]
              responses: { '204': { description: Nothing } }
        security: [{ token: [] }]
        components:
          securitySchemes:
            token: { type: http, scheme: bearer, bearerFormat: JWT }
            key: { type: apiKey, in: query, name: api_key }
        """

    @Test func credentialsAreAskedFor() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vault-\(UUID().uuidString).yaml")
        try Data(Self.document.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory,
                                                                       apis: [try OpenAPIDocumentAPI(contentsOf: file, name: "vault")], strict: true))
        let refused = engine.send("GET", "/secrets")
        #expect(refused.status == 401)
        #expect(refused.plan.headers["WWW-Authenticate"] == "Bearer")
        #expect(refused.body?["message"]?.stringValue == "the operation needs credentials: token (Authorization: Bearer …) or key (query api_key)",
                "\(String(describing: refused.body))")
        #expect(engine.send("GET", "/secrets", headers: ["Authorization": "Bearer abc"]).status == 200)
        #expect(engine.send("GET", "/secrets", headers: ["Authorization": "Basic abc"]).status == 401)
        // The API key in the query is a credential, not an unknown parameter, even when strict.
        #expect(engine.send("GET", "/secrets?api_key=k1").status == 200)
        #expect(engine.send("GET", "/open").status == 204)
    }
}

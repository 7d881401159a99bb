import ContractTests
import ContractTestsTesting
import Foundation
import MockCore
import OpenAPIDocumentAPI
import Testing

extension Trait where Self == MockServerTrait {
    /// A mock server of its own for the test (or each test of the suite) that serves the
    /// API of the OpenAPI document at `api` beside the built-in APIs
    /// (`OpenAPIDocumentAPI`). A document that cannot be read fails the test when its
    /// server starts, naming the file, the JSON pointer and the problem.
    ///
    ///     @Test(.mockServer(api: Bundle.module.url(forResource: "petstore", withExtension: "yaml")!))
    ///     func petsLoad() async throws { … MockServer.current.url("/api/pets") … }
    ///
    /// - Parameters:
    ///   - api: The document's file.
    ///   - name: The API's name; by default from the file's name (`petstore.yaml` is `petstore`).
    ///   - stateful: Whether collections keep what the test creates (POST, then GET).
    ///   - scenario, variants, scenarios, network, checksRequests, pact, apis: as for
    ///     `mockServer(scenario:variants:fixtures:scenarios:network:checksRequests:pact:apis:)`.
    public static func mockServer(api: URL, name: String? = nil, stateful: Bool = true,
                                  scenario: String = Scenario.happyPath.name, variants: [String] = [],
                                  scenarios: [Scenario] = [], network: NetworkProfile? = nil,
                                  checksRequests: Bool = true, pact: PactRecording? = nil, apis: [any MockAPI] = []) -> Self {
        .mockServer(scenario: scenario, variants: variants, scenarios: scenarios, network: network, checksRequests: checksRequests,
                    pact: pact, apis: [OpenAPIDocumentAPI.reading(api, name: name, stateful: stateful)] + apis)
    }
}

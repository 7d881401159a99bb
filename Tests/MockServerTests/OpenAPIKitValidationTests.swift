import Foundation
import OpenAPIKit
import BuiltInMockAPIs
import MockCore
import Testing

/// The served documents are valid OpenAPI 3.1 to a real OpenAPI library: OpenAPIKit
/// decodes each (every API, variant and strictness) and its validations pass (#14).
@Suite struct OpenAPIKitValidationTests {
    static var documents: [(String, JSONValue)] {
        RestaurantVariant.allCases.flatMap { variant in
            [false, true].map { ("restaurant \(variant.rawValue)\($0 ? " strict" : "")", OpenAPIDocuments.restaurant(variant, strict: $0)) }
        } + OpenMarketVariant.allCases.flatMap { variant in
            [false, true].map { ("openmarket \(variant.rawValue)\($0 ? " strict" : "")", OpenAPIDocuments.openMarket(variant, strict: $0)) }
        }
    }

    @Test func everyDocumentDecodesAndValidates() throws {
        for (name, json) in Self.documents {
            let data = JSONCoding.encode(json)
            let document: OpenAPI.Document
            do {
                document = try JSONDecoder().decode(OpenAPI.Document.self, from: data)
            } catch {
                Issue.record("\(name) does not decode: \(OpenAPI.Error(from: error).localizedDescription)")
                continue
            }
            do {
                try document.validate()
            } catch {
                Issue.record("\(name) does not validate: \(error)")
            }
            #expect(document.openAPIVersion == .v3_1_0, "\(name)")
            // Every operation has an id (generators name their methods by it) and answers something.
            let endpoints = document.paths.values.reduce(0) { $0 + ($1.b?.endpoints.count ?? 0) }
            #expect(endpoints >= 4, "\(name): \(endpoints) operations")
            for (path, item) in document.paths {
                for endpoint in item.b?.endpoints ?? [] {
                    #expect(endpoint.operation.operationId != nil, "\(name): \(endpoint.method) \(path.rawValue) has no operationId")
                    #expect(!endpoint.operation.responses.isEmpty, "\(name): \(endpoint.method) \(path.rawValue) answers nothing")
                }
            }
        }
    }
}

// The part of the Open Market client the "Testing a generated OpenAPI client" article uses,
// shaped as swift-openapi-generator makes it from Examples/OpenMarketGenerated's document
// (namingStrategy: idiomatic): `Client(serverURL:transport:)`, `getProduct(path:)`, its
// output's `.ok.body.json`. Written by hand, so this package compiles no generator:
// Examples/OpenMarketGenerated builds and tests the generated client itself.
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The generated client's shape: a server URL and a transport.
public struct Client: Sendable {
    let serverURL: URL
    let transport: any ClientTransport

    public init(serverURL: URL, transport: any ClientTransport) {
        self.serverURL = serverURL
        self.transport = transport
    }

    /// `GET /api/products/{id}`, as the generated `getProduct(path:)`.
    public func getProduct(path: Operations.GetProduct.Input.Path) async throws -> Operations.GetProduct.Output {
        var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/api/products/\(path.id)")
        request.headerFields[.accept] = "application/json"
        let (response, body) = try await transport.send(request, body: nil, baseURL: serverURL, operationID: "getProduct")
        guard response.status == .ok, let body else { return .undocumented(statusCode: response.status.code) }
        let data = try await Data(collecting: body, upTo: 10 * 1024 * 1024)
        return .ok(.init(body: .json(try JSONDecoder().decode(Components.Schemas.Product.self, from: data))))
    }
}

/// The generated operations' namespace.
public enum Operations {
    /// `getProduct`.
    public enum GetProduct {
        public enum Input {
            /// The path's parameters.
            public struct Path: Sendable {
                public var id: Int
                public init(id: Int) { self.id = id }
            }
        }

        /// The answer: 200 with the product, or a status the document does not list.
        public enum Output: Sendable {
            public struct Ok: Sendable {
                public enum Body: Sendable {
                    case json(Components.Schemas.Product)

                    /// The JSON body.
                    public var json: Components.Schemas.Product {
                        get throws {
                            switch self { case .json(let product): product }
                        }
                    }
                }

                public var body: Body
            }

            case ok(Ok)
            case undocumented(statusCode: Int)

            /// The 200 answer; throws for any other.
            public var ok: Ok {
                get throws {
                    switch self {
                    case .ok(let ok): return ok
                    case .undocumented(let status): throw URLError(.badServerResponse, userInfo: ["status": status])
                    }
                }
            }
        }
    }
}

/// The generated schemas' namespace.
public enum Components {
    public enum Schemas {
        /// A product, with the fields the article reads.
        public struct Product: Codable, Sendable {
            public struct Vendor: Codable, Sendable {
                public var name: String
            }

            public var id: Int
            public var vendors: Vendor?
        }
    }
}

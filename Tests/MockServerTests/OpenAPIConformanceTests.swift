import Foundation
import BuiltInMockAPIs
import MockCore
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every response of the happy path conforms to the OpenAPI document the server serves
/// for its variant: a documented status, and a body that validates against its schema
/// (#14). A test of the validator itself shows it catches what matters.
@Suite struct OpenAPIConformanceTests {
    /// The operation of `document` for a concrete path: literal segments win over templates.
    static func operation(_ document: JSONValue, _ method: String, _ path: String) -> JSONValue? {
        let segments = path.split(separator: "/")
        let candidates = (document["paths"]?.objectValue ?? [:]).filter { template, item in
            let parts = template.split(separator: "/")
            return parts.count == segments.count && item[method.lowercased()] != nil
                && zip(parts, segments).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }
        let best = candidates.max { a, b in
            a.key.split(separator: "/").filter { !$0.hasPrefix("{") }.count < b.key.split(separator: "/").filter { !$0.hasPrefix("{") }.count
        }
        return best?.value[method.lowercased()]
    }

    /// What is wrong with one exchange against the document; empty when it conforms.
    static func problems(_ document: JSONValue, _ method: String, _ path: String, status: Int, contentType: String?, body: Data) -> [String] {
        let bare = String(path.split(separator: "?", maxSplits: 1)[0])
        guard let operation = operation(document, method, bare) else { return ["\(method) \(bare) is not in the document"] }
        guard let response = operation["responses"]?[String(status)] else { return ["\(method) \(bare) answered \(status), which the document does not list"] }
        guard let content = response["content"]?.objectValue else {
            return body.isEmpty ? [] : ["\(method) \(bare) \(status) has a body, but the document gives it none"]
        }
        let type = (contentType ?? "").split(separator: ";")[0].trimmingCharacters(in: .whitespaces)
        guard let media = content[type] else { return ["\(method) \(bare) \(status) is \(type), the document lists \(content.keys.sorted())"] }
        guard type == "application/json", let schema = media["schema"] else { return [] }
        guard let json = JSONValue(parsing: body) else { return ["\(method) \(bare) \(status): the body is not JSON"] }
        return SchemaValidator(document: document).problems(json, against: schema).map { "\(method) \(bare) \(status): \($0)" }
    }

    static func document(_ server: TestServer, _ api: String) async throws -> JSONValue {
        let (data, response) = try await HTTP.get(server.url("/__admin/openapi/\(api)"))
        #expect(response.statusCode == 200)
        return try #require(JSONValue(parsing: data))
    }

    static func check(_ document: JSONValue, _ request: URLRequest) async throws -> [String] {
        let (data, response) = try await HTTP.send(request)
        let url = try #require(request.url)
        return problems(document, request.httpMethod ?? "GET", url.path + (url.query.map { "?" + $0 } ?? ""),
                        status: response.statusCode, contentType: response.value(forHTTPHeaderField: "Content-Type"), body: data)
    }

    @Test(arguments: RestaurantVariant.allCases)
    func restaurantHappyPathConforms(variant: RestaurantVariant) async throws {
        try await withServer(restaurant: variant) { server in
            let document = try await Self.document(server, "restaurant")
            #expect(document["info"]?["version"]?.stringValue == variant.rawValue)
            var requests = [URLRequest(url: server.url("/categories")), URLRequest(url: server.url("/menu"))]
            for category in ["appetizers", "salads", "soups", "entrees", "desserts", "sandwiches", "nope"] {
                requests.append(URLRequest(url: server.url("/menu?category=\(category)")))
            }
            requests.append(URLRequest(url: server.url("/images/" + variant.imageName("1.png"))))
            requests.append(URLRequest(url: server.url("/images/none.png")))
            for body in [#"{"menuIds":[1,1,5]}"#, #"{"menuIds":[]}"#, #"{"menuIds":[999]}"#, #"{"ids":[1]}"#, "not json"] {
                var order = URLRequest(url: server.url("/order"))
                order.httpMethod = "POST"
                order.setValue("application/json", forHTTPHeaderField: "Content-Type")
                order.httpBody = Data(body.utf8)
                requests.append(order)
            }
            var problems: [String] = []
            for request in requests { problems += try await Self.check(document, request) }
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    @Test(arguments: OpenMarketVariant.allCases)
    func openMarketHappyPathConforms(variant: OpenMarketVariant) async throws {
        try await withServer(openMarket: variant) { server in
            let document = try await Self.document(server, "openmarket")
            let client = OpenMarketClient(base: server.address.url)
            var problems: [String] = []
            var requests = [URLRequest(url: server.url("/healthChecker")), URLRequest(url: server.url("/api/products/16")),
                            URLRequest(url: server.url("/api/products/99999")), URLRequest(url: server.url("/market-images/thumb/item01.png"))]
            for query in ["page_no=1&items_per_page=20", "page_no=7&items_per_page=20", "page_no=8&items_per_page=20",
                          "page_no=-1&items_per_page=20", "page_no=x&items_per_page=20", "page_no=1&items_per_page=1000"] {
                requests.append(URLRequest(url: server.url("/api/products?" + query)))
            }
            for request in requests { problems += try await Self.check(document, request) }
            // The write flow: create, update, look up the secret (or delete URI), delete.
            let (created, createResponse) = try await client.create(params: OpenMarketClient.params(descriptionKey: variant.descriptionKey))
            problems += Self.problems(document, "POST", "/api/products", status: createResponse.statusCode,
                                      contentType: createResponse.value(forHTTPHeaderField: "Content-Type"), body: created)
            let id = try #require(JSONValue(parsing: created)?["id"]?.intValue)
            problems += try await Self.check(document, client.request("PATCH", "/api/products/\(id)", json: #"{"stock": 7, "secret": "mart1234"}"#))
            let lookup = variant == .late2022 ? "archived" : "secret"
            let (secretData, secretResponse) = try await client.send("POST", "/api/products/\(id)/\(lookup)", json: #"{"secret": "mart1234"}"#)
            problems += Self.problems(document, "POST", "/api/products/\(id)/\(lookup)", status: secretResponse.statusCode,
                                      contentType: secretResponse.value(forHTTPHeaderField: "Content-Type"), body: secretData)
            let secret = String(decoding: secretData, as: UTF8.self)
            let deletePath = variant == .late2022 ? "/api/products/\(secret)" : "/api/products/\(id)/\(secret)"
            problems += try await Self.check(document, client.request("DELETE", deletePath))
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    /// The documents are strict enough to notice drift: another variant's answers fail.
    @Test func aDocumentRejectsAnotherVariantsAnswers() async throws {
        let late = OpenAPIDocuments.openMarket(.late2022)
        try await withServer(openMarket: .jan2022) { server in
            let (data, response) = try await HTTP.get(server.url("/api/products?page_no=1&items_per_page=2"))
            let problems = Self.problems(late, "GET", "/api/products", status: response.statusCode, contentType: "application/json", body: data)
            #expect(problems.contains { $0.contains("the key \"pageNo\" is missing") }, "\(problems)")
            #expect(problems.contains { $0.contains("the key \"page_no\" is not in the document") }, "\(problems)")
            #expect(problems.contains { $0.contains("does not match") }, "the January dates: \(problems)")
        }
        let community = OpenAPIDocuments.restaurant(.community)
        try await withServer(restaurant: .original) { server in
            let (data, response) = try await HTTP.get(server.url("/categories"))
            let problems = Self.problems(community, "GET", "/categories", status: response.statusCode, contentType: "application/json", body: data)
            #expect(problems.contains { $0.contains("$.categories[0]: expected object, found a string") }, "\(problems)")
        }
    }

    /// A method the resource does not answer is a 405 naming the ones it does (schemathesis
    /// checks `Allow` against the document); the most literal path is the resource.
    @Test func aWrongMethodIs405WithTheResourcesAllow() async throws {
        try await withServer { server in
            for (method, path, allow) in [("TRACE", "/menu", "GET, HEAD"), ("PUT", "/api/products/16", "GET, HEAD, PATCH"),
                                          ("OPTIONS", "/api/products/16/secret", "POST")] {
                var request = URLRequest(url: server.url(path))
                request.httpMethod = method
                let (data, response) = try await HTTP.send(request)
                #expect(response.statusCode == 405, "\(method) \(path)")
                #expect(response.value(forHTTPHeaderField: "Allow") == allow, "\(method) \(path)")
                #expect(String(decoding: data, as: UTF8.self).contains("nearest"))
            }
            #expect(try await HTTP.get(server.url("/nowhere")).1.statusCode == 404)
        }
    }

    @Test func strictDocumentsListTheValidatingAnswers() {
        let lenient = OpenAPIDocuments.openMarket(.jan2022)
        let strict = OpenAPIDocuments.openMarket(.jan2022, strict: true)
        #expect(lenient["paths"]?["/api/products"]?["get"]?["responses"]?["500"] != nil)
        #expect(strict["paths"]?["/api/products"]?["get"]?["responses"]?["500"] == nil)
        #expect(OpenAPIDocuments.restaurant(.community)["paths"]?["/order"]?["post"]?["responses"]?["404"] != nil)
        #expect(OpenAPIDocuments.restaurant(.community, strict: true)["paths"]?["/order"]?["post"]?["responses"]?["404"] == nil)
    }
}

import Foundation
import MockFixtures
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds Open Market requests the way the iOS student clients do: a hand-assembled
/// multipart body (`params` JSON part, then one `images` part per image with a
/// filename), the `identifier` header, JSON for update and secret.
struct OpenMarketClient {
    static let vendor1 = (identifier: "c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1", password: "mart1234", id: 1)
    static let vendor2 = (identifier: "7184295e-669f-11ec-8eff-b53506094baa", password: "dacodaco1", id: 2)

    let base: URL
    var identifier: String? = OpenMarketClient.vendor1.identifier

    static func image(_ name: String) -> Data {
        let url = name.hasSuffix(".png") && !name.hasPrefix("item")
            ? MockFixtures.restaurant.appendingPathComponent("images/\(name)")
            : MockFixtures.openMarket.appendingPathComponent("images/origin/\(name)")
        return (try? Data(contentsOf: url)) ?? Data()
    }

    static func params(name: String = "Test Product", description: String = "A product made by a test",
                       price: Any = 1000, currency: String = "KRW", discounted: Any? = 100, stock: Any? = 5,
                       secret: String = vendor1.password, descriptionKey: String = "descriptions") -> Data {
        var object: [String: Any] = ["name": name, descriptionKey: description, "price": price, "currency": currency, "secret": secret]
        if let discounted { object["discounted_price"] = discounted }
        if let stock { object["stock"] = stock }
        return try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// The body as `URLSessionProvider`-style clients assemble it by hand.
    static func multipart(boundary: String, params: Data?, images: [(filename: String, data: Data, mime: String)]) -> Data {
        var body = Data()
        func line(_ text: String) { body.append(Data((text + "\r\n").utf8)) }
        if let params {
            line("--\(boundary)")
            line("Content-Disposition: form-data; name=\"params\"")
            line("Content-Type: application/json")
            line("")
            body.append(params)
            line("")
        }
        for image in images {
            line("--\(boundary)")
            line("Content-Disposition: form-data; name=\"images\"; filename=\"\(image.filename)\"")
            line("Content-Type: \(image.mime)")
            line("")
            body.append(image.data)
            line("")
        }
        line("--\(boundary)--")
        return body
    }

    func request(_ method: String, _ path: String, json: String? = nil) -> URLRequest {
        var request = URLRequest(url: URL(string: base.absoluteString + path)!)
        request.httpMethod = method
        if let identifier { request.setValue(identifier, forHTTPHeaderField: "identifier") }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(json.utf8)
        }
        return request
    }

    func create(params: Data? = OpenMarketClient.params(),
                images: [(filename: String, data: Data, mime: String)] = [("a.png", image("1.png"), "image/png"), ("b.jpg", image("item02.jpg"), "image/jpeg")],
                rawBody: Data? = nil, contentType: String? = nil) async throws -> (Data, HTTPURLResponse) {
        let boundary = "Boundary-\(UUID().uuidString)"
        var request = request("POST", "/api/products")
        request.setValue(contentType ?? "multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        request.httpBody = rawBody ?? Self.multipart(boundary: boundary, params: params, images: images)
        return try await HTTP.send(request)
    }

    func page(_ number: Int, _ perPage: Int) async throws -> (Data, HTTPURLResponse) {
        try await HTTP.get(URL(string: base.absoluteString + "/api/products?page_no=\(number)&items_per_page=\(perPage)")!)
    }

    func detail(_ id: Int) async throws -> (Data, HTTPURLResponse) {
        try await HTTP.get(URL(string: base.absoluteString + "/api/products/\(id)")!)
    }

    func send(_ method: String, _ path: String, json: String? = nil) async throws -> (Data, HTTPURLResponse) {
        try await HTTP.send(request(method, path, json: json))
    }
}

func object(_ data: Data) throws -> [String: Any] {
    guard let object = try HTTP.json(data) as? [String: Any] else { throw URLError(.cannotDecodeContentData) }
    return object
}

/// The `reason` of a JSON error body.
func reason(_ data: Data) -> String {
    ((try? object(data))?["reason"] as? String) ?? String(decoding: data, as: UTF8.self)
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why an `OpenMarketClient` call failed (besides the `URLError`s of the network and the
/// `DecodingError`s of a body that is not what the API sends).
public enum OpenMarketError: Error, Equatable, Sendable {
    /// The server answered with a status outside 200–299.
    case unexpectedStatus(Int)
    /// A call that must return something got an empty body.
    case emptyBody
}

/// The Open Market API (January 2022) as the course's student apps write their network
/// manager: async/await on an injected `URLSession`, Codable models, dates in the server's
/// format and zone, 200–299 taken for success, a multipart body built by hand and sent with
/// an upload task, and a memory cache for thumbnails.
///
///     let market = OpenMarketClient(identifier: vendorIdentifier)
///     let page = try await market.fetchPage(number: 1, itemsPerPage: 20)
public struct OpenMarketClient: Sendable {
    public let baseURL: URL
    /// The vendor identifier sent as the `identifier` header of every write.
    public let identifier: String
    private let session: URLSession
    private let images: ImageCache

    public init(baseURL: URL = URL(string: "https://market-training.yagom-academy.kr/")!, identifier: String,
                session: URLSession = .shared, imageCacheLimit: Int = 100) {
        self.baseURL = baseURL
        self.identifier = identifier
        self.session = session
        images = ImageCache(session: session, countLimit: imageCacheLimit)
    }

    /// How many thumbnails the cache keeps at most.
    public var imageCacheLimit: Int { images.countLimit }

    /// Dates as the server writes them: `2022-01-04T00:00:00.00`, in Korea time.
    static func makeDecoder() -> JSONDecoder {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Asia/Seoul")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SS"
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .formatted(formatter)
        return decoder
    }

    // MARK: Reads

    /// `GET /healthChecker`: whether the server answers `"OK"`.
    public func healthCheck() async throws -> Bool {
        let (data, _) = try await send(request("GET", "healthChecker"))
        return try JSONDecoder().decode(String.self, from: data) == "OK"
    }

    /// `GET /api/products?page_no=N&items_per_page=M`. A page past the last one is empty
    /// (the server answers 204), not an error.
    public func fetchPage(number: Int, itemsPerPage: Int) async throws -> ProductPage {
        let (data, status) = try await send(request("GET", "api/products", query: [
            URLQueryItem(name: "page_no", value: String(number)),
            URLQueryItem(name: "items_per_page", value: String(itemsPerPage)),
        ]))
        if status == 204 { return .pastTheEnd(number: number, itemsPerPage: itemsPerPage) }
        return try Self.makeDecoder().decode(ProductPage.self, from: data)
    }

    /// `GET /api/products/{id}`: the product with its description, images and vendor.
    public func fetchProduct(id: Int) async throws -> Product {
        try await product(from: request("GET", "api/products/\(id)"))
    }

    /// The bytes of a thumbnail or image URL, from the memory cache when it has them.
    public func fetchImage(from url: URL) async throws -> Data {
        do {
            return try await images.data(from: url)
        } catch let error as ImageCache.LoadError {
            throw error.status == 200 ? OpenMarketError.emptyBody : OpenMarketError.unexpectedStatus(error.status)
        }
    }

    // MARK: Writes (never retried here: the server may have done them)

    /// `POST /api/products`: a multipart/form-data body of a `params` JSON part, then one
    /// `images` part per image, sent with an upload task. Returns the created product.
    public func createProduct(_ params: NewProduct, images: [ImageFile]) async throws -> Product {
        let form = MultipartForm()
        var request = request("POST", "api/products")
        request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
        let body = form.body(json: ("params", try JSONEncoder().encode(params)), files: images.map { ("images", $0) })
        let (data, response) = try await session.upload(for: request, from: body)
        return try Self.makeDecoder().decode(Product.self, from: try Self.check(data, response).data)
    }

    /// `PATCH /api/products/{id}` with the fields that are set, plus the vendor's password.
    public func updateProduct(id: Int, _ changes: ProductUpdate) async throws -> Product {
        try await product(from: json("PATCH", "api/products/\(id)", changes))
    }

    /// `POST /api/products/{id}/secret` with the vendor's password: the product's secret,
    /// which deleting it takes.
    public func secret(for productID: Int, password: String) async throws -> String {
        let (data, _) = try await send(json("POST", "api/products/\(productID)/secret", ["secret": password]))
        guard !data.isEmpty else { throw OpenMarketError.emptyBody }
        return String(decoding: data, as: UTF8.self)
    }

    /// `DELETE /api/products/{id}/{secret}`: the deleted product.
    public func deleteProduct(id: Int, secret: String) async throws -> Product {
        var request = request("DELETE", "api/products/\(id)")
        request.url = request.url?.appending(component: secret)   // percent-encoded, "/" too
        return try await product(from: request)
    }

    // MARK: Plumbing

    /// A request to `path`; writes carry the vendor's `identifier` header.
    private func request(_ method: String, _ path: String, query: [URLQueryItem] = []) -> URLRequest {
        var url = baseURL.appending(path: path)
        if !query.isEmpty { url.append(queryItems: query) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        if method != "GET" { request.setValue(identifier, forHTTPHeaderField: "identifier") }
        return request
    }

    private func json(_ method: String, _ path: String, _ body: some Encodable) throws -> URLRequest {
        var request = request(method, path)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(body)
        return request
    }

    private func product(from request: URLRequest) async throws -> Product {
        let (data, _) = try await send(request)
        return try Self.makeDecoder().decode(Product.self, from: data)
    }

    /// The body and status of a 2xx answer.
    private func send(_ request: URLRequest) async throws -> (data: Data, status: Int) {
        let (data, response) = try await session.data(for: request)
        return try Self.check(data, response)
    }

    private static func check(_ data: Data, _ response: URLResponse) throws -> (data: Data, status: Int) {
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        guard (200..<300).contains(http.statusCode) else { throw OpenMarketError.unexpectedStatus(http.statusCode) }
        return (data, http.statusCode)
    }
}

/// A multipart/form-data body built by hand: JSON parts and file parts.
struct MultipartForm {
    let boundary = "Boundary-\(UUID().uuidString)"

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    func body(json: (name: String, data: Data), files: [(name: String, file: ImageFile)]) -> Data {
        var body = Data()
        func append(_ text: String) { body.append(Data(text.utf8)) }
        append("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(json.name)\"\r\nContent-Type: application/json\r\n\r\n")
        body.append(json.data)
        for (name, file) in files {
            append("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(file.filename)\"\r\n")
            append("Content-Type: \(file.mimeType)\r\n\r\n")
            body.append(file.data)
        }
        append("\r\n--\(boundary)--\r\n")
        return body
    }
}

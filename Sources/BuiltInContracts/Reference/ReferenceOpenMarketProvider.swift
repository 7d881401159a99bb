import BuiltInMockAPIs
import ContractHarness
import Foundation
import MockCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An Open Market client written the way the course's student clients write their
/// network manager: URLSession with async/await, Codable with CodingKeys, dates in the
/// server's format, a multipart body assembled by hand, 200–299 as success, and an
/// `ImageLoader` for thumbnails. It passes every shipped check.
public struct ReferenceOpenMarketProvider: OpenMarketProvider {
    /// Why a call failed besides the session's own errors.
    public enum ProviderError: Error, Equatable {
        /// The server answered with this status, outside 200–299.
        case badStatus(Int)
        /// The health check's body was not `"OK"`.
        case notOK
    }

    let baseURL: URL
    let session: URLSession
    let timeout: TimeInterval
    let vendor: MarketVendor
    let variant: OpenMarketVariant
    let images: ImageLoader

    /// Makes a provider for `context`'s server that speaks `variant` and caches up to `imageCacheLimit` images.
    public init(context: ProviderContext, variant: OpenMarketVariant = .jan2022, imageCacheLimit: Int = 100) {
        baseURL = context.baseURL
        session = URLSession(configuration: context.sessionConfiguration, delegate: context.sessionDelegate, delegateQueue: nil)
        timeout = context.timeout
        vendor = context.vendor
        self.variant = variant
        images = ImageLoader(session: session, timeout: context.timeout, countLimit: imageCacheLimit)
    }

    /// The image loader's count limit.
    public var imageCacheLimit: Int? { images.countLimit }

    // MARK: Wire types

    struct PageDTO: Decodable {
        let pageNo, itemsPerPage, totalCount, offset, limit, lastPage: Int
        let hasNext, hasPrev: Bool
        let pages: [ProductDTO]
        enum CodingKeys: String, CodingKey {
            case offset, limit, pages
            case pageNo = "page_no", itemsPerPage = "items_per_page", totalCount = "total_count"
            case lastPage = "last_page", hasNext = "has_next", hasPrev = "has_prev"
        }
    }

    /// The late-2022 server's page: the same values under camelCase keys.
    struct LatePageDTO: Decodable {
        let pageNo, itemsPerPage, totalCount, offset, limit, lastPage: Int
        let hasNext, hasPrev: Bool
        let pages: [ProductDTO]

        var page: PageDTO {
            PageDTO(pageNo: pageNo, itemsPerPage: itemsPerPage, totalCount: totalCount, offset: offset, limit: limit, lastPage: lastPage,
                    hasNext: hasNext, hasPrev: hasPrev, pages: pages)
        }
    }

    struct ProductDTO: Decodable {
        let id, vendorID: Int
        let name: String
        let thumbnail: URL
        let currency: String
        let price, bargainPrice, discountedPrice: Double
        let stock: Int
        let createdAt, issuedAt: Date
        let description: String?
        let images: [ImageDTO]?
        let vendors: VendorDTO?
        enum CodingKeys: String, CodingKey {
            case id, name, thumbnail, currency, price, stock, description, images, vendors
            case vendorID = "vendor_id", bargainPrice = "bargain_price", discountedPrice = "discounted_price"
            case createdAt = "created_at", issuedAt = "issued_at"
        }

        var product: MarketProduct {
            MarketProduct(id: id, vendorID: vendorID, name: name, thumbnail: thumbnail, currency: currency, price: price,
                          bargainPrice: bargainPrice, discountedPrice: discountedPrice, stock: stock, createdAt: createdAt,
                          issuedAt: issuedAt, description: description,
                          images: (images ?? []).map { MarketImage(id: $0.id, url: $0.url, thumbnailURL: $0.thumbnailURL) },
                          vendorName: vendors?.name)
        }
    }

    struct ImageDTO: Decodable {
        let id: Int
        let url, thumbnailURL: URL
        enum CodingKeys: String, CodingKey { case id, url, thumbnailURL = "thumbnail_url" }
    }

    struct VendorDTO: Decodable { let name: String; let id: Int }

    var decoder: JSONDecoder {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 9 * 3600)
        formatter.dateFormat = variant.dateFormat
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .formatted(formatter)
        return decoder
    }

    // MARK: Calls

    func send(_ request: URLRequest) async throws -> Data {
        let (data, response) = try await session.data(for: request)
        guard let status = (response as? HTTPURLResponse)?.statusCode else { throw URLError(.badServerResponse) }
        guard (200..<300).contains(status) else { throw ProviderError.badStatus(status) }
        return data
    }

    func request(_ method: String, _ path: String, query: [URLQueryItem] = []) -> URLRequest {
        var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: true)!
        if !query.isEmpty { components.queryItems = query }
        var request = URLRequest(url: components.url!, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = method
        if method != "GET" { request.setValue(vendor.identifier, forHTTPHeaderField: "identifier") }
        return request
    }

    func json(_ method: String, _ path: String, _ body: [String: Any]) throws -> URLRequest {
        var request = request(method, path)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        return request
    }

    /// `GET /healthChecker`; throws `notOK` unless the body is `"OK"`.
    public func healthCheck() async throws -> Bool {
        let data = try await send(request("GET", "healthChecker"))
        guard String(decoding: data, as: UTF8.self) == "\"OK\"" else { throw ProviderError.notOK }
        return true
    }

    /// `GET /api/products?page_no=N&items_per_page=M`, decoded in the variant's page keys.
    public func page(number: Int, itemsPerPage: Int) async throws -> MarketPage {
        let data = try await send(request("GET", "api/products", query: [
            URLQueryItem(name: "page_no", value: String(number)), URLQueryItem(name: "items_per_page", value: String(itemsPerPage)),
        ]))
        // Past the last page the server answers 204 with no body: an empty page.
        if data.isEmpty {
            return MarketPage(pageNumber: number, itemsPerPage: itemsPerPage, totalCount: 0, offset: 0, limit: 0, lastPage: 0,
                              hasNext: false, hasPrevious: number > 1, products: [])
        }
        let page = variant == .late2022 ? try decoder.decode(LatePageDTO.self, from: data).page : try decoder.decode(PageDTO.self, from: data)
        return MarketPage(pageNumber: page.pageNo, itemsPerPage: page.itemsPerPage, totalCount: page.totalCount, offset: page.offset,
                          limit: page.limit, lastPage: page.lastPage, hasNext: page.hasNext, hasPrevious: page.hasPrev,
                          products: page.pages.map(\.product))
    }

    /// `GET /api/products/{id}`.
    public func product(id: Int) async throws -> MarketProduct {
        try decoder.decode(ProductDTO.self, from: try await send(request("GET", "api/products/\(id)"))).product
    }

    /// `POST /api/products`: a `params` JSON part and one `images` part per image, assembled by hand.
    public func createProduct(_ product: NewMarketProduct, images: [MarketImageUpload]) async throws -> MarketProduct {
        var params: [String: Any] = ["name": product.name, variant.descriptionKey: product.description, "price": product.price,
                                     "currency": product.currency, "secret": product.secret]
        if let discounted = product.discountedPrice { params["discounted_price"] = discounted }
        if let stock = product.stock { params["stock"] = stock }
        let boundary = "Boundary-\(UUID().uuidString)"
        var request = request("POST", "api/products")
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        request.httpBody = Self.multipart(boundary: boundary, params: try JSONSerialization.data(withJSONObject: params, options: [.sortedKeys]), images: images)
        return try decoder.decode(ProductDTO.self, from: try await send(request)).product
    }

    /// `params` (application/json) first, then one `images` part per image with its filename.
    static func multipart(boundary: String, params: Data, images: [MarketImageUpload]) -> Data {
        var body = Data()
        func line(_ text: String) { body.append(Data((text + "\r\n").utf8)) }
        line("--\(boundary)")
        line("Content-Disposition: form-data; name=\"params\"")
        line("Content-Type: application/json")
        line("")
        body.append(params)
        line("")
        for image in images {
            line("--\(boundary)")
            line("Content-Disposition: form-data; name=\"images\"; filename=\"\(image.filename)\"")
            line("Content-Type: \(image.mimeType)")
            line("")
            body.append(image.data)
            line("")
        }
        line("--\(boundary)--")
        return body
    }

    /// `PATCH /api/products/{id}` with the fields that are set and the vendor password.
    public func updateProduct(id: Int, _ changes: MarketProductChanges) async throws -> MarketProduct {
        var body: [String: Any] = ["secret": changes.secret]
        if let name = changes.name { body["name"] = name }
        if let description = changes.description { body[variant.descriptionKey] = description }
        if let price = changes.price { body["price"] = price }
        if let currency = changes.currency { body["currency"] = currency }
        if let discounted = changes.discountedPrice { body["discounted_price"] = discounted }
        if let stock = changes.stock { body["stock"] = stock }
        if let thumbnail = changes.thumbnailID { body["thumbnail_id"] = thumbnail }
        return try decoder.decode(ProductDTO.self, from: try await send(json("PATCH", "api/products/\(id)", body))).product
    }

    /// `POST /api/products/{id}/secret` (`/archived` in late 2022): the product's secret.
    public func productSecret(id: Int, password: String) async throws -> String {
        let path = variant == .late2022 ? "api/products/\(id)/archived" : "api/products/\(id)/secret"
        return String(decoding: try await send(json("POST", path, ["secret": password])), as: UTF8.self)
    }

    /// `DELETE /api/products/{id}/{secret}` (`/api/products/{secret}` in late 2022).
    public func deleteProduct(id: Int, secret: String) async throws -> MarketProduct {
        let path = variant == .late2022 ? "api/products/\(secret)" : "api/products/\(id)/\(secret)"
        return try decoder.decode(ProductDTO.self, from: try await send(request("DELETE", path))).product
    }

    /// The image's bytes through the `ImageLoader`.
    public func imageData(from url: URL) async throws -> Data {
        try await images.data(from: url)
    }
}

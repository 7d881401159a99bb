import ContractTests
import Foundation
import BuiltInMockAPIs
import MockCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A correct Open Market client in another style than the reference one: a network
/// manager on completion handlers (each data task cancelled with its Swift task),
/// `convertFromSnakeCase` models, an `Encodable` params struct, a multipart builder, an
/// `NSCache` of thumbnails keyed by URL, and the timeout set only on the configuration.
final class MarketNetworkManager: @unchecked Sendable {
    enum NetworkError: Error { case status(Int), emptyBody, notOK }

    struct Page: Decodable {
        let pageNo, itemsPerPage, totalCount, offset, limit, lastPage: Int
        let hasNext, hasPrev: Bool
        let pages: [Product]
    }

    struct Product: Decodable {
        struct Image: Decodable { let id: Int; let url, thumbnailUrl: URL }
        struct Vendor: Decodable { let name: String }
        let id, vendorId: Int
        let name, currency: String
        let thumbnail: URL
        let price, bargainPrice, discountedPrice: Double
        let stock: Int
        let createdAt, issuedAt: Date
        let description: String?
        let images: [Image]?
        let vendors: Vendor?

        var market: MarketProduct {
            MarketProduct(id: id, vendorID: vendorId, name: name, thumbnail: thumbnail, currency: currency, price: price,
                          bargainPrice: bargainPrice, discountedPrice: discountedPrice, stock: stock, createdAt: createdAt,
                          issuedAt: issuedAt, description: description,
                          images: (images ?? []).map { MarketImage(id: $0.id, url: $0.url, thumbnailURL: $0.thumbnailUrl) },
                          vendorName: vendors?.name)
        }
    }

    /// The create and update body, keys by the variant's names.
    struct Params: Encodable {
        var name: String?
        var descriptions: String?
        var description: String?
        var price: Double?
        var currency: String?
        var discountedPrice: Double?
        var stock: Int?
        var thumbnailId: Int?
        var secret: String
    }

    let baseURL: URL
    let vendor: MarketVendor
    let variant: OpenMarketVariant
    let session: URLSession
    let thumbnails = NSCache<NSURL, NSData>()

    init(context: ProviderContext, variant: OpenMarketVariant) {
        baseURL = context.baseURL
        vendor = context.vendor
        self.variant = variant
        session = URLSession(configuration: context.sessionConfiguration, delegate: context.sessionDelegate, delegateQueue: nil)
    }

    var decoder: JSONDecoder {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Asia/Seoul")
        switch variant {
        case .legacyDates: formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        case .jan2022: formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SS"
        case .late2022: formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .formatted(formatter)
        return decoder
    }

    var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }

    /// Runs the request; 2xx bodies come back (a 204's is empty), anything else is an error.
    func send(_ request: URLRequest) async throws -> Data {
        let task = Locked<URLSessionDataTask?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
                let dataTask = session.dataTask(with: request) { data, response, error in
                    if let error { return continuation.resume(throwing: error) }
                    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                    guard (200...299).contains(status) else { return continuation.resume(throwing: NetworkError.status(status)) }
                    continuation.resume(returning: data ?? Data())
                }
                task.withLock { $0 = dataTask }
                dataTask.resume()
            }
        } onCancel: {
            task.current?.cancel()
        }
    }

    func request(_ path: String, method: String = "GET", query: [String: Int] = [:]) -> URLRequest {
        var components = URLComponents(string: baseURL.absoluteString + path)!
        if !query.isEmpty { components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: String($0.value)) } }
        var request = URLRequest(url: components.url!)
        request.httpMethod = method
        if method != "GET" { request.addValue(vendor.identifier, forHTTPHeaderField: "identifier") }
        return request
    }

    func params(_ fill: (inout Params) -> Void, secret: String, description: String?) -> Params {
        var params = Params(secret: secret)
        if variant == .late2022 { params.description = description } else { params.descriptions = description }
        fill(&params)
        return params
    }

    func multipart(params: Data, images: [MarketImageUpload], boundary: String) -> Data {
        var body = Data()
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"params\"\r\nContent-Type: application/json\r\n\r\n".utf8))
        body.append(params)
        for image in images {
            body.append(Data("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"images\"; filename=\"\(image.filename)\"\r\nContent-Type: \(image.mimeType)\r\n\r\n".utf8))
            body.append(image.data)
        }
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        return body
    }
}

struct CompletionOpenMarketProvider: OpenMarketProvider {
    let manager: MarketNetworkManager

    init(context: ProviderContext, variant: OpenMarketVariant) {
        manager = MarketNetworkManager(context: context, variant: variant)
    }

    func healthCheck() async throws -> Bool {
        let text = String(decoding: try await manager.send(manager.request("/healthChecker")), as: UTF8.self)
        guard text.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) == "OK" else { throw MarketNetworkManager.NetworkError.notOK }
        return true
    }

    func page(number: Int, itemsPerPage: Int) async throws -> MarketPage {
        let data = try await manager.send(manager.request("/api/products", query: ["page_no": number, "items_per_page": itemsPerPage]))
        guard !data.isEmpty else {   // 204 past the last page: no more items
            return MarketPage(pageNumber: number, itemsPerPage: itemsPerPage, totalCount: 0, offset: 0, limit: 0, lastPage: number - 1,
                              hasNext: false, hasPrevious: true, products: [])
        }
        let page = try manager.decoder.decode(MarketNetworkManager.Page.self, from: data)
        return MarketPage(pageNumber: page.pageNo, itemsPerPage: page.itemsPerPage, totalCount: page.totalCount, offset: page.offset,
                          limit: page.limit, lastPage: page.lastPage, hasNext: page.hasNext, hasPrevious: page.hasPrev,
                          products: page.pages.map(\.market))
    }

    func product(id: Int) async throws -> MarketProduct {
        try manager.decoder.decode(MarketNetworkManager.Product.self, from: try await manager.send(manager.request("/api/products/\(id)"))).market
    }

    func createProduct(_ product: NewMarketProduct, images: [MarketImageUpload]) async throws -> MarketProduct {
        let params = manager.params({
            $0.name = product.name
            $0.price = product.price
            $0.currency = product.currency
            $0.discountedPrice = product.discountedPrice
            $0.stock = product.stock
        }, secret: product.secret, description: product.description)
        let boundary = UUID().uuidString
        var request = manager.request("/api/products", method: "POST")
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        request.httpBody = manager.multipart(params: try manager.encoder.encode(params), images: images, boundary: boundary)
        return try manager.decoder.decode(MarketNetworkManager.Product.self, from: try await manager.send(request)).market
    }

    func updateProduct(id: Int, _ changes: MarketProductChanges) async throws -> MarketProduct {
        let params = manager.params({
            $0.name = changes.name
            $0.price = changes.price
            $0.currency = changes.currency
            $0.discountedPrice = changes.discountedPrice
            $0.stock = changes.stock
            $0.thumbnailId = changes.thumbnailID
        }, secret: changes.secret, description: changes.description)
        var request = manager.request("/api/products/\(id)", method: "PATCH")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try manager.encoder.encode(params)
        return try manager.decoder.decode(MarketNetworkManager.Product.self, from: try await manager.send(request)).market
    }

    func productSecret(id: Int, password: String) async throws -> String {
        var request = manager.request("/api/products/\(id)/\(manager.variant == .late2022 ? "archived" : "secret")", method: "POST")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(["secret": password])
        return String(decoding: try await manager.send(request), as: UTF8.self)
    }

    func deleteProduct(id: Int, secret: String) async throws -> MarketProduct {
        let path = manager.variant == .late2022 ? "/api/products/\(secret)" : "/api/products/\(id)/\(secret)"
        return try manager.decoder.decode(MarketNetworkManager.Product.self, from: try await manager.send(manager.request(path, method: "DELETE"))).market
    }

    func imageData(from url: URL) async throws -> Data {
        if let cached = manager.thumbnails.object(forKey: url as NSURL) { return cached as Data }
        let data = try await manager.send(URLRequest(url: url))
        guard !data.isEmpty else { throw MarketNetworkManager.NetworkError.emptyBody }
        manager.thumbnails.setObject(data as NSData, forKey: url as NSURL)
        return data
    }
}

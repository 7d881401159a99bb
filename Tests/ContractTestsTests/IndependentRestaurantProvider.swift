import ContractTests
import Foundation
import BuiltInMockAPIs
import MockCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A correct Restaurant client written in another style than the reference one, as
/// older course editions and many apps write it: a `MenuController` class with
/// completion handlers, `convertFromSnakeCase`, an `NSCache` of images keyed by URL, and
/// the timeout set only on the session configuration. It must pass every required check
/// over both transports: the checks judge behaviour, not one way of writing a client.
final class CompletionMenuController: @unchecked Sendable {
    enum MenuError: Error { case requestFailed(Int), noData }

    struct MenuItem: Codable {
        let id: Int
        let name: String
        let description: String
        let price: Double
        let category: String
        let imageUrl: String
    }

    struct Order: Codable { let preparationTime: Int }

    struct CommunityMenuItem: Codable {
        struct Category: Codable { let id: Int; let name: String }
        let id: Int
        let name: String
        let description: String
        let price: Double
        let category: Category
        let imageUrl: String
    }

    let baseURL: URL
    let variant: RestaurantVariant
    let session: URLSession
    let images = NSCache<NSURL, NSData>()

    init(baseURL: URL, variant: RestaurantVariant, configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)? = nil) {
        self.baseURL = baseURL
        self.variant = variant
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        images.countLimit = 100
    }

    var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    /// The body of a 200, or the error.
    func load(_ request: URLRequest, completion: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        session.dataTask(with: request) { data, response, error in
            if let error { return completion(.failure(error)) }
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard status == 200 else { return completion(.failure(MenuError.requestFailed(status))) }
            guard let data else { return completion(.failure(MenuError.noData)) }
            completion(.success(data))
        }.resume()
    }

    func fetchCategories(completion: @escaping @Sendable (Result<[String], any Error>) -> Void) {
        load(URLRequest(url: baseURL.appendingPathComponent("categories"))) { result in
            completion(result.flatMap { data in
                Result {
                    if self.variant == .community {
                        struct Named: Codable { let name: String }
                        return try self.decoder.decode([String: [Named]].self, from: data)["categories", default: []].map(\.name)
                    }
                    return try self.decoder.decode([String: [String]].self, from: data)["categories", default: []]
                }
            })
        }
    }

    func fetchMenuItems(category: String, completion: @escaping @Sendable (Result<[RestaurantItem], any Error>) -> Void) {
        var components = URLComponents(url: baseURL.appendingPathComponent("menu"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "category", value: category)]
        load(URLRequest(url: components.url!)) { result in
            completion(result.flatMap { data in
                Result {
                    if self.variant == .community {
                        return try self.decoder.decode([String: [CommunityMenuItem]].self, from: data)["items", default: []].map {
                            RestaurantItem(id: $0.id, name: $0.name, description: $0.description, price: $0.price, category: $0.category.name,
                                           imageURL: URL(string: $0.imageUrl, relativeTo: self.baseURL)!.absoluteURL)
                        }
                    }
                    return try self.decoder.decode([String: [MenuItem]].self, from: data)["items", default: []].map {
                        RestaurantItem(id: $0.id, name: $0.name, description: $0.description, price: $0.price, category: $0.category,
                                       imageURL: URL(string: $0.imageUrl, relativeTo: self.baseURL)!.absoluteURL)
                    }
                }
            })
        }
    }

    func submitOrder(forMenuIDs ids: [Int], completion: @escaping @Sendable (Result<Int, any Error>) -> Void) {
        var request = URLRequest(url: baseURL.appendingPathComponent("order"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try? JSONEncoder().encode(["menuIds": ids])
        load(request) { result in
            completion(result.flatMap { data in
                Result { try self.decoder.decode(Order.self, from: data).preparationTime }
            })
        }
    }

    func fetchImage(url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        if let cached = images.object(forKey: url as NSURL) { return completion(.success(cached as Data)) }
        load(URLRequest(url: url)) { result in
            if case .success(let data) = result, !data.isEmpty { self.images.setObject(data as NSData, forKey: url as NSURL) }
            completion(result.flatMap { $0.isEmpty ? .failure(MenuError.noData) : .success($0) })
        }
    }
}

/// The adapter an app writes: each completion call bridged with a continuation.
struct CompletionRestaurantProvider: RestaurantProvider {
    let controller: CompletionMenuController

    init(context: ProviderContext, variant: RestaurantVariant) {
        controller = CompletionMenuController(baseURL: context.baseURL, variant: variant, configuration: context.sessionConfiguration,
                                              delegate: context.sessionDelegate)
    }

    func categories() async throws -> [String] {
        try await withCheckedThrowingContinuation { continuation in controller.fetchCategories { continuation.resume(with: $0) } }
    }

    func menuItems(category: String) async throws -> [RestaurantItem] {
        try await withCheckedThrowingContinuation { continuation in controller.fetchMenuItems(category: category) { continuation.resume(with: $0) } }
    }

    func submitOrder(menuIDs: [Int]) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in controller.submitOrder(forMenuIDs: menuIDs) { continuation.resume(with: $0) } }
    }

    func imageData(from url: URL) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in controller.fetchImage(url: url) { continuation.resume(with: $0) } }
    }
}

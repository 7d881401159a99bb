import BuiltInMockAPIs
import ContractHarness
import Foundation
import MockCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A Restaurant client written the way the curriculum's OrderApp writes `MenuController`
/// (URLSession with async/await, Codable with CodingKeys, only 200 accepted), with an
/// `ImageLoader` for images. It passes every shipped check, required and recommended:
/// copy it as a starting point, or adapt your own controller the same way.
public struct ReferenceRestaurantProvider: RestaurantProvider {
    /// Why a call failed, as OrderApp's `MenuController` names it.
    public enum ProviderError: Error, Equatable {
        /// The categories, the menu, the order or an image could not be fetched or decoded.
        case categoriesNotFound, menuItemsNotFound, orderRequestFailed, imageDataMissing
    }

    let baseURL: URL
    let session: URLSession
    let timeout: TimeInterval
    let variant: RestaurantVariant
    let images: ImageLoader

    /// Makes a provider for `context`'s server that speaks `variant` and caches up to `imageCacheLimit` images.
    public init(context: ProviderContext, variant: RestaurantVariant = .original, imageCacheLimit: Int = 50) {
        baseURL = context.baseURL
        session = URLSession(configuration: context.sessionConfiguration, delegate: context.sessionDelegate, delegateQueue: nil)
        timeout = context.timeout
        self.variant = variant
        images = ImageLoader(session: session, timeout: context.timeout, countLimit: imageCacheLimit)
    }

    /// The image loader's count limit.
    public var imageCacheLimit: Int? { images.countLimit }

    struct Category: Codable { let id: Int; let name: String }
    struct CategoriesResponse: Codable { let categories: [String] }
    struct CommunityCategoriesResponse: Codable { let categories: [Category] }

    struct MenuItem: Codable {
        let id: Int
        let name: String
        let detailText: String
        let price: Double
        let category: String
        let imageURL: String

        enum CodingKeys: String, CodingKey {
            case id, name, price, category
            case detailText = "description"
            case imageURL = "image_url"
        }
    }

    struct CommunityMenuItem: Codable {
        let id: Int
        let name: String
        let detailText: String
        let price: Double
        let category: Category
        let imageURL: String

        enum CodingKeys: String, CodingKey {
            case id, name, price, category
            case detailText = "description"
            case imageURL = "image_url"
        }
    }

    struct MenuResponse<Item: Codable>: Codable { let items: [Item] }
    struct OrderResponse: Codable {
        let prepTime: Int
        enum CodingKeys: String, CodingKey { case prepTime = "preparation_time" }
    }

    func get(_ path: String, query: [URLQueryItem] = [], failure: ProviderError) async throws -> Data {
        var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: true)!
        if !query.isEmpty { components.queryItems = query }
        let request = URLRequest(url: components.url!, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        let (data, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw failure }
        return data
    }

    /// `GET /categories`, decoded as the variant writes it.
    public func categories() async throws -> [String] {
        let data = try await get("categories", failure: .categoriesNotFound)
        switch variant {
        case .original, .vapor8090: return try JSONDecoder().decode(CategoriesResponse.self, from: data).categories
        case .community: return try JSONDecoder().decode(CommunityCategoriesResponse.self, from: data).categories.map(\.name)
        }
    }

    /// `GET /menu?category=NAME`, decoded as the variant writes it.
    public func menuItems(category: String) async throws -> [RestaurantItem] {
        let data = try await get("menu", query: [URLQueryItem(name: "category", value: category)], failure: .menuItemsNotFound)
        switch variant {
        case .original, .vapor8090:
            return try JSONDecoder().decode(MenuResponse<MenuItem>.self, from: data).items.map {
                RestaurantItem(id: $0.id, name: $0.name, description: $0.detailText, price: $0.price, category: $0.category, imageURL: try url($0.imageURL))
            }
        case .community:
            return try JSONDecoder().decode(MenuResponse<CommunityMenuItem>.self, from: data).items.map {
                RestaurantItem(id: $0.id, name: $0.name, description: $0.detailText, price: $0.price, category: $0.category.name, imageURL: try url($0.imageURL))
            }
        }
    }

    /// Absolute `image_url`s as they are; relative ones against the server.
    func url(_ text: String) throws -> URL {
        guard let url = URL(string: text, relativeTo: baseURL)?.absoluteURL else { throw ProviderError.menuItemsNotFound }
        return url
    }

    /// `POST /order` with `{"menuIds": [...]}`: the preparation time in minutes.
    public func submitOrder(menuIDs: [Int]) async throws -> Int {
        var request = URLRequest(url: baseURL.appendingPathComponent("order"), cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(["menuIds": menuIDs])
        let (data, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw ProviderError.orderRequestFailed }
        return try JSONDecoder().decode(OrderResponse.self, from: data).prepTime
    }

    /// The image's bytes through the `ImageLoader`; a bad status or an empty body throws `imageDataMissing`.
    public func imageData(from url: URL) async throws -> Data {
        do {
            return try await images.data(from: url)
        } catch let error as URLError where error.code == .badServerResponse {
            throw ProviderError.imageDataMissing
        }
    }
}

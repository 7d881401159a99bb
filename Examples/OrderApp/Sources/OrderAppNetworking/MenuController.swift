import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A dish on the restaurant's menu, as `GET /menu` sends it.
public struct MenuItem: Codable, Sendable, Hashable, Identifiable {
    public var id: Int
    public var name: String
    public var detailText: String
    /// In dollars.
    public var price: Double
    public var category: String
    /// Absolute once `MenuController` has decoded it (a relative `image_url` is resolved
    /// against the server).
    public var imageURL: URL

    enum CodingKeys: String, CodingKey {
        case id, name, price, category
        case detailText = "description"
        case imageURL = "image_url"
    }

    public init(id: Int, name: String, detailText: String, price: Double, category: String, imageURL: URL) {
        self.id = id
        self.name = name
        self.detailText = detailText
        self.price = price
        self.category = category
        self.imageURL = imageURL
    }
}

/// Why a `MenuController` call failed (besides the `URLError`s of the network and the
/// `DecodingError`s of a body that is not what the API sends).
public enum MenuControllerError: Error, Equatable, Sendable {
    /// `GET /categories` answered with this status instead of 200.
    case categoriesNotFound(status: Int)
    /// `GET /menu` answered with this status instead of 200.
    case menuItemsNotFound(status: Int)
    /// `POST /order` answered with this status instead of 200.
    case orderRequestFailed(status: Int)
    /// The image answered with this status instead of 200, or with no bytes (status 200).
    case imageDataMissing(status: Int)
}

/// The restaurant's API, written the way the OrderApp of Apple's *App Development with
/// Swift* curriculum writes it: async/await on a `URLSession`, Codable responses, and only
/// 200 taken for success. The session is injected, so tests (and previews) can point it
/// anywhere; images go through a bounded memory cache.
///
///     let controller = MenuController()   // http://localhost:8080/, URLSession.shared
///     let categories = try await controller.fetchCategories()
///     let minutes = try await controller.submitOrder(forMenuIDs: [1, 1, 5])
public final class MenuController: Sendable {
    public static let shared = MenuController()

    public let baseURL: URL
    private let session: URLSession
    private let images: ImageCache

    public init(baseURL: URL = URL(string: "http://localhost:8080/")!, session: URLSession = .shared, imageCacheLimit: Int = 100) {
        self.baseURL = baseURL
        self.session = session
        images = ImageCache(session: session, countLimit: imageCacheLimit)
    }

    /// How many images the cache keeps at most.
    public var imageCacheLimit: Int { images.countLimit }

    struct CategoriesResponse: Decodable { let categories: [String] }
    struct MenuResponse: Decodable { let items: [MenuItem] }
    struct OrderRequest: Encodable { let menuIds: [Int] }
    struct PreparationTime: Decodable {
        let prepTime: Int
        enum CodingKeys: String, CodingKey { case prepTime = "preparation_time" }
    }

    /// `GET /categories`: the category names, in the server's order.
    public func fetchCategories() async throws -> [String] {
        let data = try await send(URLRequest(url: baseURL.appending(path: "categories")), orThrow: MenuControllerError.categoriesNotFound)
        return try JSONDecoder().decode(CategoriesResponse.self, from: data).categories
    }

    /// `GET /menu?category=NAME`: the category's dishes.
    public func fetchMenuItems(forCategory categoryName: String) async throws -> [MenuItem] {
        let url = baseURL.appending(path: "menu").appending(queryItems: [URLQueryItem(name: "category", value: categoryName)])
        let data = try await send(URLRequest(url: url), orThrow: MenuControllerError.menuItemsNotFound)
        return try JSONDecoder().decode(MenuResponse.self, from: data).items.map { item in
            guard item.imageURL.scheme == nil, let absolute = URL(string: item.imageURL.relativeString, relativeTo: baseURL) else { return item }
            var item = item
            item.imageURL = absolute.absoluteURL
            return item
        }
    }

    /// `POST /order` with `{"menuIds": [...]}` (a repeated id is two of that dish): the
    /// preparation time in minutes. A failed order is never retried here — the server may
    /// have taken it; let the user decide.
    public func submitOrder(forMenuIDs menuIDs: [Int]) async throws -> Int {
        var request = URLRequest(url: baseURL.appending(path: "order"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(OrderRequest(menuIds: menuIDs))
        let data = try await send(request, orThrow: MenuControllerError.orderRequestFailed)
        return try JSONDecoder().decode(PreparationTime.self, from: data).prepTime
    }

    /// The bytes of an item's image (`MenuItem.imageURL`), from the memory cache when it
    /// has them. Make a `UIImage`/`NSImage` of them in the view layer.
    public func fetchImage(from url: URL) async throws -> Data {
        do {
            return try await images.data(from: url)
        } catch let error as ImageCache.LoadError {
            throw MenuControllerError.imageDataMissing(status: error.status)
        }
    }

    /// The body of a 200; any other status becomes `failure(status)`.
    private func send(_ request: URLRequest, orThrow failure: (Int) -> MenuControllerError) async throws -> Data {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        guard http.statusCode == 200 else { throw failure(http.statusCode) }
        return data
    }
}

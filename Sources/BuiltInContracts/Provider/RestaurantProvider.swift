import ContractHarness
import Foundation

/// The Restaurant API as a client's networking layer offers it. Adopt it with a thin
/// adapter over your own `MenuController`/`RestaurantController`; every method must throw
/// when the call fails (any status but 200, a body it cannot decode, a network error).
public protocol RestaurantProvider: Sendable {
    /// `GET /categories`: the category names, in the server's order.
    func categories() async throws -> [String]
    /// `GET /menu?category=NAME`: that category's items.
    func menuItems(category: String) async throws -> [RestaurantItem]
    /// `POST /order` with `{"menuIds": [...]}`: the preparation time in minutes.
    func submitOrder(menuIDs: [Int]) async throws -> Int
    /// The bytes of an item's image (through the client's image cache, if it has one).
    func imageData(from url: URL) async throws -> Data
    /// How many images the client's image cache keeps at most, if it is bounded
    /// (checked by `image-cache.bounded`).
    var imageCacheLimit: Int? { get }
}

extension RestaurantProvider {
    /// Nil: the client declares no image cache limit.
    public var imageCacheLimit: Int? { nil }
}

/// A menu item as the client decoded it.
public struct RestaurantItem: Sendable, Equatable {
    /// The item id, which an order names in `menuIds`.
    public var id: Int
    /// The item name.
    public var name: String
    /// The item description.
    public var description: String
    /// The price, as the server sends it.
    public var price: Double
    /// The name of the item's category.
    public var category: String
    /// Absolute: resolve a relative `image_url` against the base URL.
    public var imageURL: URL

    /// Makes an item from its decoded fields.
    public init(id: Int, name: String, description: String, price: Double, category: String, imageURL: URL) {
        self.id = id
        self.name = name
        self.description = description
        self.price = price
        self.category = category
        self.imageURL = imageURL
    }

    /// One line for reports.
    public var summary: String { "#\(id) \(name) \(price) [\(category)] \(imageURL.absoluteString)" }
}

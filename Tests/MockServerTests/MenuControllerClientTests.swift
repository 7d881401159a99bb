import Foundation
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client written the way the Apple curriculum's OrderApp writes `MenuController`
/// (URLSession + async/await + Codable with CodingKeys), for each server variant.
/// It knows nothing about the mock: it runs unmodified against its variant.
struct MenuController {
    enum MenuControllerError: Error, LocalizedError {
        case categoriesNotFound, menuItemsNotFound, orderRequestFailed, imageDataMissing
    }

    struct MenuItem: Codable {
        var id: Int
        var name: String
        var detailText: String
        var price: Double
        var category: String
        var imageURL: URL

        enum CodingKeys: String, CodingKey {
            case id, name, price, category
            case detailText = "description"
            case imageURL = "image_url"
        }
    }

    struct MenuResponse: Codable { let items: [MenuItem] }
    struct CategoriesResponse: Codable { let categories: [String] }
    struct OrderResponse: Codable {
        let prepTime: Int
        enum CodingKeys: String, CodingKey { case prepTime = "preparation_time" }
    }

    let baseURL: URL
    let session: URLSession

    func fetchCategories() async throws -> [String] {
        let (data, response) = try await session.data(from: baseURL.appendingPathComponent("categories"))
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw MenuControllerError.categoriesNotFound }
        return try JSONDecoder().decode(CategoriesResponse.self, from: data).categories
    }

    func fetchMenuItems(forCategory categoryName: String) async throws -> [MenuItem] {
        var components = URLComponents(url: baseURL.appendingPathComponent("menu"), resolvingAgainstBaseURL: true)!
        components.queryItems = [URLQueryItem(name: "category", value: categoryName)]
        let (data, response) = try await session.data(from: components.url!)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw MenuControllerError.menuItemsNotFound }
        return try JSONDecoder().decode(MenuResponse.self, from: data).items
    }

    func submitOrder(forMenuIDs menuIDs: [Int]) async throws -> Int {
        var request = URLRequest(url: baseURL.appendingPathComponent("order"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(["menuIds": menuIDs])
        let (data, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw MenuControllerError.orderRequestFailed }
        return try JSONDecoder().decode(OrderResponse.self, from: data).prepTime
    }

    func fetchImage(from url: URL) async throws -> Data {
        let (data, response) = try await session.data(from: url)
        guard (response as? HTTPURLResponse)?.statusCode == 200, !data.isEmpty else { throw MenuControllerError.imageDataMissing }
        return data
    }
}

/// The community server's client: categories and item categories are objects, image
/// URLs are relative to the server.
struct CommunityMenuController {
    struct Category: Codable, Equatable { let id: Int; let name: String }
    struct MenuItem: Codable {
        let id: Int
        let name: String
        let description: String
        let price: Double
        let category: Category
        let imageURL: String
        // No prep time: the community server's item type has none (#14).
        enum CodingKeys: String, CodingKey {
            case id, name, description, price, category
            case imageURL = "image_url"
        }
    }

    let baseURL: URL
    let session: URLSession

    func fetchCategories() async throws -> [Category] {
        struct Response: Codable { let categories: [Category] }
        let (data, _) = try await session.data(from: baseURL.appendingPathComponent("categories"))
        return try JSONDecoder().decode(Response.self, from: data).categories
    }

    func fetchMenuItems(for category: Category) async throws -> [MenuItem] {
        struct Response: Codable { let items: [MenuItem] }
        let (data, _) = try await session.data(from: URL(string: "\(baseURL.absoluteString)/menu?category=\(category.name)")!)
        return try JSONDecoder().decode(Response.self, from: data).items
    }

    func submitOrder(forMenuIDs ids: [Int]) async throws -> Int {
        struct Response: Codable { let preparation_time: Int }
        var request = URLRequest(url: baseURL.appendingPathComponent("order"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(["menuIds": ids])
        let (data, _) = try await session.data(for: request)
        return try JSONDecoder().decode(Response.self, from: data).preparation_time
    }

    func fetchImage(for item: MenuItem) async throws -> Data {
        let url = URL(string: item.imageURL, relativeTo: baseURL)!
        let (data, response) = try await session.data(from: url)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
        return data
    }
}

@Suite struct MenuControllerClientTests {
    @Test func originalClientRunsTheWholeFlow() async throws {
        try await withServer { server in
            let controller = MenuController(baseURL: server.address.url, session: HTTP.session)
            let categories = try await controller.fetchCategories()
            #expect(categories == ["appetizers", "salads", "soups", "entrees", "desserts", "sandwiches"])
            var all: [MenuController.MenuItem] = []
            for category in categories {
                let items = try await controller.fetchMenuItems(forCategory: category)
                #expect(items.allSatisfy { $0.category == category })
                all += items
            }
            #expect(all.count == 6)
            #expect(try await controller.fetchMenuItems(forCategory: "desserts").isEmpty)
            #expect(try await controller.fetchMenuItems(forCategory: "sandwiches").isEmpty)
            #expect(try await controller.submitOrder(forMenuIDs: [5]) == 5)
            #expect(try await controller.submitOrder(forMenuIDs: all.map(\.id)) == 87)
            for item in all {
                #expect(item.imageURL.port == server.port)
                _ = try PNGCheck.validate(try await controller.fetchImage(from: item.imageURL))
            }
            await #expect(throws: MenuController.MenuControllerError.orderRequestFailed) {
                try await controller.submitOrder(forMenuIDs: [])
            }
        }
    }

    @Test func communityClientRunsTheWholeFlow() async throws {
        try await withServer(restaurant: .community) { server in
            let controller = CommunityMenuController(baseURL: server.address.url, session: HTTP.session)
            let categories = try await controller.fetchCategories()
            #expect(categories.map(\.name) == ["appetizers", "salads", "soups", "entrees", "desserts", "sandwiches"])
            var all: [CommunityMenuController.MenuItem] = []
            for category in categories {
                let items = try await controller.fetchMenuItems(for: category)
                #expect(items.allSatisfy { $0.category == category })
                all += items
            }
            #expect(all.count == 6)
            #expect(try await controller.submitOrder(forMenuIDs: [5]) == 6)
            for item in all {
                _ = try PNGCheck.validate(try await controller.fetchImage(for: item))
            }
        }
    }

    @Test func eachClientFailsAgainstTheOtherVariant() async throws {
        try await withServer(restaurant: .community) { server in
            let original = MenuController(baseURL: server.address.url, session: HTTP.session)
            await #expect(throws: DecodingError.self) { try await original.fetchCategories() }
        }
        try await withServer { server in
            let community = CommunityMenuController(baseURL: server.address.url, session: HTTP.session)
            await #expect(throws: DecodingError.self) { try await community.fetchCategories() }
        }
    }
}

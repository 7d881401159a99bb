import ContractTests
import Foundation
import OrderAppNetworking
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Thin adapters from the app's clients to the contract's provider protocols: the harness
// builds one per check, with a fresh server, and drives it.

extension URLSession {
    /// The session a contract check's client must use: the harness's configuration (its
    /// timeout; for the in-process transport, its protocol classes) and, over HTTPS, the
    /// delegate that trusts the mock's local CA.
    static func forContract(_ context: ProviderContext) -> URLSession {
        URLSession(configuration: context.sessionConfiguration, delegate: context.sessionDelegate, delegateQueue: nil)
    }
}

struct MenuControllerAdapter: RestaurantProvider {
    let controller: MenuController

    init(context: ProviderContext) {
        controller = MenuController(baseURL: context.baseURL, session: .forContract(context))
    }

    var imageCacheLimit: Int? { controller.imageCacheLimit }

    func categories() async throws -> [String] {
        try await controller.fetchCategories()
    }

    func menuItems(category: String) async throws -> [RestaurantItem] {
        try await controller.fetchMenuItems(forCategory: category).map {
            RestaurantItem(id: $0.id, name: $0.name, description: $0.detailText, price: $0.price, category: $0.category, imageURL: $0.imageURL)
        }
    }

    func submitOrder(menuIDs: [Int]) async throws -> Int {
        try await controller.submitOrder(forMenuIDs: menuIDs)
    }

    func imageData(from url: URL) async throws -> Data {
        try await controller.fetchImage(from: url)
    }
}

struct OpenMarketClientAdapter: OpenMarketProvider {
    struct UnsupportedCurrency: Error { let code: String }

    let client: OpenMarketClient

    init(context: ProviderContext) {
        client = OpenMarketClient(baseURL: context.baseURL, identifier: context.vendor.identifier, session: .forContract(context))
    }

    var imageCacheLimit: Int? { client.imageCacheLimit }

    func healthCheck() async throws -> Bool {
        try await client.healthCheck()
    }

    func page(number: Int, itemsPerPage: Int) async throws -> MarketPage {
        let page = try await client.fetchPage(number: number, itemsPerPage: itemsPerPage)
        return MarketPage(pageNumber: page.pageNumber, itemsPerPage: page.itemsPerPage, totalCount: page.totalCount, offset: page.offset,
                          limit: page.limit, lastPage: page.lastPage, hasNext: page.hasNext, hasPrevious: page.hasPrevious,
                          products: page.products.map(\.market))
    }

    func product(id: Int) async throws -> MarketProduct {
        try await client.fetchProduct(id: id).market
    }

    func createProduct(_ product: NewMarketProduct, images: [MarketImageUpload]) async throws -> MarketProduct {
        guard let currency = Currency(rawValue: product.currency) else { throw UnsupportedCurrency(code: product.currency) }
        let params = NewProduct(name: product.name, description: product.description, price: product.price, currency: currency,
                                discountedPrice: product.discountedPrice, stock: product.stock, secret: product.secret)
        let files = images.map { ImageFile(filename: $0.filename, data: $0.data, mimeType: $0.mimeType) }
        return try await client.createProduct(params, images: files).market
    }

    func updateProduct(id: Int, _ changes: MarketProductChanges) async throws -> MarketProduct {
        let update = ProductUpdate(name: changes.name, description: changes.description, thumbnailID: changes.thumbnailID,
                                   price: changes.price, currency: changes.currency.flatMap(Currency.init(rawValue:)),
                                   discountedPrice: changes.discountedPrice, stock: changes.stock, secret: changes.secret)
        return try await client.updateProduct(id: id, update).market
    }

    func productSecret(id: Int, password: String) async throws -> String {
        try await client.secret(for: id, password: password)
    }

    func deleteProduct(id: Int, secret: String) async throws -> MarketProduct {
        try await client.deleteProduct(id: id, secret: secret).market
    }

    func imageData(from url: URL) async throws -> Data {
        try await client.fetchImage(from: url)
    }
}

extension Product {
    /// The contract's view of a product.
    var market: MarketProduct {
        MarketProduct(id: id, vendorID: vendorID, name: name, thumbnail: thumbnail, currency: currency.rawValue, price: price,
                      bargainPrice: bargainPrice, discountedPrice: discountedPrice, stock: stock, createdAt: createdAt, issuedAt: issuedAt,
                      description: description, images: images.map { MarketImage(id: $0.id, url: $0.url, thumbnailURL: $0.thumbnailURL) },
                      vendorName: vendor?.name)
    }
}

import Foundation

/// The Open Market API as a client's networking layer offers it. Every method must throw
/// when the call fails (a status outside 200–299, a body it cannot decode, a network error).
public protocol OpenMarketProvider: Sendable {
    /// `GET /healthChecker`: true when the server answers `"OK"`.
    func healthCheck() async throws -> Bool
    /// `GET /api/products?page_no=N&items_per_page=M`.
    func page(number: Int, itemsPerPage: Int) async throws -> MarketPage
    /// `GET /api/products/{id}`.
    func product(id: Int) async throws -> MarketProduct
    /// `POST /api/products`: multipart with a `params` JSON part and one `images` part per image.
    func createProduct(_ product: NewMarketProduct, images: [MarketImageUpload]) async throws -> MarketProduct
    /// `PATCH /api/products/{id}`: only the fields that are set, plus the vendor password.
    func updateProduct(id: Int, _ changes: MarketProductChanges) async throws -> MarketProduct
    /// `POST /api/products/{id}/secret` (or `/archived` in late 2022): the product secret.
    func productSecret(id: Int, password: String) async throws -> String
    /// `DELETE /api/products/{id}/{secret}`: the deleted product.
    func deleteProduct(id: Int, secret: String) async throws -> MarketProduct
    /// Bytes of a thumbnail or image URL (through the client's image cache, if any).
    func imageData(from url: URL) async throws -> Data
    var imageCacheLimit: Int? { get }
}

extension OpenMarketProvider {
    public var imageCacheLimit: Int? { nil }
}

public struct MarketPage: Sendable, Equatable {
    public var pageNumber: Int
    public var itemsPerPage: Int
    public var totalCount: Int
    public var offset: Int
    public var limit: Int
    public var lastPage: Int
    public var hasNext: Bool
    public var hasPrevious: Bool
    public var products: [MarketProduct]

    public init(pageNumber: Int, itemsPerPage: Int, totalCount: Int, offset: Int, limit: Int, lastPage: Int,
                hasNext: Bool, hasPrevious: Bool, products: [MarketProduct]) {
        self.pageNumber = pageNumber
        self.itemsPerPage = itemsPerPage
        self.totalCount = totalCount
        self.offset = offset
        self.limit = limit
        self.lastPage = lastPage
        self.hasNext = hasNext
        self.hasPrevious = hasPrevious
        self.products = products
    }
}

/// A product as the client decoded it: a list item, or a detail when `description`,
/// `images` and `vendorName` are set.
public struct MarketProduct: Sendable, Equatable {
    public var id: Int
    public var vendorID: Int
    public var name: String
    public var thumbnail: URL
    public var currency: String
    public var price: Double
    public var bargainPrice: Double
    public var discountedPrice: Double
    public var stock: Int
    public var createdAt: Date
    public var issuedAt: Date
    public var description: String?
    public var images: [MarketImage]
    public var vendorName: String?

    public init(id: Int, vendorID: Int, name: String, thumbnail: URL, currency: String, price: Double, bargainPrice: Double,
                discountedPrice: Double, stock: Int, createdAt: Date, issuedAt: Date, description: String? = nil,
                images: [MarketImage] = [], vendorName: String? = nil) {
        self.id = id
        self.vendorID = vendorID
        self.name = name
        self.thumbnail = thumbnail
        self.currency = currency
        self.price = price
        self.bargainPrice = bargainPrice
        self.discountedPrice = discountedPrice
        self.stock = stock
        self.createdAt = createdAt
        self.issuedAt = issuedAt
        self.description = description
        self.images = images
        self.vendorName = vendorName
    }
}

public struct MarketImage: Sendable, Equatable {
    public var id: Int
    public var url: URL
    public var thumbnailURL: URL
    public init(id: Int, url: URL, thumbnailURL: URL) {
        self.id = id
        self.url = url
        self.thumbnailURL = thumbnailURL
    }
}

public struct NewMarketProduct: Sendable, Equatable {
    public var name: String
    public var description: String
    public var price: Double
    public var currency: String
    public var discountedPrice: Double?
    public var stock: Int?
    /// The vendor password.
    public var secret: String
    public init(name: String, description: String, price: Double, currency: String, discountedPrice: Double? = nil,
                stock: Int? = nil, secret: String) {
        self.name = name
        self.description = description
        self.price = price
        self.currency = currency
        self.discountedPrice = discountedPrice
        self.stock = stock
        self.secret = secret
    }
}

public struct MarketImageUpload: Sendable, Equatable {
    public var filename: String
    public var data: Data
    /// `image/png` or `image/jpeg`.
    public var mimeType: String
    public init(filename: String, data: Data, mimeType: String) {
        self.filename = filename
        self.data = data
        self.mimeType = mimeType
    }
}

public struct MarketProductChanges: Sendable, Equatable {
    public var name: String?
    public var description: String?
    public var price: Double?
    public var currency: String?
    public var discountedPrice: Double?
    public var stock: Int?
    public var thumbnailID: Int?
    /// The vendor password (required).
    public var secret: String
    public init(name: String? = nil, description: String? = nil, price: Double? = nil, currency: String? = nil,
                discountedPrice: Double? = nil, stock: Int? = nil, thumbnailID: Int? = nil, secret: String) {
        self.name = name
        self.description = description
        self.price = price
        self.currency = currency
        self.discountedPrice = discountedPrice
        self.stock = stock
        self.thumbnailID = thumbnailID
        self.secret = secret
    }
}

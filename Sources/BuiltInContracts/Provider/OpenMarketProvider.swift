import ContractHarness
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
    /// How many images the client's image cache keeps at most, nil when it has none or does not
    /// say: the `image-cache.bounded` check needs it.
    var imageCacheLimit: Int? { get }
}

extension OpenMarketProvider {
    /// Nil: the client declares no image cache limit.
    public var imageCacheLimit: Int? { nil }
}

/// One page of `GET /api/products`, as the client decoded it.
public struct MarketPage: Sendable, Equatable {
    /// The page number asked for, from 1 (`page_no`).
    public var pageNumber: Int
    /// How many products a page holds (`items_per_page`).
    public var itemsPerPage: Int
    /// How many products there are in all (`total_count`).
    public var totalCount: Int
    /// How many products come before this page (`offset`).
    public var offset: Int
    /// The most products this page may hold (`limit`).
    public var limit: Int
    /// The number of the last page (`last_page`).
    public var lastPage: Int
    /// Whether a page follows (`has_next`).
    public var hasNext: Bool
    /// Whether a page precedes (`has_prev`).
    public var hasPrevious: Bool
    /// The page's products, in the server's order.
    public var products: [MarketProduct]

    /// Makes a page from its decoded fields.
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
    /// The product id.
    public var id: Int
    /// The id of the vendor that sells it (`vendor_id`).
    public var vendorID: Int
    /// The product name.
    public var name: String
    /// The thumbnail image's URL.
    public var thumbnail: URL
    /// `KRW` or `USD`.
    public var currency: String
    /// The list price.
    public var price: Double
    /// The price after the discount (`bargain_price`): `price` − `discountedPrice`.
    public var bargainPrice: Double
    /// The discount taken off the list price (`discounted_price`).
    public var discountedPrice: Double
    /// Units in stock.
    public var stock: Int
    /// When the product was created (`created_at`).
    public var createdAt: Date
    /// When it was last changed (`issued_at`).
    public var issuedAt: Date
    /// The description; nil where the answer has none (January 2022 list items).
    public var description: String?
    /// The product's images; empty where the answer lists none (list items).
    public var images: [MarketImage]
    /// The vendor's name, where the answer has one (details, late-2022 list items).
    public var vendorName: String?

    /// Makes a product from its decoded fields.
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

/// One image of a product.
public struct MarketImage: Sendable, Equatable {
    /// The image id.
    public var id: Int
    /// The full-size image's URL.
    public var url: URL
    /// The thumbnail's URL.
    public var thumbnailURL: URL
    /// Makes an image from its decoded fields.
    public init(id: Int, url: URL, thumbnailURL: URL) {
        self.id = id
        self.url = url
        self.thumbnailURL = thumbnailURL
    }
}

/// What `createProduct` sends as the `params` part.
public struct NewMarketProduct: Sendable, Equatable {
    /// The product name.
    public var name: String
    /// The description.
    public var description: String
    /// The list price.
    public var price: Double
    /// `KRW` or `USD`.
    public var currency: String
    /// The discount off the list price; nil sends none (the server takes 0).
    public var discountedPrice: Double?
    /// Units in stock; nil sends none (the server takes 0).
    public var stock: Int?
    /// The vendor password.
    public var secret: String
    /// Makes a new product; without a discount or stock the server takes 0.
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

/// One image part of `createProduct`.
public struct MarketImageUpload: Sendable, Equatable {
    /// The file name the part declares.
    public var filename: String
    /// The image bytes (Open Market takes at most 300 KB each).
    public var data: Data
    /// `image/png` or `image/jpeg`.
    public var mimeType: String
    /// Makes an image part.
    public init(filename: String, data: Data, mimeType: String) {
        self.filename = filename
        self.data = data
        self.mimeType = mimeType
    }
}

/// What `updateProduct` changes: only the fields that are set are sent.
public struct MarketProductChanges: Sendable, Equatable {
    /// The new name, nil to keep it.
    public var name: String?
    /// The new description, nil to keep it.
    public var description: String?
    /// The new list price, nil to keep it.
    public var price: Double?
    /// The new currency, nil to keep it.
    public var currency: String?
    /// The new discount, nil to keep it.
    public var discountedPrice: Double?
    /// The new stock, nil to keep it.
    public var stock: Int?
    /// The id of the image to make the thumbnail, nil to keep it.
    public var thumbnailID: Int?
    /// The vendor password (required).
    public var secret: String
    /// Makes a change of the fields given; `secret` is the vendor password.
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

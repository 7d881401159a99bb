import Foundation

/// One page of `GET /api/products`, newest product first.
public struct ProductPage: Decodable, Sendable, Hashable {
    public var pageNumber: Int
    public var itemsPerPage: Int
    public var totalCount: Int
    public var offset: Int
    public var limit: Int
    public var lastPage: Int
    public var hasNext: Bool
    public var hasPrevious: Bool
    public var products: [Product]

    enum CodingKeys: String, CodingKey {
        case offset, limit
        case pageNumber = "page_no", itemsPerPage = "items_per_page", totalCount = "total_count"
        case lastPage = "last_page", hasNext = "has_next", hasPrevious = "has_prev"
        case products = "pages"
    }

    public init(pageNumber: Int, itemsPerPage: Int, totalCount: Int, offset: Int, limit: Int, lastPage: Int,
                hasNext: Bool, hasPrevious: Bool, products: [Product]) {
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

    /// What a page past the last one holds (the server answers it with 204 and no body).
    public static func pastTheEnd(number: Int, itemsPerPage: Int) -> ProductPage {
        ProductPage(pageNumber: number, itemsPerPage: itemsPerPage, totalCount: 0, offset: 0, limit: 0, lastPage: 0,
                    hasNext: false, hasPrevious: number > 1, products: [])
    }
}

/// The currencies the market sells in.
public enum Currency: String, Codable, Sendable, Hashable, CaseIterable {
    case krw = "KRW"
    case usd = "USD"
}

/// A product: a list item, or a detail (`GET /api/products/{id}` and every write), which
/// also carries `description`, `images` and `vendor`.
public struct Product: Decodable, Sendable, Hashable, Identifiable {
    public var id: Int
    public var vendorID: Int
    public var name: String
    public var thumbnail: URL
    public var currency: Currency
    /// Money has cents (USD): never decode it as `Int` or `Float`.
    public var price: Double
    /// `price − discountedPrice`, as the server computes it.
    public var bargainPrice: Double
    public var discountedPrice: Double
    public var stock: Int
    public var createdAt: Date
    public var issuedAt: Date
    /// Detail only.
    public var description: String?
    /// Detail only (empty on list items).
    public var images: [ProductImage]
    /// Detail only.
    public var vendor: Vendor?

    enum CodingKeys: String, CodingKey {
        case id, name, thumbnail, currency, price, stock, description, images
        case vendorID = "vendor_id", bargainPrice = "bargain_price", discountedPrice = "discounted_price"
        case createdAt = "created_at", issuedAt = "issued_at", vendor = "vendors"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        vendorID = try container.decode(Int.self, forKey: .vendorID)
        name = try container.decode(String.self, forKey: .name)
        thumbnail = try container.decode(URL.self, forKey: .thumbnail)
        currency = try container.decode(Currency.self, forKey: .currency)
        price = try container.decode(Double.self, forKey: .price)
        bargainPrice = try container.decode(Double.self, forKey: .bargainPrice)
        discountedPrice = try container.decode(Double.self, forKey: .discountedPrice)
        stock = try container.decode(Int.self, forKey: .stock)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        issuedAt = try container.decode(Date.self, forKey: .issuedAt)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        images = try container.decodeIfPresent([ProductImage].self, forKey: .images) ?? []
        vendor = try container.decodeIfPresent(Vendor.self, forKey: .vendor)
    }
}

/// One of a product's images.
public struct ProductImage: Decodable, Sendable, Hashable, Identifiable {
    public var id: Int
    public var url: URL
    public var thumbnailURL: URL
    public var succeed: Bool
    public var issuedAt: Date

    enum CodingKeys: String, CodingKey {
        case id, url, succeed
        case thumbnailURL = "thumbnail_url", issuedAt = "issued_at"
    }
}

/// The seller of a product.
public struct Vendor: Decodable, Sendable, Hashable, Identifiable {
    public var id: Int
    public var name: String
    public var createdAt: Date
    public var issuedAt: Date

    enum CodingKeys: String, CodingKey {
        case id, name
        case createdAt = "created_at", issuedAt = "issued_at"
    }
}

/// The `params` of `POST /api/products`.
public struct NewProduct: Encodable, Sendable, Hashable {
    public var name: String
    public var description: String
    public var price: Double
    public var currency: Currency
    public var discountedPrice: Double?
    public var stock: Int?
    /// The vendor's password.
    public var secret: String

    enum CodingKeys: String, CodingKey {
        case name, price, currency, stock, secret
        case description = "descriptions"   // plural in the January 2022 API
        case discountedPrice = "discounted_price"
    }

    public init(name: String, description: String, price: Double, currency: Currency, discountedPrice: Double? = nil,
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

/// The body of `PATCH /api/products/{id}`: only the fields that are set are sent.
public struct ProductUpdate: Encodable, Sendable, Hashable {
    public var name: String?
    public var description: String?
    public var thumbnailID: Int?
    public var price: Double?
    public var currency: Currency?
    public var discountedPrice: Double?
    public var stock: Int?
    /// The vendor's password (required).
    public var secret: String

    enum CodingKeys: String, CodingKey {
        case name, price, currency, stock, secret
        case description = "descriptions"
        case thumbnailID = "thumbnail_id", discountedPrice = "discounted_price"
    }

    public init(name: String? = nil, description: String? = nil, thumbnailID: Int? = nil, price: Double? = nil,
                currency: Currency? = nil, discountedPrice: Double? = nil, stock: Int? = nil, secret: String) {
        self.name = name
        self.description = description
        self.thumbnailID = thumbnailID
        self.price = price
        self.currency = currency
        self.discountedPrice = discountedPrice
        self.stock = stock
        self.secret = secret
    }
}

/// An image to upload with a new product (at most five, 300 KB each).
public struct ImageFile: Sendable, Hashable {
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

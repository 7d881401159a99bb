import Foundation
import MockCore

/// A product as the simulator keeps it: mutable state, owned by one engine.
public struct OpenMarketProduct: Sendable, Equatable, Codable {
    /// A product image as the simulator keeps it.
    public struct Image: Sendable, Equatable, Codable {
        /// The image id the API shows.
        public var id: Int
        /// Key of the origin file (`origin/<file>`); the thumbnail is `thumb/<file>`.
        public var file: String
        /// When the image was added.
        public var issuedAt: Date
    }

    /// The product id.
    public var id: Int
    /// The id of the vendor that owns it.
    public var vendorID: Int
    /// The product name.
    public var name: String
    /// The product description.
    public var description: String
    /// `KRW` or `USD`.
    public var currency: String
    /// The list price, in the currency's units.
    public var price: Double
    /// The discount taken off `price`.
    public var discountedPrice: Double
    /// Units in stock.
    public var stock: Int
    /// The product secret, needed to delete it.
    public var secret: String
    /// When the product was created.
    public var createdAt: Date
    /// When the product was last changed.
    public var issuedAt: Date
    /// The product's images, in upload order.
    public var images: [Image]
    /// The id of the image shown as the thumbnail (the first image when no image has it).
    public var thumbnailImageID: Int
    /// The late-2022 delete URI token, handed out by `/archived`.
    public var deleteToken: String

    /// In cents, as the server keeps money: 49.99 − 4.5 is 45.49, not 45.490000000000002.
    public var bargainPrice: Double { ((price - discountedPrice) * 100).rounded() / 100 }
    /// The image with `thumbnailImageID`, else the first image; nil when there are none.
    public var thumbnailImage: Image? { images.first { $0.id == thumbnailImageID } ?? images.first }
}

/// Wire encoding of products, per variant, with base-URL holes for image URLs.
struct ProductWire {
    let variant: OpenMarketVariant
    let vendors: [Int: OpenMarketFixtures.Vendor]

    /// The list item (page entry) JSON.
    func listItem(_ product: OpenMarketProduct) -> BodyTemplate { encode(ListItem(product: product, wire: self, detail: false)) }

    /// The detail JSON (list keys plus `description`, `images`, `vendors`).
    func detail(_ product: OpenMarketProduct) -> BodyTemplate { encode(ListItem(product: product, wire: self, detail: true)) }

    private func encode(_ item: ListItem) -> BodyTemplate {
        let data = JSONCoding.encode(item)
        return BodyTemplate(data: variant.writesMoneyAsDecimals ? Money.literals(in: data) : data)
    }

    static func imageURL(_ kind: String, _ file: String) -> String {
        BodyTemplate.baseURLMarker + "/market-images/\(kind)/" + file
    }

    struct ListItem: Encodable {
        let product: OpenMarketProduct
        let wire: ProductWire
        let detail: Bool

        enum Keys: String, CodingKey {
            case id, vendor_id, vendorName, name, thumbnail, currency, price, bargain_price, discounted_price, stock
            case created_at, issued_at, description, images, vendors
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(product.id, forKey: .id)
            try c.encode(product.vendorID, forKey: .vendor_id)
            try c.encode(product.name, forKey: .name)
            try c.encode(ProductWire.imageURL("thumb", product.thumbnailImage?.file ?? ""), forKey: .thumbnail)
            try c.encode(product.currency, forKey: .currency)
            let decimals = wire.variant.writesMoneyAsDecimals
            try c.encode(Money(product.price, decimals: decimals), forKey: .price)
            try c.encode(Money(product.bargainPrice, decimals: decimals), forKey: .bargain_price)
            try c.encode(Money(product.discountedPrice, decimals: decimals), forKey: .discounted_price)
            try c.encode(product.stock, forKey: .stock)
            try c.encode(wire.variant.format(product.createdAt), forKey: .created_at)
            try c.encode(wire.variant.format(product.issuedAt), forKey: .issued_at)
            if wire.variant.listItemsCarryDescription {
                try c.encode(product.description, forKey: .description)
                if let vendor = wire.vendors[product.vendorID] { try c.encode(vendor.name, forKey: .vendorName) }
            }
            guard detail else { return }
            try c.encode(product.description, forKey: .description)
            try c.encode(product.images.map { ImageWire(image: $0, variant: wire.variant) }, forKey: .images)
            if let vendor = wire.vendors[product.vendorID] {
                try c.encode(VendorWire(vendor: vendor, variant: wire.variant), forKey: .vendors)
            }
        }
    }

    struct ImageWire: Encodable {
        let image: OpenMarketProduct.Image
        let variant: OpenMarketVariant
        enum Keys: String, CodingKey { case id, url, thumbnail_url, succeed, issued_at }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(image.id, forKey: .id)
            try c.encode(ProductWire.imageURL("origin", image.file), forKey: .url)
            try c.encode(ProductWire.imageURL("thumb", image.file), forKey: .thumbnail_url)
            // The late-2022 server no longer sent `succeed`.
            if variant != .late2022 { try c.encode(true, forKey: .succeed) }
            try c.encode(variant.format(image.issuedAt), forKey: .issued_at)
        }
    }

    struct VendorWire: Encodable {
        let vendor: OpenMarketFixtures.Vendor
        let variant: OpenMarketVariant
        enum Keys: String, CodingKey { case name, id, created_at, issued_at }
        func date(_ text: String) -> String {
            OpenMarketVariant.parseFixtureDate(text).map(variant.format) ?? text
        }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(vendor.name, forKey: .name)
            try c.encode(vendor.id, forKey: .id)
            // The late-2022 server's vendor is `{id, name}`.
            guard variant != .late2022 else { return }
            try c.encode(date(vendor.createdAt), forKey: .created_at)
            try c.encode(date(vendor.issuedAt), forKey: .issued_at)
        }
    }
}

/// Money on the wire: whole amounts without a fraction (`2000`), as the January 2022
/// server wrote them, or always with one (`2000.0`) for the late-2022 server. JSONEncoder
/// writes `2000.0` as `2000`, so a decimal is encoded as a marked string and
/// `literals(in:)` turns the marks back into bare numbers.
struct Money: Encodable {
    let value: Double
    let decimals: Bool
    init(_ value: Double, decimals: Bool) {
        self.value = value
        self.decimals = decimals
    }

    /// A mark no client can write into a product: it carries a nonce made at start-up.
    static let open = "@@MOCKSERVER_MONEY_\(UUID().uuidString):"
    static let close = "@@"

    func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        let whole = value.rounded() == value && abs(value) < 9e15
        if decimals {
            try c.encode(Self.open + (whole ? "\(Int(value)).0" : "\(value)") + Self.close)
        } else if whole {
            try c.encode(Int(value))
        } else {
            try c.encode(value)
        }
    }

    /// `"@@MOCKSERVER_MONEY:2000.0@@"` → `2000.0`.
    static func literals(in data: Data) -> Data {
        let open = Data(("\"" + Self.open).utf8), close = Data((Self.close + "\"").utf8)
        guard data.range(of: open) != nil else { return data }
        var out = Data()
        var rest = data[...]
        while let start = rest.range(of: open), let end = rest.range(of: close, in: start.upperBound..<rest.endIndex) {
            out.append(rest[..<start.lowerBound])
            out.append(rest[start.upperBound..<end.lowerBound])
            rest = rest[end.upperBound...]
        }
        out.append(rest)
        return out
    }
}

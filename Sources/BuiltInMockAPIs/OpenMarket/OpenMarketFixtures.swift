import Foundation
import MockCore

/// The Open Market fixture set under `Fixtures/openmarket/`: `vendors.json`,
/// `products.json`, and images in `images/origin/` and `images/thumb/`.
public struct OpenMarketFixtures: Sendable {
    /// A vendor as `vendors.json` holds it: the account that owns products.
    public struct Vendor: Codable, Sendable, Equatable {
        /// The vendor's id, which products name in `vendor_id`.
        public var id: Int
        /// The vendor's display name.
        public var name: String
        /// The `identifier` header value that authenticates this vendor.
        public var identifier: String
        /// The vendor's password: the `secret` in create, update and secret lookup.
        public var password: String
        /// `created_at`, as the server writes dates (`2021-12-20T00:00:00.00`).
        public var createdAt: String
        /// `issued_at`, as the server writes dates.
        public var issuedAt: String

        enum CodingKeys: String, CodingKey {
            case id, name, identifier, password
            case createdAt = "created_at"
            case issuedAt = "issued_at"
        }
    }

    /// An image of a fixture product.
    public struct ProductImage: Codable, Sendable, Equatable {
        /// The image id the API shows.
        public var id: Int
        /// A file name present in both `images/origin/` and `images/thumb/`.
        public var file: String
    }

    /// A product as `products.json` holds it: its starting state.
    public struct Product: Codable, Sendable, Equatable {
        /// The product id, unique in the file.
        public var id: Int
        /// The id of the vendor that owns it (`vendor_id`).
        public var vendorID: Int
        /// The product name.
        public var name: String
        /// The product description.
        public var description: String
        /// `KRW` or `USD` (see `currencies`).
        public var currency: String
        /// The list price, in the currency's units.
        public var price: Double
        /// The discount taken off `price` (`discounted_price`).
        public var discountedPrice: Double
        /// Units in stock.
        public var stock: Int
        /// The product secret (needed to delete it).
        public var secret: String
        /// `created_at`, as the server writes dates.
        public var createdAt: String
        /// `issued_at`, as the server writes dates.
        public var issuedAt: String
        /// The product's images; the first is the thumbnail.
        public var images: [ProductImage]

        enum CodingKeys: String, CodingKey {
            case id, name, description, currency, price, stock, secret, images
            case vendorID = "vendor_id"
            case discountedPrice = "discounted_price"
            case createdAt = "created_at"
            case issuedAt = "issued_at"
        }
    }

    /// The vendors, in file order.
    public var vendors: [Vendor]
    /// The products, in file order.
    public var products: [Product]
    /// Loaded image files, keyed `origin/<file>` and `thumb/<file>`.
    public var images: [String: StaticAsset]

    /// The currencies the server accepts.
    public static let currencies: Set<String> = ["KRW", "USD"]

    /// Reads `vendors.json`, `products.json` and the images in `directory`; every problem is
    /// thrown together, with the file and JSON path.
    public static func load(from directory: URL) throws(FixtureError) -> OpenMarketFixtures {
        let vendorsURL = directory.appendingPathComponent("vendors.json")
        let productsURL = directory.appendingPathComponent("products.json")
        var problems: [FixtureProblem] = []
        var vendors: [Vendor] = []
        var products: [Product] = []
        do { vendors = try FixtureFile.read(vendorsURL) { FixtureFields($1, "$", $0)?.list("vendors", Vendor.init(fixture:_:_:)) } } catch { problems += error.problems }
        do { products = try FixtureFile.read(productsURL) { FixtureFields($1, "$", $0)?.list("products", Product.init(fixture:_:_:)) } } catch { problems += error.problems }
        guard problems.isEmpty else { throw FixtureError(problems) }

        problems += checkVendors(vendors, file: vendorsURL.path)
        let vendorIDs = Set(vendors.map(\.id))
        var productIDs = Set<Int>(), imageIDs = Set<Int>()
        var images: [String: StaticAsset] = [:]
        // Files read in both folders already: most products share their images.
        var bothRead = Set<String>()
        let imageFolders = ["origin", "thumb"].map { ($0, directory.appendingPathComponent("images/\($0)").path) }
        for (index, product) in products.enumerated() {
            func problem(_ key: String, _ reason: String) {
                problems.append(FixtureProblem(file: productsURL.path, jsonPath: "$.products[\(index)].\(key)", reason: reason))
            }
            if !productIDs.insert(product.id).inserted { problem("id", "duplicate id \(product.id)") }
            if !vendorIDs.contains(product.vendorID) { problem("vendor_id", "no vendor with id \(product.vendorID) in vendors.json") }
            if !currencies.contains(product.currency) { problem("currency", "must be one of KRW, USD; found \"\(product.currency)\"") }
            if !(product.price >= 0) { problem("price", "must be zero or more") }
            if !(product.discountedPrice >= 0 && product.discountedPrice <= product.price) {
                problem("discounted_price", "must be between 0 and the price (\(product.price))")
            }
            if product.stock < 0 { problem("stock", "must be zero or more") }
            if product.secret.isEmpty { problem("secret", "must not be empty") }
            for key in ["created_at", "issued_at"] {
                let text = key == "created_at" ? product.createdAt : product.issuedAt
                if OpenMarketVariant.parseFixtureDate(text) == nil {
                    problem(key, "expected a date like \"2022-01-04T00:00:00.00\", found \"\(text)\"")
                }
            }
            if product.images.isEmpty { problem("images", "a product needs at least one image") }
            for (imageIndex, image) in product.images.enumerated() {
                if !imageIDs.insert(image.id).inserted { problem("images[\(imageIndex)].id", "duplicate image id \(image.id)") }
                guard !bothRead.contains(image.file) else { continue }
                var read = 0
                for (kind, folder) in imageFolders {
                    let key = kind + "/" + image.file
                    guard images[key] == nil else {
                        read += 1
                        continue
                    }
                    switch RestaurantFixtures.loadImage(named: image.file, in: folder) {
                    case .success(let asset):
                        images[key] = asset
                        read += 1
                    case .failure(let reason): problem("images[\(imageIndex)].file", reason.replacingOccurrences(of: "images/", with: "images/\(kind)/"))
                    }
                }
                if read == imageFolders.count { bothRead.insert(image.file) }
            }
        }
        guard problems.isEmpty else { throw FixtureError(problems) }
        return OpenMarketFixtures(vendors: vendors, products: products, images: images)
    }

    static func checkVendors(_ vendors: [Vendor], file: String) -> [FixtureProblem] {
        var problems: [FixtureProblem] = []
        var ids = Set<Int>(), identifiers = Set<String>()
        for (index, vendor) in vendors.enumerated() {
            if !ids.insert(vendor.id).inserted {
                problems.append(FixtureProblem(file: file, jsonPath: "$.vendors[\(index)].id", reason: "duplicate id \(vendor.id)"))
            }
            if vendor.identifier.isEmpty || !identifiers.insert(vendor.identifier).inserted {
                problems.append(FixtureProblem(file: file, jsonPath: "$.vendors[\(index)].identifier", reason: "must be non-empty and unique"))
            }
            if vendor.password.isEmpty {
                problems.append(FixtureProblem(file: file, jsonPath: "$.vendors[\(index)].password", reason: "must not be empty"))
            }
        }
        return problems
    }
}

// Reading the fixture files (see `FixtureFields`); the keys are the `CodingKeys` above.
extension OpenMarketFixtures.Vendor {
    init?(fixture json: JSONValue, _ path: String, _ reader: JSONReader) {
        guard let o = FixtureFields(json, path, reader) else { return nil }
        let id = o.int("id"), name = o.string("name"), identifier = o.string("identifier"), password = o.string("password")
        let createdAt = o.string("created_at"), issuedAt = o.string("issued_at")
        guard let id, let name, let identifier, let password, let createdAt, let issuedAt else { return nil }
        self.init(id: id, name: name, identifier: identifier, password: password, createdAt: createdAt, issuedAt: issuedAt)
    }
}

extension OpenMarketFixtures.ProductImage {
    init?(fixture json: JSONValue, _ path: String, _ reader: JSONReader) {
        guard let o = FixtureFields(json, path, reader) else { return nil }
        let id = o.int("id"), file = o.string("file")
        guard let id, let file else { return nil }
        self.init(id: id, file: file)
    }
}

extension OpenMarketFixtures.Product {
    init?(fixture json: JSONValue, _ path: String, _ reader: JSONReader) {
        guard let o = FixtureFields(json, path, reader) else { return nil }
        let id = o.int("id"), vendorID = o.int("vendor_id"), name = o.string("name"), description = o.string("description")
        let currency = o.string("currency"), price = o.double("price"), discountedPrice = o.double("discounted_price")
        let stock = o.int("stock"), secret = o.string("secret"), createdAt = o.string("created_at"), issuedAt = o.string("issued_at")
        let images = o.list("images", OpenMarketFixtures.ProductImage.init(fixture:_:_:))
        guard let id, let vendorID, let name, let description, let currency, let price, let discountedPrice,
              let stock, let secret, let createdAt, let issuedAt, let images else { return nil }
        self.init(id: id, vendorID: vendorID, name: name, description: description, currency: currency, price: price,
                  discountedPrice: discountedPrice, stock: stock, secret: secret, createdAt: createdAt, issuedAt: issuedAt, images: images)
    }
}

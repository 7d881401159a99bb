import Foundation
import MockCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The Restaurant fixture set, as users edit it under `Fixtures/restaurant/`:
/// `categories.json`, `menu.json` and `images/`.
public struct RestaurantFixtures: Sendable {
    /// A menu category as `categories.json` holds it.
    public struct Category: Codable, Sendable, Equatable {
        /// The category id.
        public var id: Int
        /// The category name, which menu items name in `category`.
        public var name: String
    }

    /// A menu item as `menu.json` holds it.
    public struct MenuItem: Codable, Sendable, Equatable {
        /// The item id, which orders name in `menuIds`.
        public var id: Int
        /// The item name.
        public var name: String
        /// The item description.
        public var description: String
        /// The price, as the server sends it (`9.0`).
        public var price: Double
        /// The name of the item's category.
        public var category: String
        /// Minutes; the order rule of each variant is built on it.
        public var estimatedPrepTime: Int
        /// A file name in `images/`.
        public var image: String

        enum CodingKeys: String, CodingKey {
            case id, name, description, price, category, image
            case estimatedPrepTime = "estimated_prep_time"
        }
    }

    /// The categories, in file order.
    public var categories: [Category]
    /// The menu items, in file order.
    public var items: [MenuItem]
    /// Image bytes by file name, read once at load.
    public var images: [String: StaticAsset]

    /// Makes a fixture set from values already read.
    public init(categories: [Category], items: [MenuItem], images: [String: StaticAsset]) {
        self.categories = categories
        self.items = items
        self.images = images
    }

    /// Loads and checks a fixture folder; every problem is reported with file and JSON path.
    public static func load(from directory: URL) throws(FixtureError) -> RestaurantFixtures {
        let categoriesURL = directory.appendingPathComponent("categories.json")
        let menuURL = directory.appendingPathComponent("menu.json")
        var problems: [FixtureProblem] = []
        var categories: [Category] = []
        var items: [MenuItem] = []
        do { categories = try FixtureFile.read(categoriesURL) { FixtureFields($1, "$", $0)?.list("categories", Category.init(fixture:_:_:)) } } catch { problems += error.problems }
        do { items = try FixtureFile.read(menuURL) { FixtureFields($1, "$", $0)?.list("items", MenuItem.init(fixture:_:_:)) } } catch { problems += error.problems }
        guard problems.isEmpty else { throw FixtureError(problems) }

        problems += checkCategories(categories, file: categoriesURL.path)
        let names = Set(categories.map(\.name))
        var seenIDs = Set<Int>()
        var images: [String: StaticAsset] = [:]
        let imagesDirectory = directory.appendingPathComponent("images")
        let imagesFolder = imagesDirectory.path
        for (index, item) in items.enumerated() {
            let path = "$.items[\(index)]"
            func problem(_ key: String, _ reason: String) {
                problems.append(FixtureProblem(file: menuURL.path, jsonPath: "\(path).\(key)", reason: reason))
            }
            if !seenIDs.insert(item.id).inserted { problem("id", "duplicate id \(item.id)") }
            if item.name.trimmingCharacters(in: .whitespaces).isEmpty { problem("name", "must not be empty") }
            if !(item.price >= 0) { problem("price", "must be zero or more, found \(item.price)") }
            if item.estimatedPrepTime < 0 { problem("estimated_prep_time", "must be zero or more minutes") }
            if !names.contains(item.category) {
                problem("category", "\"\(item.category)\" is not in categories.json (\(categories.map(\.name).joined(separator: ", ")))")
            }
            guard images[item.image] == nil else { continue }
            switch loadImage(named: item.image, in: imagesFolder) {
            case .success(let asset): images[item.image] = asset
            case .failure(let reason): problem("image", reason)
            }
        }
        guard problems.isEmpty else { throw FixtureError(problems) }
        // JPEG versions beside the menu's images (`1.jpg` for `1.png`), which the
        // vapor-8090 variant links to; optional.
        for item in items {
            let jpeg = RestaurantVariant.vapor8090.imageName(item.image)
            guard images[jpeg] == nil, FileManager.default.fileExists(atPath: imagesDirectory.appendingPathComponent(jpeg).path) else { continue }
            switch loadImage(named: jpeg, in: imagesFolder) {
            case .success(let asset): images[jpeg] = asset
            case .failure(let reason): problems.append(FixtureProblem(file: imagesDirectory.appendingPathComponent(jpeg).path, reason: reason))
            }
        }
        guard problems.isEmpty else { throw FixtureError(problems) }
        return RestaurantFixtures(categories: categories, items: items, images: images)
    }

    static func checkCategories(_ categories: [Category], file: String) -> [FixtureProblem] {
        var problems: [FixtureProblem] = []
        var ids = Set<Int>(), names = Set<String>()
        for (index, category) in categories.enumerated() {
            if !ids.insert(category.id).inserted {
                problems.append(FixtureProblem(file: file, jsonPath: "$.categories[\(index)].id", reason: "duplicate id \(category.id)"))
            }
            if category.name.isEmpty || !names.insert(category.name).inserted {
                problems.append(FixtureProblem(file: file, jsonPath: "$.categories[\(index)].name",
                                               reason: category.name.isEmpty ? "must not be empty" : "duplicate name \"\(category.name)\""))
            }
        }
        return problems
    }

    enum ImageLoad { case success(StaticAsset), failure(String) }

    /// A file's bytes and modification time, with one open, fstat and read: start-up reads
    /// every image this way. `Data(contentsOf:)` with a `URL` built per file, and a separate
    /// `stat` for the date, cost more per file; FileManager's attributes more still.
    static func readFile(atPath path: String) -> (data: Data, modified: Date)? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        #if canImport(Darwin)
        let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtimespec.tv_sec))
        #else
        let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec))
        #endif
        var data = Data(count: Int(info.st_size))
        let complete: Bool = data.withUnsafeMutableBytes { buffer in
            var filled = 0
            while filled < buffer.count {
                let count = read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                filled += count
            }
            return true
        }
        return complete ? (data, modified) : nil
    }

    /// `folder` is a path, computed once by the caller rather than per image.
    static func loadImage(named name: String, in folder: String) -> ImageLoad {
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            return .failure("\"\(name)\" must be a plain file name inside images/")
        }
        guard let (data, modified) = readFile(atPath: folder + "/" + name) else {
            return .failure("image file images/\(name) cannot be read")
        }
        guard let format = ImageFormat(sniffing: data) else {
            return .failure("images/\(name) is not a PNG or JPEG file")
        }
        return .success(StaticAsset(name: name, data: data, contentType: format.mimeType, lastModified: modified))
    }
}

// Reading the fixture files (see `FixtureFields`); the keys are the `CodingKeys` above.
extension RestaurantFixtures.Category {
    init?(fixture json: JSONValue, _ path: String, _ reader: JSONReader) {
        guard let o = FixtureFields(json, path, reader) else { return nil }
        let id = o.int("id"), name = o.string("name")
        guard let id, let name else { return nil }
        self.init(id: id, name: name)
    }
}

extension RestaurantFixtures.MenuItem {
    init?(fixture json: JSONValue, _ path: String, _ reader: JSONReader) {
        guard let o = FixtureFields(json, path, reader) else { return nil }
        let id = o.int("id"), name = o.string("name"), description = o.string("description"), price = o.double("price")
        let category = o.string("category"), estimatedPrepTime = o.int("estimated_prep_time"), image = o.string("image")
        guard let id, let name, let description, let price, let category, let estimatedPrepTime, let image else { return nil }
        self.init(id: id, name: name, description: description, price: price, category: category,
                  estimatedPrepTime: estimatedPrepTime, image: image)
    }
}

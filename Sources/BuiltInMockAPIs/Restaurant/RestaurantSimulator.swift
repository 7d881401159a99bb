import Foundation
import MockCore

/// The Restaurant API (Apple curriculum's OrderApp server) served from fixtures.
/// Bodies are encoded once at start; only the base URL is filled in per request.
public struct RestaurantSimulator: Sendable {
    /// The fixtures served.
    public let fixtures: RestaurantFixtures
    /// The version of the server played.
    public let variant: RestaurantVariant
    /// `Cache-Control` sent with menu images.
    public let imageCacheControl: String
    /// Today's validating answers instead of the variant's own leniency.
    public let strict: Bool

    let bodies: Bodies

    /// Makes a simulator over `fixtures`; its bodies are encoded here, once.
    public init(fixtures: RestaurantFixtures, variant: RestaurantVariant = .original,
                imageCacheControl: String = "public, max-age=3600", strict: Bool = false) {
        self.init(fixtures: fixtures, variant: variant, imageCacheControl: imageCacheControl, strict: strict, context: nil)
    }

    /// `context` keeps the encoded bodies for the next simulator made from the same fixtures.
    init(fixtures: RestaurantFixtures, variant: RestaurantVariant, imageCacheControl: String, strict: Bool, context: APIContext?) {
        self.fixtures = fixtures
        self.variant = variant
        self.imageCacheControl = imageCacheControl
        self.strict = strict
        bodies = context?.shared(Bodies.key(variant)) { Bodies(fixtures, variant) } ?? Bodies(fixtures, variant)
    }

    /// What a variant's answers are made of, encoded once from the fixtures.
    struct Bodies: Sendable {
        let categories: Data
        let allItems: BodyTemplate
        let itemsByCategory: [String: BodyTemplate]
        let emptyItems: Data
        let prepTimes: [Int: Int]

        /// Their key among the values engines share (`APIContext.shared(_:make:)`).
        static func key(_ variant: RestaurantVariant) -> String { "restaurant.bodies." + variant.rawValue }

        init(_ fixtures: RestaurantFixtures, _ variant: RestaurantVariant) {
            let categoryByName = Dictionary(fixtures.categories.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            switch variant {
            case .original, .vapor8090:
                categories = JSONCoding.encode(["categories": fixtures.categories.map(\.name)])
            case .community:
                categories = JSONCoding.encode(["categories": fixtures.categories])
            }
            func render(_ items: [RestaurantFixtures.MenuItem]) -> BodyTemplate {
                BodyTemplate(encoding: ["items": items.map { WireItem($0, variant: variant, category: categoryByName[$0.category]) }])
            }
            allItems = render(fixtures.items)
            itemsByCategory = Dictionary(uniqueKeysWithValues: fixtures.categories.map { category in
                (category.name, render(fixtures.items.filter { $0.category == category.name }))
            })
            emptyItems = JSONCoding.encode(["items": [WireItem]()])
            prepTimes = Dictionary(fixtures.items.map { ($0.id, $0.estimatedPrepTime) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// The API's endpoints, in the order they are tried.
    public var routes: [Route] {
        [
            Route("restaurant.categories", .get("/categories")) { _, _ in .json(200, bodies.categories) },
            Route("restaurant.menu", .get("/menu")) { request, _ in menu(request) },
            Route("restaurant.order", .post("/order")) { request, _ in order(request) },
            Route("restaurant.image", .get("/images/{file}")) { request, match in image(request, file: match["file"] ?? "") },
        ]
    }

    func menu(_ request: MockRequest) -> ResponsePlan {
        guard let category = request.queryValue("category") else {
            return .json(200, bodies.allItems.render(baseURL: request.baseURL))
        }
        // An unknown category is an empty list, as the original server answers.
        guard let template = bodies.itemsByCategory[category] else { return .json(200, bodies.emptyItems) }
        return .json(200, template.render(baseURL: request.baseURL))
    }

    func order(_ request: MockRequest) -> ResponsePlan {
        if variant == .community && !strict { return communityOrder(request) }
        switch OrderRequest.parse(request.body, knownIDs: bodies.prepTimes) {
        case .failure(let reason):
            return .error(400, reason)
        case .success(let ids):
            let minutes = variant.preparationTime(for: ids.map { bodies.prepTimes[$0] ?? 0 })
            return .json(200, ["preparation_time": .number(Double(minutes))])
        }
    }

    /// The community server's order: it decodes `{"menuIds": [Int]}` (no key: 404, as its
    /// route answers), starts at 1 and adds the prep time of each id it finds, skipping
    /// the rest — so `[]` and unknown ids are a 200 (`--strict` refuses them with 400).
    func communityOrder(_ request: MockRequest) -> ResponsePlan {
        guard case .object(let members)? = JSONValue(parsing: request.body) else {
            return .error(400, "The request body is not a JSON object like {\"menuIds\": [1, 2]}")
        }
        guard let value = members["menuIds"] else { return .error(404, "Missing key \"menuIds\"") }
        guard let ids = value.arrayValue?.map(\.intValue), !ids.contains(nil) else {
            return .error(400, "\"menuIds\" must be an array of integers, found \(value)")
        }
        let known = ids.compactMap { $0.flatMap { bodies.prepTimes[$0] } }
        return .json(200, ["preparation_time": .number(Double(variant.preparationTime(for: known)))])
    }

    func image(_ request: MockRequest, file: String) -> ResponsePlan {
        // Lookup by name among the loaded files: a path that tries to leave images/
        // (`..`, encoded slashes) is simply not a name there.
        // The 8090 server's `.jpg` names: its JPEG beside the fixture image when there is
        // one, else the fixture image itself under that name.
        let jpegFallback = variant == .vapor8090 && file.hasSuffix(".jpg")
            ? fixtures.items.first { variant.imageName($0.image) == file }.flatMap { fixtures.images[$0.image] } : nil
        guard let asset = fixtures.images[file] ?? jpegFallback else {
            return .error(404, "No image named \"\(file)\"")
        }
        let contentType = variant == .community ? "image/jpeg" : nil
        return asset.respond(to: request, cacheControl: imageCacheControl, contentType: contentType)
    }
}

/// A menu item as each variant puts it on the wire.
struct WireItem: Encodable {
    let item: RestaurantFixtures.MenuItem
    let variant: RestaurantVariant
    let category: RestaurantFixtures.Category?

    init(_ item: RestaurantFixtures.MenuItem, variant: RestaurantVariant, category: RestaurantFixtures.Category?) {
        self.item = item
        self.variant = variant
        self.category = category
    }

    enum Keys: String, CodingKey { case id, name, description, price, category, image_url, estimated_prep_time }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(item.id, forKey: .id)
        try container.encode(item.name, forKey: .name)
        try container.encode(item.description, forKey: .description)
        try container.encode(item.price, forKey: .price)
        switch variant {
        case .original:
            try container.encode(item.category, forKey: .category)
            try container.encode(BodyTemplate.baseURLMarker + "/images/" + item.image, forKey: .image_url)
        case .vapor8090:
            try container.encode(item.category, forKey: .category)
            try container.encode(BodyTemplate.baseURLMarker + "/images/" + variant.imageName(item.image), forKey: .image_url)
            try container.encode(item.estimatedPrepTime, forKey: .estimated_prep_time)
        case .community:
            try container.encode(category ?? RestaurantFixtures.Category(id: 0, name: item.category), forKey: .category)
            // The community server's item type has no prep time field (it is in its database only).
            try container.encode("/images/" + item.image, forKey: .image_url)
        }
    }
}

/// `{"menuIds": [Int]}`, checked with a reason for every way it can be wrong.
enum OrderRequest {
    enum Parsed { case success([Int]), failure(String) }

    static func parse(_ body: Data, knownIDs: [Int: Int]) -> Parsed {
        guard !body.isEmpty else {
            return .failure("The request body is empty; send JSON like {\"menuIds\": [1, 2]}")
        }
        guard let json = JSONValue(parsing: body) else {
            return .failure("The request body is not valid JSON; send JSON like {\"menuIds\": [1, 2]}")
        }
        guard case .object(let members) = json else {
            return .failure("The request body must be a JSON object like {\"menuIds\": [1, 2]}, found \(json.typeName)")
        }
        guard let value = members["menuIds"] else {
            return .failure("Missing key \"menuIds\"; send JSON like {\"menuIds\": [1, 2]}")
        }
        guard case .array(let elements) = value else {
            return .failure("\"menuIds\" must be an array of integers, found \(value.typeName)")
        }
        guard !elements.isEmpty else { return .failure("\"menuIds\" must not be empty") }
        var ids: [Int] = []
        for (index, element) in elements.enumerated() {
            guard let id = element.intValue else {
                return .failure("\"menuIds[\(index)]\" must be an integer, found \(element.typeName)")
            }
            ids.append(id)
        }
        let unknown = ids.filter { knownIDs[$0] == nil }
        guard unknown.isEmpty else {
            let list = unknown.map(String.init).joined(separator: ", ")
            return .failure("Unknown menu id\(unknown.count > 1 ? "s" : ""): \(list)")
        }
        return .success(ids)
    }
}

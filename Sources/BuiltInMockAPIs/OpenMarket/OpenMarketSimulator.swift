import Foundation
import MockCore

/// The Open Market API (the January 2022 training server and its variants), stateful:
/// creates show up on page 1, deletes make details 404. State lives in this instance.
public struct OpenMarketSimulator: Sendable {
    /// The version of the server played.
    public let variant: OpenMarketVariant
    /// `Cache-Control` sent with product images.
    public let imageCacheControl: String
    /// Today's validating answers instead of the training server's 5xx for a bad page number.
    public let strict: Bool
    let store: OpenMarketStore
    let vendorsByIdentifier: [String: OpenMarketFixtures.Vendor]
    let timeSource: any TimeSource
    let fixtureImages: [String: StaticAsset]

    /// Limits the training server's clients validate against.
    public static let maxImages = 5
    /// The largest image a client may upload, in bytes (300 KiB); larger ones get a 413.
    public static let maxImageBytes = 300 * 1024
    /// The largest `items_per_page` accepted.
    public static let maxItemsPerPage = 1000
    /// The largest `page_no` accepted.
    public static let maxPageNumber = 1_000_000

    /// Makes a simulator with state of its own, starting from `fixtures`; `seed` draws its secrets and
    /// tokens, `timeSource` dates its writes.
    public init(fixtures: OpenMarketFixtures, variant: OpenMarketVariant = .jan2022, seed: UInt64 = 0,
                timeSource: any TimeSource = SystemTimeSource(), imageCacheControl: String = "public, max-age=3600",
                strict: Bool = false) {
        self.init(fixtures: fixtures, variant: variant, seed: seed, timeSource: timeSource, imageCacheControl: imageCacheControl,
                  strict: strict, context: nil)
    }

    /// `context` keeps the starting catalogue for the next simulator made from the same fixtures.
    init(fixtures: OpenMarketFixtures, variant: OpenMarketVariant, seed: UInt64, timeSource: any TimeSource,
         imageCacheControl: String, strict: Bool, context: APIContext?) {
        self.variant = variant
        self.strict = strict
        self.imageCacheControl = imageCacheControl
        self.store = OpenMarketStore(fixtures: fixtures, variant: variant, seed: seed, context: context)
        self.vendorsByIdentifier = Dictionary(fixtures.vendors.map { ($0.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        self.timeSource = timeSource
        self.fixtureImages = fixtures.images
    }

    /// How many products the store holds now.
    public var productCount: Int { store.count }

    /// The API's endpoints, in the order they are tried.
    public var routes: [Route] {
        var routes = [
            Route("openmarket.health", .get("/healthChecker")) { _, _ in .json(200, Data("\"OK\"".utf8)) },
            Route("openmarket.page", .get("/api/products")) { request, _ in page(request) },
            Route("openmarket.detail", .get("/api/products/{id}")) { request, match in detail(request, id: match["id"]) },
            Route("openmarket.create", .post("/api/products")) { request, _ in create(request) },
            Route("openmarket.update", .patch("/api/products/{id}")) { request, match in update(request, id: match["id"]) },
            Route("openmarket.image", .get("/market-images/{kind}/{file}")) { request, match in
                image(request, kind: match["kind"] ?? "", file: match["file"] ?? "")
            },
        ]
        switch variant {
        case .jan2022, .legacyDates:
            routes += [
                Route("openmarket.secret", .post("/api/products/{id}/secret")) { request, match in secret(request, id: match["id"]) },
                Route("openmarket.delete", .delete("/api/products/{id}/{secret}")) { request, match in
                    delete(request, id: match["id"], secret: match["secret"] ?? "")
                },
            ]
        case .late2022:
            routes += [
                Route("openmarket.archived", .post("/api/products/{id}/archived")) { request, match in secret(request, id: match["id"]) },
                Route("openmarket.delete", .delete("/api/products/{uri}")) { request, match in
                    deleteByURI(request, uri: match["uri"] ?? "")
                },
            ]
        }
        return routes
    }

    // MARK: Reads

    func page(_ request: MockRequest) -> ResponsePlan {
        // The training server failed with a 5xx on a page number below 1 (its clients' live
        // tests expect that); `--strict` answers 400 with the reason.
        if !strict, let text = request.queryValue("page_no"), let number = Int(text), number < 1 {
            return .error(500, "Internal Server Error (page_no \(number))")
        }
        let pageNo: Int, perPage: Int
        switch (Self.positive(request, "page_no", max: Self.maxPageNumber), Self.positive(request, "items_per_page", max: Self.maxItemsPerPage)) {
        case (.failure(let reason), _), (_, .failure(let reason)): return .error(400, reason)
        case (.success(let p), .success(let m)): (pageNo, perPage) = (p, m)
        }
        let key = OpenMarketStore.PageKey(pageNo: pageNo, perPage: perPage, baseURL: request.baseURL)
        if let body = store.renderedPage(key) { return .json(200, body) }
        let offset = (pageNo - 1) * perPage
        let page = store.page(offset: offset, count: perPage)
        let lastPage = (page.total + perPage - 1) / perPage
        // Past the last page the training server answered 204 with an empty body.
        if pageNo > max(1, lastPage) { return ResponsePlan(status: 204) }
        // One buffer, sized up front; the products are pre-rendered templates.
        let k = variant.pageKeys
        let head = "{\"\(k.pageNo)\":\(pageNo),\"\(k.itemsPerPage)\":\(perPage),\"\(k.totalCount)\":\(page.total),"
            + "\"\(k.offset)\":\(offset),\"\(k.limit)\":\(offset + perPage),\"\(k.lastPage)\":\(lastPage),"
            + "\"\(k.hasNext)\":\(pageNo < lastPage),\"\(k.hasPrev)\":\(pageNo > 1),\"\(k.pages)\":["
        let items = page.items.map { $0.render(baseURL: request.baseURL) }
        var body = Data(head.utf8)
        body.reserveCapacity(body.count + 2 + items.reduce(0) { $0 + 1 + $1.count })
        for (index, item) in items.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(item)
        }
        body.append(UInt8(ascii: "]"))
        body.append(UInt8(ascii: "}"))
        store.keepRenderedPage(key, body, version: page.version)
        return .json(200, body)
    }

    enum Parsed<T> { case success(T), failure(String) }

    static func positive(_ request: MockRequest, _ name: String, max: Int) -> Parsed<Int> {
        guard let text = request.queryValue(name) else { return .failure("Missing query parameter \"\(name)\"") }
        guard let value = Int(text) else { return .failure("\"\(name)\" must be a whole number, found \"\(text)\"") }
        guard (1...max).contains(value) else { return .failure("\"\(name)\" must be between 1 and \(max), found \(value)") }
        return .success(value)
    }

    func detail(_ request: MockRequest, id: String?) -> ResponsePlan {
        Rejection.answer { () throws(Rejection) in
            .json(200, try product(id).detail.render(baseURL: request.baseURL))
        }
    }

    func image(_ request: MockRequest, kind: String, file: String) -> ResponsePlan {
        guard kind == "origin" || kind == "thumb", let asset = store.image("\(kind)/\(file)") else {
            return .error(404, "No image \(kind)/\(file)")
        }
        return asset.respond(to: request, cacheControl: imageCacheControl)
    }

    // MARK: Shared checks

    func product(_ id: String?) throws(Rejection) -> OpenMarketStore.Entry {
        guard let id, let number = Int(id) else { throw Rejection(404, "No product with id \"\(id ?? "")\"") }
        guard let entry = store.entry(number) else { throw Rejection(404, "No product with id \(number)") }
        return entry
    }

    /// The vendor named by the `identifier` header, or a 401.
    func vendor(_ request: MockRequest) throws(Rejection) -> OpenMarketFixtures.Vendor {
        guard let identifier = request.headers["identifier"], !identifier.isEmpty else {
            throw Rejection(401, "Missing \"identifier\" header: send your vendor identifier")
        }
        guard let vendor = vendorsByIdentifier[identifier] else {
            throw Rejection(401, "Unknown vendor identifier \"\(identifier)\"")
        }
        return vendor
    }

    /// 403 when the product is another vendor's.
    static func requireOwner(_ product: OpenMarketProduct, _ vendor: OpenMarketFixtures.Vendor) throws(Rejection) {
        guard product.vendorID == vendor.id else {
            throw Rejection(403, "Product \(product.id) belongs to another vendor (\(product.vendorID)), not to \(vendor.name) (\(vendor.id))")
        }
    }

    /// 401 unless `secret` is the vendor's password.
    static func requirePassword(_ secret: String, _ vendor: OpenMarketFixtures.Vendor) throws(Rejection) {
        guard secret == vendor.password else { throw Rejection(401, "\"secret\" is not the password of vendor \(vendor.name)") }
    }
}

/// A request the simulator refuses, with the plan that says why.
struct Rejection: Error {
    let plan: ResponsePlan

    init(_ status: Int, _ reason: String, field: String? = nil) {
        plan = .error(status, reason, details: field.map { ["field": .string($0)] } ?? [:])
    }

    /// Runs a handler body, answering a rejection with its plan.
    static func answer(_ body: () throws(Rejection) -> ResponsePlan) -> ResponsePlan {
        do { return try body() } catch { return error.plan }
    }
}

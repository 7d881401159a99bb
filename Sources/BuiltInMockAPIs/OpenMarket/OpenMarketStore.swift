import Foundation
import MockCore

/// The Open Market's mutable state: products (newest id first), uploaded images and
/// id counters. Owned by one engine; every change re-renders only the changed product.
final class OpenMarketStore: Sendable {
    /// A product and its two renderings (in lists, and alone), made on first use: a
    /// server starts without encoding the whole catalogue.
    struct Entry: Sendable {
        var product: OpenMarketProduct
        private let rendered: Rendered

        init(product: OpenMarketProduct, wire: ProductWire) {
            self.product = product
            rendered = Rendered(product: product, wire: wire)
        }

        var list: BodyTemplate { rendered.templates.list }
        var detail: BodyTemplate { rendered.templates.detail }
    }

    final class Rendered: Sendable {
        private let source: (product: OpenMarketProduct, wire: ProductWire)
        private let made = Locked<(list: BodyTemplate, detail: BodyTemplate)?>(nil)

        init(product: OpenMarketProduct, wire: ProductWire) { source = (product, wire) }

        var templates: (list: BodyTemplate, detail: BodyTemplate) {
            made.withLock { made in
                if let made { return made }
                let templates = (list: source.wire.listItem(source.product), detail: source.wire.detail(source.product))
                made = templates
                return templates
            }
        }
    }

    struct State: Sendable {
        var entries: [Int: Entry] = [:] { didSet { changed() } }
        /// Product ids, newest (largest) first.
        var order: [Int] = [] { didSet { changed() } }
        /// Bumped by every change to the products; rendered pages of older versions are gone.
        var version: UInt64 = 0
        var pageBodies: [PageKey: Data] = [:]
        var pageBytes = 0

        mutating func changed() {
            version &+= 1
            if !pageBodies.isEmpty {
                pageBodies.removeAll()
                pageBytes = 0
            }
        }
        var images: [String: StaticAsset] = [:]
        var nextProductID = 1
        var nextImageID = 1
        var random: SeededRandom
    }

    let wire: ProductWire
    private let state: Locked<State>

    /// `context` keeps the starting catalogue for the next store of the same fixtures.
    init(fixtures: OpenMarketFixtures, variant: OpenMarketVariant, seed: UInt64, context: APIContext? = nil) {
        let start = context?.shared(Start.key(variant, seed)) { Self.start(fixtures, variant, seed) }
            ?? Self.start(fixtures, variant, seed)
        wire = start.wire
        state = Locked(start.state)
    }

    /// A store's first state, the same for every store of these fixtures, variant and seed.
    struct Start: Sendable {
        /// Its key among the values engines share (`APIContext.shared(_:make:)`).
        static func key(_ variant: OpenMarketVariant, _ seed: UInt64) -> String { "openmarket.start.\(variant.rawValue).\(seed)" }

        let wire: ProductWire
        let state: State
    }

    static func start(_ fixtures: OpenMarketFixtures, _ variant: OpenMarketVariant, _ seed: UInt64) -> Start {
        let wire = ProductWire(variant: variant, vendors: Dictionary(fixtures.vendors.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }))
        var state = State(random: SeededRandom(seed: seed, stream: "openmarket"))
        state.images = fixtures.images
        state.entries.reserveCapacity(fixtures.products.count)
        for fixture in fixtures.products {
            let created = OpenMarketVariant.parseFixtureDate(fixture.createdAt) ?? Date(timeIntervalSince1970: 0)
            let issued = OpenMarketVariant.parseFixtureDate(fixture.issuedAt) ?? created
            let product = OpenMarketProduct(
                id: fixture.id, vendorID: fixture.vendorID, name: fixture.name, description: fixture.description,
                currency: fixture.currency, price: fixture.price, discountedPrice: fixture.discountedPrice,
                stock: fixture.stock, secret: fixture.secret, createdAt: created, issuedAt: issued,
                images: fixture.images.map { .init(id: $0.id, file: $0.file, issuedAt: issued) },
                thumbnailImageID: fixture.images.first?.id ?? 0,
                deleteToken: Self.token(&state.random))
            state.entries[product.id] = Entry(product: product, wire: wire)
            state.nextImageID = max(state.nextImageID, (fixture.images.map(\.id).max() ?? 0) + 1)
        }
        state.order = state.entries.keys.sorted(by: >)
        state.nextProductID = (state.order.first ?? 0) + 1
        return Start(wire: wire, state: state)
    }

    /// A random token like a UUID, from the seeded generator.
    /// Written byte by byte: every fixture product gets one at start-up.
    static func token(_ random: inout SeededRandom) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        var written = 0
        for word in [random.next(), random.next()] {
            for shift in stride(from: 60, through: 0, by: -4) {
                if written == 8 || written == 12 || written == 16 || written == 20 { text.append(UInt8(ascii: "-")) }
                text.append(digits[Int((word >> UInt64(shift)) & 0xF)])
                written += 1
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    // MARK: Reads

    struct Page {
        var total: Int
        var items: [BodyTemplate]
        var version: UInt64
    }

    func page(offset: Int, count: Int) -> Page {
        state.withLock { state in
            let slice = offset < state.order.count ? state.order[offset..<min(state.order.count, offset + count)] : []
            return Page(total: state.order.count, items: slice.compactMap { state.entries[$0]?.list }, version: state.version)
        }
    }

    /// A page body as rendered for one base URL, while no product changed since.
    struct PageKey: Hashable, Sendable {
        var pageNo: Int
        var perPage: Int
        var baseURL: String
    }

    /// Pages are answered from this cache until a product changes; it is emptied when it
    /// would pass 64 pages or 4 MB.
    static let pageCacheLimit = 64
    static let pageCacheBytes = 4 * 1024 * 1024

    func renderedPage(_ key: PageKey) -> Data? { state.withLock { $0.pageBodies[key] } }

    func keepRenderedPage(_ key: PageKey, _ body: Data, version: UInt64) {
        state.withLock { state in
            guard state.version == version, body.count <= Self.pageCacheBytes else { return }
            if state.pageBodies.count >= Self.pageCacheLimit || state.pageBytes + body.count > Self.pageCacheBytes {
                state.pageBodies.removeAll()
                state.pageBytes = 0
            }
            if state.pageBodies.updateValue(body, forKey: key) == nil { state.pageBytes += body.count }
        }
    }

    func entry(_ id: Int) -> Entry? { state.withLock { $0.entries[id] } }

    func withState<T>(_ body: (inout State) -> T) -> T { state.withLock(body) }

    func image(_ key: String) -> StaticAsset? { state.withLock { $0.images[key] } }

    func product(deleteToken: String) -> OpenMarketProduct? {
        state.withLock { state in state.entries.values.first { $0.product.deleteToken == deleteToken }?.product }
    }

    var count: Int { state.withLock { $0.order.count } }

    // MARK: Writes

    struct NewImage {
        var data: Data
        var format: ImageFormat
    }

    func create(vendorID: Int, params: ProductParams, images: [NewImage], now: Date) -> Entry {
        state.withLock { state in
            let id = state.nextProductID
            state.nextProductID += 1
            var stored: [OpenMarketProduct.Image] = []
            for (index, image) in images.enumerated() {
                let file = "u\(id)-\(index + 1).\(image.format == .png ? "png" : "jpg")"
                let asset = StaticAsset(name: file, data: image.data, contentType: image.format.mimeType, lastModified: now)
                // Uploaded images have no resized thumbnail: the thumbnail is the same file.
                state.images["origin/\(file)"] = asset
                state.images["thumb/\(file)"] = asset
                stored.append(.init(id: state.nextImageID, file: file, issuedAt: now))
                state.nextImageID += 1
            }
            let product = OpenMarketProduct(
                id: id, vendorID: vendorID, name: params.name ?? "", description: params.description ?? "",
                currency: params.currency ?? "KRW", price: params.price ?? 0, discountedPrice: params.discountedPrice ?? 0,
                stock: params.stock ?? 0, secret: Self.token(&state.random), createdAt: now, issuedAt: now,
                images: stored, thumbnailImageID: stored.first?.id ?? 0, deleteToken: Self.token(&state.random))
            let entry = Entry(product: product, wire: wire)
            state.entries[id] = entry
            state.order.insert(id, at: 0)
            return entry
        }
    }

    /// Applies `change` to a product and re-renders it; nil when the product is gone.
    func update(_ id: Int, _ change: (inout OpenMarketProduct) -> Void) -> Entry? {
        state.withLock { state in
            guard var product = state.entries[id]?.product else { return nil }
            change(&product)
            let entry = Entry(product: product, wire: wire)
            state.entries[id] = entry
            return entry
        }
    }

    func delete(_ id: Int) -> Entry? {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: id) else { return nil }
            state.order.removeAll { $0 == id }
            return entry
        }
    }
}

@testable import BuiltInContracts
@testable import ContractHarness
import Foundation
import BuiltInMockAPIs
import MockCore
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One defect per shipped Open Market check, and the checks it must fail.
enum OpenMarketDefect: String, CaseIterable, Sendable {
    case wrongHealthPath, ignoresItemsPerPage, readsOffsetFromLimit, fetchesDetailTwice, dropsVendorName, pastEndRepeatsFirstPage
    case paramsPartWithoutJSONType, createReturnsItsInput, putInsteadOfPatch, passwordInHeader, deleteWithoutIdentifier
    case swallowsHealthErrors, swallowsPageErrors, swallowsDetailErrors, swallowsCreateErrors, swallowsUpdateErrors
    case swallowsSecretErrors, swallowsDeleteErrors
    case noTimeout, timeoutTooShort, retriesCreate
    case noImageCache, singleSlotImageCache, cachesFailures, noCoalescing, ignores304, unboundedImageCache
    case throwsOnEmptyPage, decodesPricesAsInt, decodesPricesAsFloat, retriesCancelledPage, datesInDeviceZone, sharedModelRequiresDescription
    case imageCacheKeyedByFileName, imageLoadsWithoutTimeout, cancelLeavesInFlightTask
    /// A half-renamed key: `itemsPerPage=M` besides `items_per_page=M`, which the server ignores.
    case sendsCamelCaseQueryToo

    var expectation: (failing: Set<String>, phrase: String) {
        let cache = "openmarket.image-cache."
        switch self {
        case .wrongHealthPath: return (["openmarket.health"], "GET /healthcheck → 404")
        case .ignoresItemsPerPage: return (["openmarket.page.request"], "items_per_page == \"10\"")
        case .readsOffsetFromLimit: return (["openmarket.page.decoding"], "offset: 20, server sent 0")
        case .fetchesDetailTwice: return (["openmarket.detail.request"], "the server saw 2 matching requests")
        case .dropsVendorName: return (["openmarket.detail.decoding"], "vendor name nil")
        case .pastEndRepeatsFirstPage: return (["openmarket.pagination"], "page 8 (past the end, 204) returned 20 products")
        // Each of these also breaks the API's document, which the conformance check reports.
        case .paramsPartWithoutJSONType:
            return (["openmarket.create.request", "openmarket.request.conforms"], "the params part's Content-Type is missing")
        case .createReturnsItsInput: return (["openmarket.create.decoding"], "returned id 0")
        case .putInsteadOfPatch: return (["openmarket.update.request", "openmarket.request.conforms"], "PUT /api/products/16")
        case .passwordInHeader: return (["openmarket.secret", "openmarket.request.conforms"], "POST /api/products/16/secret [identifier: c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1] → 400")
        case .deleteWithoutIdentifier: return (["openmarket.delete", "openmarket.request.conforms"], "DELETE /api/products/16/secret-0016 → 401")
        case .swallowsHealthErrors: return (["openmarket.health.errors"], "the failure was swallowed")
        // Swallowing page errors swallows the page timeout too.
        case .swallowsPageErrors: return (["openmarket.page.errors", "openmarket.timeout.hang"], "the failure was swallowed")
        case .swallowsDetailErrors: return (["openmarket.detail.errors"], "the failure was swallowed")
        case .swallowsCreateErrors: return (["openmarket.create.errors"], "the failure was swallowed")
        case .swallowsUpdateErrors: return (["openmarket.update.errors"], "the failure was swallowed")
        case .swallowsSecretErrors: return (["openmarket.secret.errors"], "the failure was swallowed")
        case .swallowsDeleteErrors: return (["openmarket.delete.errors"], "the failure was swallowed")
        case .noTimeout: return (["openmarket.timeout.hang"], "no timeout?")
        case .timeoutTooShort: return (["openmarket.timeout.slow-in-time"], "is the timeout shorter than the one given?")
        case .retriesCreate: return (["openmarket.create.no-retry"], "under a 500 the server saw POST /api/products 2 times")
        case .throwsOnEmptyPage: return (["openmarket.pagination"], "means no more items: return an empty page, not an error")
        // The server answers as if the name were not there: only the document says no.
        case .sendsCamelCaseQueryToo:
            return (["openmarket.request.conforms"], "$.query.itemsPerPage: a query parameter the document does not have (it has items_per_page, page_no)")
        // Every call that reads page 1 or 2 (fractional USD prices on both) fails, each naming the value.
        case .decodesPricesAsInt:
            return (["openmarket.page.request", "openmarket.page.decoding", "openmarket.pagination", "openmarket.timeout.slow-in-time"],
                    "The body's numbers with a fraction: pages[")
        case .decodesPricesAsFloat: return (["openmarket.page.decoding"], "price: 299.989990234375, server sent 299.99")
        // A formatter without a zone reads Korea-time dates in the device's (UTC here).
        case .datesInDeviceZone: return (["openmarket.page.decoding", "openmarket.detail.decoding"], "9 h late: the date formatter reads")
        // One model for list items and details, with the detail-only description required.
        case .sharedModelRequiresDescription:
            return (["openmarket.page.request", "openmarket.page.decoding", "openmarket.pagination", "openmarket.timeout.slow-in-time"],
                    "has no key \"description\"")
        case .retriesCancelledPage: return (["openmarket.page.cancellation"], "the server saw GET /api/products 2 times")
        case .noImageCache, .singleSlotImageCache, .cachesFailures, .noCoalescing, .ignores304, .unboundedImageCache,
             .imageCacheKeyedByFileName, .imageLoadsWithoutTimeout, .cancelLeavesInFlightTask:
            return FaultyImageLoader.expectation(for: rawValue, prefix: cache)!
        }
    }
}

/// A page whose prices a client models as `Price` (`Int`, `Float`: the defects).
struct PricedPage<Price: Decodable & Sendable>: Decodable {
    struct Item: Decodable { let price, bargain_price, discounted_price: Price }
    let pages: [Item]
}

/// A page whose items a client models with the detail's `description` required.
struct DescribedPage: Decodable {
    struct Item: Decodable { let description: String }
    let pages: [Item]
}

/// The reference Open Market provider with one defect.
struct BrokenOpenMarketProvider: OpenMarketProvider {
    let defect: OpenMarketDefect
    let context: ProviderContext
    let reference: ReferenceOpenMarketProvider
    let pageReference: ReferenceOpenMarketProvider
    let raw: RawClient
    let images: FaultyImageLoader

    init(_ defect: OpenMarketDefect, context: ProviderContext) {
        self.defect = defect
        self.context = context
        reference = ReferenceOpenMarketProvider(context: context)
        switch defect {
        case .noTimeout: pageReference = ReferenceOpenMarketProvider(context: RawClient.context(context, timeout: 60))
        case .timeoutTooShort: pageReference = ReferenceOpenMarketProvider(context: RawClient.context(context, timeout: 1))
        default: pageReference = reference
        }
        raw = RawClient(context)
        images = FaultyImageLoader(habits: FaultyImageLoader.habits(for: defect.rawValue), session: raw.session, timeout: context.timeout)
    }

    var imageCacheLimit: Int? { defect == .unboundedImageCache ? nil : 4 }

    static let placeholder = MarketProduct(id: 0, vendorID: 0, name: "", thumbnail: URL(string: "http://x/")!, currency: "KRW", price: 0,
                                           bargainPrice: 0, discountedPrice: 0, stock: 0, createdAt: Date(timeIntervalSince1970: 0),
                                           issuedAt: Date(timeIntervalSince1970: 0))

    func healthCheck() async throws -> Bool {
        switch defect {
        case .wrongHealthPath:
            let (_, status) = try await raw.send("GET", "/healthcheck")
            guard status == 200 else { throw URLError(.badServerResponse) }
            return true
        case .swallowsHealthErrors: return (try? await reference.healthCheck()) ?? true
        default: return try await reference.healthCheck()
        }
    }

    func page(number: Int, itemsPerPage: Int) async throws -> MarketPage {
        switch defect {
        case .ignoresItemsPerPage: return try await reference.page(number: number, itemsPerPage: 20)
        case .readsOffsetFromLimit:
            var page = try await reference.page(number: number, itemsPerPage: itemsPerPage)
            page.offset = page.limit
            return page
        case .pastEndRepeatsFirstPage:
            let page = try await reference.page(number: number, itemsPerPage: itemsPerPage)
            return page.products.isEmpty ? try await reference.page(number: 1, itemsPerPage: itemsPerPage) : page
        case .sendsCamelCaseQueryToo:
            let (data, status) = try await raw.send("GET", "/api/products?page_no=\(number)&items_per_page=\(itemsPerPage)&itemsPerPage=\(itemsPerPage)")
            guard (200..<300).contains(status) else { throw URLError(.badServerResponse) }
            if data.isEmpty { return try await reference.page(number: number, itemsPerPage: itemsPerPage) }
            return Self.page(try reference.decoder.decode(ReferenceOpenMarketProvider.PageDTO.self, from: data))
        case .throwsOnEmptyPage:
            // Decodes whatever a 2xx carries: the 204's empty body is "not valid JSON".
            let data = try await pageData(number, itemsPerPage)
            return Self.page(try reference.decoder.decode(ReferenceOpenMarketProvider.PageDTO.self, from: data))
        case .decodesPricesAsInt:
            let data = try await pageData(number, itemsPerPage)
            if data.isEmpty { return try await reference.page(number: number, itemsPerPage: itemsPerPage) }
            _ = try reference.decoder.decode(PricedPage<Int>.self, from: data)   // `let price: Int` in the model
            return Self.page(try reference.decoder.decode(ReferenceOpenMarketProvider.PageDTO.self, from: data))
        case .datesInDeviceZone:
            let data = try await pageData(number, itemsPerPage)
            if data.isEmpty { return try await reference.page(number: number, itemsPerPage: itemsPerPage) }
            return Self.page(try Self.utcDecoder.decode(ReferenceOpenMarketProvider.PageDTO.self, from: data))
        case .sharedModelRequiresDescription:
            let data = try await pageData(number, itemsPerPage)
            if data.isEmpty { return try await reference.page(number: number, itemsPerPage: itemsPerPage) }
            _ = try reference.decoder.decode(DescribedPage.self, from: data)
            return Self.page(try reference.decoder.decode(ReferenceOpenMarketProvider.PageDTO.self, from: data))
        case .decodesPricesAsFloat:
            let data = try await pageData(number, itemsPerPage)
            if data.isEmpty { return try await reference.page(number: number, itemsPerPage: itemsPerPage) }
            let floats = try reference.decoder.decode(PricedPage<Float>.self, from: data).pages
            var page = Self.page(try reference.decoder.decode(ReferenceOpenMarketProvider.PageDTO.self, from: data))
            for index in page.products.indices {
                page.products[index].price = Double(floats[index].price)
                page.products[index].bargainPrice = Double(floats[index].bargain_price)
                page.products[index].discountedPrice = Double(floats[index].discounted_price)
            }
            return page
        case .retriesCancelledPage:
            var components = URLComponents(string: context.baseURL.absoluteString + "/api/products")!
            components.queryItems = [URLQueryItem(name: "page_no", value: String(number)), URLQueryItem(name: "items_per_page", value: String(itemsPerPage))]
            let data = try await RetryingFetcher(session: raw.session).data(for: URLRequest(url: components.url!, timeoutInterval: context.timeout))
            if data.isEmpty { return try await reference.page(number: number, itemsPerPage: itemsPerPage) }
            return Self.page(try reference.decoder.decode(ReferenceOpenMarketProvider.PageDTO.self, from: data))
        case .swallowsPageErrors:
            return (try? await reference.page(number: number, itemsPerPage: itemsPerPage))
                ?? MarketPage(pageNumber: number, itemsPerPage: itemsPerPage, totalCount: 0, offset: 0, limit: 0, lastPage: 0,
                              hasNext: false, hasPrevious: false, products: [])
        default: return try await pageReference.page(number: number, itemsPerPage: itemsPerPage)
        }
    }

    /// Page bytes of any 2xx answer.
    func pageData(_ number: Int, _ itemsPerPage: Int) async throws -> Data {
        let (data, status) = try await raw.send("GET", "/api/products?page_no=\(number)&items_per_page=\(itemsPerPage)")
        guard (200..<300).contains(status) else { throw URLError(.badServerResponse) }
        return data
    }

    /// The server's date format read in UTC, as a formatter without a zone does on a device set to UTC.
    static var utcDecoder: JSONDecoder {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SS"
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .formatted(formatter)
        return decoder
    }

    static func page(_ page: ReferenceOpenMarketProvider.PageDTO) -> MarketPage {
        MarketPage(pageNumber: page.pageNo, itemsPerPage: page.itemsPerPage, totalCount: page.totalCount, offset: page.offset,
                   limit: page.limit, lastPage: page.lastPage, hasNext: page.hasNext, hasPrevious: page.hasPrev,
                   products: page.pages.map(\.product))
    }

    func product(id: Int) async throws -> MarketProduct {
        switch defect {
        case .fetchesDetailTwice:
            _ = try await reference.product(id: id)
            return try await reference.product(id: id)
        case .datesInDeviceZone:
            let (data, status) = try await raw.send("GET", "/api/products/\(id)")
            guard (200..<300).contains(status) else { throw URLError(.badServerResponse) }
            return try Self.utcDecoder.decode(ReferenceOpenMarketProvider.ProductDTO.self, from: data).product
        case .dropsVendorName:
            var product = try await reference.product(id: id)
            product.vendorName = nil
            return product
        case .swallowsDetailErrors: return (try? await reference.product(id: id)) ?? Self.placeholder
        default: return try await reference.product(id: id)
        }
    }

    func createProduct(_ product: NewMarketProduct, images: [MarketImageUpload]) async throws -> MarketProduct {
        switch defect {
        case .paramsPartWithoutJSONType:
            let boundary = "B-\(UUID().uuidString)"
            var body = Data()
            func line(_ text: String) { body.append(Data((text + "\r\n").utf8)) }
            let params: [String: Any] = ["name": product.name, "descriptions": product.description, "price": product.price, "currency": product.currency,
                                         "secret": product.secret, "discounted_price": product.discountedPrice ?? 0, "stock": product.stock ?? 0]
            line("--\(boundary)")
            line("Content-Disposition: form-data; name=\"params\"")
            line("")
            body.append(try JSONSerialization.data(withJSONObject: params))
            line("")
            for image in images {
                line("--\(boundary)")
                line("Content-Disposition: form-data; name=\"images\"; filename=\"\(image.filename)\"")
                line("Content-Type: \(image.mimeType)")
                line("")
                body.append(image.data)
                line("")
            }
            line("--\(boundary)--")
            let (data, status) = try await raw.send("POST", "/api/products", headers: [
                "identifier": context.vendor.identifier, "Content-Type": "multipart/form-data; boundary=\(boundary)"], body: body)
            guard (200..<300).contains(status) else { throw URLError(.badServerResponse) }
            return try reference.decoder.decode(ReferenceOpenMarketProvider.ProductDTO.self, from: data).product
        case .createReturnsItsInput:
            _ = try await reference.createProduct(product, images: images)
            var echoed = Self.placeholder
            echoed.name = product.name
            return echoed
        case .swallowsCreateErrors: return (try? await reference.createProduct(product, images: images)) ?? Self.placeholder
        case .retriesCreate:
            // Retries once on a server error or a timeout: a second product each time.
            do {
                return try await reference.createProduct(product, images: images)
            } catch {
                return try await reference.createProduct(product, images: images)
            }
        default: return try await reference.createProduct(product, images: images)
        }
    }

    func updateProduct(id: Int, _ changes: MarketProductChanges) async throws -> MarketProduct {
        switch defect {
        case .putInsteadOfPatch:
            let body = try JSONSerialization.data(withJSONObject: ["stock": changes.stock ?? 0, "secret": changes.secret])
            let (_, status) = try await raw.send("PUT", "/api/products/\(id)", headers: [
                "identifier": context.vendor.identifier, "Content-Type": "application/json"], body: body)
            guard (200..<300).contains(status) else { throw URLError(.badServerResponse) }
            return Self.placeholder
        case .swallowsUpdateErrors: return (try? await reference.updateProduct(id: id, changes)) ?? Self.placeholder
        default: return try await reference.updateProduct(id: id, changes)
        }
    }

    func productSecret(id: Int, password: String) async throws -> String {
        switch defect {
        case .passwordInHeader:
            let (data, status) = try await raw.send("POST", "/api/products/\(id)/secret", headers: [
                "identifier": context.vendor.identifier, "secret": password])
            guard (200..<300).contains(status) else {
                throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: String(decoding: data, as: UTF8.self)])
            }
            return String(decoding: data, as: UTF8.self)
        case .swallowsSecretErrors: return (try? await reference.productSecret(id: id, password: password)) ?? ""
        default: return try await reference.productSecret(id: id, password: password)
        }
    }

    func deleteProduct(id: Int, secret: String) async throws -> MarketProduct {
        switch defect {
        case .deleteWithoutIdentifier:
            let (data, status) = try await raw.send("DELETE", "/api/products/\(id)/\(secret)")
            guard (200..<300).contains(status) else {
                throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: String(decoding: data, as: UTF8.self)])
            }
            return Self.placeholder
        case .swallowsDeleteErrors: return (try? await reference.deleteProduct(id: id, secret: secret)) ?? Self.placeholder
        default: return try await reference.deleteProduct(id: id, secret: secret)
        }
    }

    func imageData(from url: URL) async throws -> Data { try await images.data(from: url) }
}

@Suite(.serialized) struct BrokenOpenMarketProviderTests {
    @Test(arguments: OpenMarketDefect.allCases)
    func eachDefectFailsExactlyItsCheck(defect: OpenMarketDefect) async throws {
        let report = await OpenMarketContract.suite(configuration()).run { BrokenOpenMarketProvider(defect, context: $0) }
        let (failing, phrase) = defect.expectation
        #expect(Set(report.failures.map(\.id)) == failing, "\(defect): \(report)")
        let messages = report.failures.compactMap(\.message).joined(separator: "\n")
        #expect(messages.contains(phrase), "\(defect): the failure does not say \"\(phrase)\":\n\(messages)")
    }

    @Test func everyCheckHasADefect() {
        let checks = Set(OpenMarketContract.checks(configuration()).map(\.id))
        let covered = OpenMarketDefect.allCases.reduce(into: Set<String>()) { $0.formUnion($1.expectation.failing) }
        #expect(checks == covered, "checks without a defect: \(checks.subtracting(covered).sorted())")
    }
}

import BuiltInMockAPIs
import ContractHarness
import Foundation
import MockCore

/// The shipped contract for Open Market providers.
public enum OpenMarketContract {
    /// A check of an Open Market provider.
    public typealias Check = ContractCheck<any OpenMarketProvider>

    /// The shipped suite for the variant `configuration` names.
    public static func suite(_ configuration: SuiteConfiguration) -> ContractSuite<any OpenMarketProvider> {
        ContractSuite(name: "Open Market (\(configuration.openMarketVariant.rawValue))", checks: checks(configuration), configuration: configuration)
    }

    /// The shipped checks for `configuration`'s variant, in report order.
    public static func checks(_ configuration: SuiteConfiguration) -> [Check] {
        let variant = configuration.openMarketVariant
        return reads + pagination + writes(variant) + [conformance(variant)] + errorHandling(variant) + timeouts(configuration)
            + ImageCacheChecks.checks(prefix: "openmarket.image-cache",
                                      paths: ["item01.png", "item02.jpg", "item03.jpg", "item04.png", "item05.jpg"].map { "/market-images/thumb/\($0)" },
                                      sameName: ("/market-images/thumb/item01.png", "/market-images/origin/item01.png"),
                                      limit: { $0.imageCacheLimit }, load: { try await $0.provider.imageData(from: $1) })
    }

    /// A sample upload: a PNG and a JPEG from the fixtures.
    static func uploads(_ run: CheckRun<any OpenMarketProvider>) -> [MarketImageUpload] {
        [MarketImageUpload(filename: "front.png", data: run.truth("GET", "/market-images/origin/item01.png").body, mimeType: "image/png"),
         MarketImageUpload(filename: "back.jpg", data: run.truth("GET", "/market-images/origin/item02.jpg").body, mimeType: "image/jpeg")]
    }

    static func newProduct(_ run: CheckRun<any OpenMarketProvider>) -> NewMarketProduct {
        NewMarketProduct(name: "Contract Lamp", description: "A lamp made by the contract check", price: 25000, currency: "KRW",
                         discountedPrice: 5000, stock: 3, secret: run.context.vendor.password)
    }

    /// Every call, judged against the Open Market document of the suite's variant.
    static func conformance(_ variant: OpenMarketVariant) -> Check {
        CommonChecks.requestsConform("openmarket.request.conforms", api: "Open Market", calls: [
            ("healthCheck()", { _ = try await $0.provider.healthCheck() }),
            ("page(number: 1, itemsPerPage: 10)", { _ = try await $0.provider.page(number: 1, itemsPerPage: 10) }),
            ("product(id: 16)", { _ = try await $0.provider.product(id: 16) }),
            ("createProduct", { run in _ = try await run.provider.createProduct(newProduct(run), images: uploads(run)) }),
            ("updateProduct(id: 16, stock: 42)", { run in
                _ = try await run.provider.updateProduct(id: 16, MarketProductChanges(stock: 42, secret: run.context.vendor.password))
            }),
            ("productSecret(id: 16)", { run in _ = try await run.provider.productSecret(id: 16, password: run.context.vendor.password) }),
            ("deleteProduct(id: 16)", { run in
                let secret = String(decoding: run.truth("POST", "/api/products/16/\(variant == .late2022 ? "archived" : "secret")",
                                                        body: Data("{\"secret\":\"\(run.context.vendor.password)\"}".utf8),
                                                        headers: ["identifier": run.context.vendor.identifier]).body, as: UTF8.self)
                _ = try await run.provider.deleteProduct(id: 16, secret: secret)
            }),
        ])
    }

    // MARK: Reads

    static let reads: [Check] = [
        Check("openmarket.health", .required, "healthCheck() sends GET /healthChecker and reads the quoted \"OK\"") { run in
            let healthy = try await run.call("healthCheck()") { try await run.provider.healthCheck() }
            try run.require(healthy, "true", actual: "returned false")
            try await run.expectations.expect(.get("/healthChecker"), .exactly(1))
        },
        Check("openmarket.page.request", .required, "page(number:itemsPerPage:) sends GET /api/products?page_no=N&items_per_page=M") { run in
            _ = try await run.call("page(number: 2, itemsPerPage: 10)") { try await run.provider.page(number: 2, itemsPerPage: 10) }
            try await run.expectations.expect(RequestPattern(method: "GET", path: "/api/products",
                                                             query: ["page_no": .equalTo("2"), "items_per_page": .equalTo("10")]), .exactly(1))
        },
        Check("openmarket.page.decoding", .required, "page() decodes all nine page keys and every list field, dates included") { run in
            let page = try await run.call("page(number: 1, itemsPerPage: 20)") { try await run.provider.page(number: 1, itemsPerPage: 20) }
            guard let truth = run.truthJSON("/api/products?page_no=1&items_per_page=20") else { return }
            var differences = compare(page, truth, keys: (run.engine.openMarket?.variant ?? .jan2022).pageKeys)
            for (product, item) in zip(page.products, truth["pages"]?.arrayValue ?? []) { differences += compare(product, item) }
            if page.products.count != truth["pages"]?.arrayValue?.count { differences.append("\(page.products.count) products, expected 20") }
            try run.require(differences.isEmpty, "the page as the server sent it", actual: "decoded differently",
                            differences: collapsingZoneShifts(differences))
        },
        Check("openmarket.detail.request", .required, "product(id:) sends GET /api/products/{id}") { run in
            _ = try await run.call("product(id: 16)") { try await run.provider.product(id: 16) }
            try await run.expectations.expect(.get("/api/products/16"), .exactly(1))
        },
        Check("openmarket.detail.decoding", .required, "product(id:) decodes description, images, vendor and dates") { run in
            let product = try await run.call("product(id: 16)") { try await run.provider.product(id: 16) }
            guard let truth = run.truthJSON("/api/products/16") else { return }
            var differences = compare(product, truth)
            if product.description != truth["description"]?.stringValue { differences.append("description \(product.description ?? "nil")") }
            if product.vendorName != truth["vendors"]?["name"]?.stringValue { differences.append("vendor name \(product.vendorName ?? "nil")") }
            let images = truth["images"]?.arrayValue ?? []
            let expected = images.map { "\($0["id"]?.intValue ?? 0) \($0["url"]?.stringValue ?? "") \($0["thumbnail_url"]?.stringValue ?? "")" }
            let got = product.images.map { "\($0.id) \($0.url.absoluteString) \($0.thumbnailURL.absoluteString)" }
            if got != expected { differences.append("images \(got), expected \(expected)") }
            try run.require(differences.isEmpty, "the detail as the server sent it", actual: "decoded differently", differences: differences)
        },
    ]

    static let pagination: [Check] = [
        Check("openmarket.pagination", .required, "pages carry has_next/has_prev/last_page; the last page and a page past the end are handled") { run in
            let first = try await run.call("page(number: 1, itemsPerPage: 20)") { try await run.provider.page(number: 1, itemsPerPage: 20) }
            let last = try await run.call("page(number: 7, itemsPerPage: 20)") { try await run.provider.page(number: 7, itemsPerPage: 20) }
            var differences: [String] = []
            if !(first.hasNext && !first.hasPrevious && first.lastPage == 7) {
                differences.append("page 1: hasNext \(first.hasNext), hasPrevious \(first.hasPrevious), lastPage \(first.lastPage); expected true, false, 7")
            }
            if !(!last.hasNext && last.hasPrevious && last.products.count == 6 && last.pageNumber == 7) {
                differences.append("page 7: hasNext \(last.hasNext), hasPrevious \(last.hasPrevious), \(last.products.count) products; expected false, true, 6")
            }
            if Set(first.products.map(\.id)).intersection(last.products.map(\.id)).count > 0 { differences.append("pages 1 and 7 share products") }
            try await run.expectations.expect(RequestPattern(method: "GET", path: "/api/products", query: ["page_no": .equalTo("7")]), .exactly(1))
            // Past the last page the API answers 204 with no body: "no more items", not a failure.
            let past = await run.outcome(within: run.timeout + 5) { try await run.provider.page(number: 8, itemsPerPage: 20) }
            switch past {
            case .returned(let page, _):
                if !page.products.isEmpty { differences.append("page 8 (past the end, 204) returned \(page.products.count) products") }
            case .threw:
                differences.append("page 8 (past the end, 204) \(past.summary) — a 204 with no body past the last page means no more items: return an empty page, not an error")
            case .stillRunning:
                differences.append("page 8 (past the end, 204) never finished")
            }
            try run.require(differences.isEmpty, "page math read from the server", actual: "read it differently", differences: differences)
        },
    ]

    // MARK: Writes

    static func writes(_ variant: OpenMarketVariant) -> [Check] {
        let descriptionKey = variant.descriptionKey
        let secretPath = variant == .late2022 ? "archived" : "secret"
        return [
            Check("openmarket.create.request", .required,
                  "createProduct sends POST /api/products with identifier, a params JSON part, then one images part per image with filename and type") { run in
                let uploads = uploads(run)
                let new = newProduct(run)
                _ = try await run.call("createProduct") { try await run.provider.createProduct(new, images: uploads) }
                let seen = try await run.expectations.expect(.post("/api/products"), .exactly(1))
                let request = seen[0].request
                var differences: [String] = []
                if request.headers["identifier"] != run.context.vendor.identifier {
                    differences.append("identifier header is \(request.headers["identifier"] ?? "missing"), expected \(run.context.vendor.identifier)")
                }
                guard let form = try? MultipartForm.parse(request.body.data ?? Data(), contentType: request.headers["Content-Type"]) else {
                    throw run.expectations.violation("a multipart/form-data body with a boundary",
                                                     actual: "sent Content-Type \(request.headers["Content-Type"] ?? "none") and a body that does not parse as multipart")
                }
                let names = form.parts.map { $0.name ?? "?" }
                if names != ["params"] + Array(repeating: "images", count: uploads.count) {
                    differences.append("parts are \(names); expected params then \(uploads.count) × images")
                }
                if let params = form.parts.first(where: { $0.name == "params" }) {
                    if params.contentType?.lowercased().hasPrefix("application/json") != true {
                        differences.append("the params part's Content-Type is \(params.contentType ?? "missing"), not application/json")
                    }
                    let json = JSONValue(parsing: params.body)?.objectValue ?? [:]
                    let expected: Set<String> = ["name", descriptionKey, "price", "currency", "secret", "discounted_price", "stock"]
                    if Set(json.keys) != expected { differences.append("params keys \(json.keys.sorted()); expected \(expected.sorted())") }
                    if json["name"]?.stringValue != new.name || json[descriptionKey]?.stringValue != new.description
                        || json["price"]?.doubleValue != new.price || json["currency"]?.stringValue != new.currency
                        || json["secret"]?.stringValue != new.secret || json["stock"]?.intValue != new.stock {
                        differences.append("params values \(String(decoding: params.body, as: UTF8.self)) differ from the product given")
                    }
                }
                for (part, upload) in zip(form.parts.filter { $0.name == "images" }, uploads) {
                    if part.filename?.isEmpty != false { differences.append("an images part has no filename") }
                    if part.contentType != upload.mimeType { differences.append("\(upload.filename) sent as \(part.contentType ?? "no type"), expected \(upload.mimeType)") }
                    if part.body != upload.data { differences.append("\(upload.filename): \(part.body.count) bytes sent, expected \(upload.data.count)") }
                }
                try run.require(differences.isEmpty, "the create request as the API defines it", actual: "sent it differently", differences: differences)
            },
            Check("openmarket.create.decoding", .required, "createProduct returns the created product, which then heads page 1") { run in
                let created = try await run.call("createProduct") { try await run.provider.createProduct(newProduct(run), images: uploads(run)) }
                let first = run.truthJSON("/api/products?page_no=1&items_per_page=1")?["pages"]?.arrayValue?.first
                let truth = run.truthJSON("/api/products/\(first?["id"]?.intValue ?? -1)")
                try run.require(truth != nil && created.id == first?["id"]?.intValue, "the new product's id \(first?["id"]?.intValue ?? -1)",
                                actual: "returned id \(created.id)")
                var differences = truth.map { compare(created, $0) } ?? []
                if created.images.count != 2 { differences.append("\(created.images.count) images, expected 2") }
                try run.require(differences.isEmpty, "the created product as the server sent it", actual: "decoded differently", differences: differences)
            },
            Check("openmarket.update.request", .required, "updateProduct sends PATCH /api/products/{id} with identifier and JSON of only the changed keys plus secret") { run in
                let changes = MarketProductChanges(stock: 42, secret: run.context.vendor.password)
                let updated = try await run.call("updateProduct(id: 16, stock: 42)") { try await run.provider.updateProduct(id: 16, changes) }
                let seen = try await run.expectations.expect(.patch("/api/products/16"), .exactly(1))
                let request = seen[0].request
                var differences: [String] = []
                if request.headers["identifier"] != run.context.vendor.identifier { differences.append("identifier header is \(request.headers["identifier"] ?? "missing")") }
                if request.headers["Content-Type"]?.lowercased().hasPrefix("application/json") != true {
                    differences.append("Content-Type is \(request.headers["Content-Type"] ?? "missing")")
                }
                let body = request.body.data.flatMap(JSONValue.init(parsing:))
                if body != ["stock": 42, "secret": .string(run.context.vendor.password)] {
                    differences.append("body is \(request.body.data.map { String(decoding: $0, as: UTF8.self) } ?? "?"); expected only stock and secret")
                }
                if updated.stock != 42 { differences.append("the returned product has stock \(updated.stock)") }
                try run.require(differences.isEmpty, "PATCH with only the changed fields", actual: "sent it differently", differences: differences)
            },
            Check("openmarket.secret", .required, "productSecret sends POST /api/products/{id}/\(secretPath) with identifier and {\"secret\": password}, and returns the text") { run in
                let secret = try await run.call("productSecret(id: 16)") { try await run.provider.productSecret(id: 16, password: run.context.vendor.password) }
                let pattern = RequestPattern(method: "POST", path: "/api/products/16/\(secretPath)",
                                             headers: ["identifier": .equalTo(run.context.vendor.identifier)],
                                             body: .jsonEqualTo(["secret": .string(run.context.vendor.password)]))
                try await run.expectations.expect(pattern, .exactly(1))
                let truth = String(decoding: run.truth("POST", "/api/products/16/\(secretPath)",
                                                       body: Data("{\"secret\":\"\(run.context.vendor.password)\"}".utf8),
                                                       headers: ["identifier": run.context.vendor.identifier]).body, as: UTF8.self)
                try run.require(secret == truth, "\"\(truth)\"", actual: "returned \"\(secret)\"")
            },
            Check("openmarket.delete", .required, "deleteProduct sends DELETE with identifier and the product secret, and the product is gone") { run in
                // The secret comes from the server, so this check does not depend on productSecret.
                let secret = String(decoding: run.truth("POST", "/api/products/16/\(secretPath)",
                                                        body: Data("{\"secret\":\"\(run.context.vendor.password)\"}".utf8),
                                                        headers: ["identifier": run.context.vendor.identifier]).body, as: UTF8.self)
                let deleted = try await run.call("deleteProduct(id: 16)") { try await run.provider.deleteProduct(id: 16, secret: secret) }
                try await run.expectations.expect(RequestPattern(method: "DELETE", path: "/api/products/**",
                                                                 headers: ["identifier": .equalTo(run.context.vendor.identifier)]), .exactly(1))
                try run.require(deleted.id == 16, "the deleted product (id 16)", actual: "returned id \(deleted.id)")
                try run.require(run.truth("GET", "/api/products/16").status == 404, "product 16 to be gone", actual: "it is still there")
            },
        ]
    }

    // MARK: Errors and timeouts

    static func errorHandling(_ variant: OpenMarketVariant) -> [Check] {
        let secretPath = variant == .late2022 ? "archived" : "secret"
        return [
            CommonChecks.errorHandling("openmarket.health.errors", call: "healthCheck()", pattern: .get("/healthChecker")) { run, _ in
                try await run.provider.healthCheck()
            },
            CommonChecks.errorHandling("openmarket.page.errors", call: "page(number:itemsPerPage:)", pattern: .get("/api/products")) { run, _ in
                try await run.provider.page(number: 1, itemsPerPage: 20)
            },
            CommonChecks.errorHandling("openmarket.detail.errors", call: "product(id:)", pattern: .get("/api/products/{id}")) { run, _ in
                try await run.provider.product(id: 16)
            },
            CommonChecks.errorHandling("openmarket.create.errors", call: "createProduct", pattern: .post("/api/products")) { run, _ in
                try await run.provider.createProduct(newProduct(run), images: uploads(run))
            },
            CommonChecks.writeIsNotRetried("openmarket.create.no-retry", call: "createProduct", pattern: .post("/api/products")) { run in
                try await run.provider.createProduct(newProduct(run), images: uploads(run))
            },
            CommonChecks.errorHandling("openmarket.update.errors", call: "updateProduct", pattern: .patch("/api/products/{id}")) { run, _ in
                try await run.provider.updateProduct(id: 16, MarketProductChanges(stock: 1, secret: run.context.vendor.password))
            },
            CommonChecks.errorHandling("openmarket.secret.errors", call: "productSecret", pattern: .post("/api/products/{id}/\(secretPath)"),
                                       kinds: [.clientError, .serverError, .truncatedBody, .connectionReset, .emptyResponse]) { run, _ in
                try await run.provider.productSecret(id: 16, password: run.context.vendor.password)
            },
            CommonChecks.errorHandling("openmarket.delete.errors", call: "deleteProduct", pattern: RequestPattern(method: "DELETE", path: "/api/products/**")) { run, _ in
                try await run.provider.deleteProduct(id: 16, secret: variant == .late2022 ? "no-such-uri" : "secret-0016")
            },
        ]
    }

    static func timeouts(_ configuration: SuiteConfiguration) -> [Check] {
        [
            CommonChecks.hangTimesOut("openmarket.timeout.hang", call: "page(number:itemsPerPage:)", pattern: .get("/api/products"),
                                      margin: configuration.timeoutMargin) { run in try await run.provider.page(number: 1, itemsPerPage: 20) },
            CommonChecks.slowButInTime("openmarket.timeout.slow-in-time", call: "page(number:itemsPerPage:)", pattern: .get("/api/products"),
                                       delay: configuration.timeout * 0.6) { run in try await run.provider.page(number: 1, itemsPerPage: 20) },
            CommonChecks.hangTimesOut("openmarket.image.timeout", call: "imageData(from:)", pattern: .get("/market-images/{kind}/{file}"),
                                      margin: configuration.timeoutMargin) { run in
                try await run.provider.imageData(from: run.url("/market-images/thumb/item06.jpg"))
            },
            CommonChecks.cancellationSendsNothingMore("openmarket.page.cancellation", call: "page(number:itemsPerPage:)", pattern: .get("/api/products"),
                                                      delay: configuration.timeout * 0.6) { run in
                try await run.provider.page(number: 1, itemsPerPage: 20)
            },
        ]
    }

    // MARK: Comparing with the server's JSON

    /// An instant with its zone, to the hundredth of a second: `2022-01-03T15:00:00.00Z`.
    static func instant(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SS'Z'"
        return formatter.string(from: date)
    }

    /// Every date off by the same zone is one mistake: two examples and a count, not forty lines.
    static func collapsingZoneShifts(_ differences: [String]) -> [String] {
        let shifted = differences.filter { $0.contains(" h late: ") || $0.contains(" h early: ") }
        guard shifted.count > 2 else { return differences }
        let rest = differences.filter { !($0.contains(" h late: ") || $0.contains(" h early: ")) }
        return Array(shifted.prefix(2)) + ["… and \(shifted.count - 2) more dates off by the same hours"] + rest
    }

    /// A whole number of hours off is a time zone: the formatter's, not the server's.
    static func zoneHint(_ offset: TimeInterval) -> String {
        let hours = offset / 3600
        guard hours.rounded() == hours, hours != 0 else { return "" }
        return " — \(Int(abs(hours))) h \(hours > 0 ? "late" : "early"): the date formatter reads the server's zone-less dates in "
            + "another zone; set its timeZone to Asia/Seoul (UTC+9) rather than the device's"
    }

    static func compare(_ page: MarketPage, _ truth: JSONValue, keys: OpenMarketVariant.PageKeys) -> [String] {
        let pairs: [(String, Int, Int?)] = [
            (keys.pageNo, page.pageNumber, truth[keys.pageNo]?.intValue), (keys.itemsPerPage, page.itemsPerPage, truth[keys.itemsPerPage]?.intValue),
            (keys.totalCount, page.totalCount, truth[keys.totalCount]?.intValue), (keys.offset, page.offset, truth[keys.offset]?.intValue),
            (keys.limit, page.limit, truth[keys.limit]?.intValue), (keys.lastPage, page.lastPage, truth[keys.lastPage]?.intValue),
        ]
        var differences = pairs.filter { $0.1 != $0.2 }.map { "\($0.0): \($0.1), server sent \($0.2.map(String.init) ?? "nothing")" }
        if page.hasNext != truth[keys.hasNext]?.boolValue { differences.append("\(keys.hasNext): \(page.hasNext)") }
        if page.hasPrevious != truth[keys.hasPrev]?.boolValue { differences.append("\(keys.hasPrev): \(page.hasPrevious)") }
        return differences
    }

    static func compare(_ product: MarketProduct, _ truth: JSONValue) -> [String] {
        var differences: [String] = []
        func check(_ key: String, _ got: String, _ want: String?) {
            if got != want { differences.append("product \(product.id) \(key): \(got), server sent \(want ?? "nothing")") }
        }
        check("id", String(product.id), truth["id"]?.intValue.map(String.init))
        check("vendor_id", String(product.vendorID), truth["vendor_id"]?.intValue.map(String.init))
        check("name", product.name, truth["name"]?.stringValue)
        check("thumbnail", product.thumbnail.absoluteString, truth["thumbnail"]?.stringValue)
        check("currency", product.currency, truth["currency"]?.stringValue)
        check("price", "\(product.price)", truth["price"]?.doubleValue.map { "\($0)" })
        check("bargain_price", "\(product.bargainPrice)", truth["bargain_price"]?.doubleValue.map { "\($0)" })
        check("discounted_price", "\(product.discountedPrice)", truth["discounted_price"]?.doubleValue.map { "\($0)" })
        check("stock", String(product.stock), truth["stock"]?.intValue.map(String.init))
        for (key, date) in [("created_at", product.createdAt), ("issued_at", product.issuedAt)] {
            let sent = truth[key]?.stringValue ?? ""
            let expected = OpenMarketVariant.parseFixtureDate(sent) ?? OpenMarketVariant.parseFixtureDate(sent.replacingOccurrences(of: " ", with: "T"))
            if let expected, abs(expected.timeIntervalSince(date)) > 0.011 {
                differences.append("product \(product.id) \(key): \(Self.instant(date)), server sent \"\(sent)\" (Korea time, UTC+09:00) = \(Self.instant(expected))"
                                   + Self.zoneHint(date.timeIntervalSince(expected)))
            }
        }
        return differences
    }
}

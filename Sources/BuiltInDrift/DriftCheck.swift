import BuiltInMockAPIs
import Foundation
import MockCore
import MockFixtures
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `mock-server drift`: the same probes against a real server and the simulator, their
/// answers compared by structure (status, Content-Type, keys, types, nullability, number
/// shapes, date formats), values ignored. Each side resolves its own ids (the first
/// product of its own page 1, its own first category), so different data never counts as
/// drift. Every variant of the API is played, to name the closest one.
public struct DriftCheck: Sendable {
    /// Which built-in API the probes are for.
    public enum API: String, Sendable, CaseIterable {
        /// The Restaurant or the Open Market API.
        case restaurant, openmarket

        /// The variants the simulator plays for this API (as `--variant` names them).
        public var variantNames: [String] {
            self == .restaurant ? RestaurantVariant.allCases.map(\.rawValue) : OpenMarketVariant.allCases.map(\.rawValue)
        }
    }

    /// One answer, from either side.
    public struct Exchange: Sendable {
        /// The status answered.
        public let status: Int
        /// The `Content-Type` answered, nil when there was none.
        public let contentType: String?
        /// The body answered.
        public let body: Data
        /// Makes an answer of `status`, `contentType` and `body`.
        public init(status: Int, contentType: String?, body: Data) {
            self.status = status
            self.contentType = contentType
            self.body = body
        }
        var mediaType: String? { contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }
        var json: JSONValue? { JSONValue(parsing: body) }
    }

    /// A side answers a request: method, path with query, headers, body.
    public typealias Send = @Sendable (String, String, [String: String], Data) async throws -> Exchange

    /// The API probed.
    public let api: API
    /// Open Market credentials for the write probes (create → read → delete a scratch product).
    public let credentials: (identifier: String, password: String)?

    /// Makes a check of `api`; without `credentials` the Open Market write probes are skipped.
    public init(api: API, credentials: (identifier: String, password: String)? = nil) {
        self.api = api
        self.credentials = credentials
    }

    // MARK: Probes

    /// The probes' answers on one side, in order, labelled; each probe may read the earlier
    /// answers. The reads run when `reads`; the write probes when `writes` and there are
    /// credentials, with the paths and keys of `openMarketVariant`.
    func run(_ send: Send, openMarketVariant: OpenMarketVariant?, reads: Bool = true, writes: Bool = true) async throws -> [(String, Exchange)] {
        var answers: [(String, Exchange)] = []
        func probe(_ method: String, _ path: String, headers: [String: String] = [:], body: Data = Data(), label: String? = nil) async throws -> Exchange {
            let exchange = try await send(method, path, headers, body)
            answers.append((label ?? "\(method) \(path)", exchange))
            return exchange
        }
        switch api {
        case .restaurant where reads:
            let categories = try await probe("GET", "/categories")
            _ = try await probe("GET", "/menu")
            let first = categories.json?["categories"]?.arrayValue?.first
            let name = first?.stringValue ?? first?["name"]?.stringValue ?? "entrees"
            let menu = try await probe("GET", "/menu?category=\(name)", label: "GET /menu?category=<its first category>")
            let item = menu.json?["items"]?.arrayValue?.first
            let id = item?["id"]?.intValue ?? 1
            _ = try await probe("POST", "/order", headers: ["Content-Type": "application/json"], body: Data("{\"menuIds\":[\(id)]}".utf8),
                                label: "POST /order {\"menuIds\": [<its first item>]}")
            if let image = item?["image_url"]?.stringValue, let path = URL(string: image, relativeTo: URL(string: "http://x/"))?.path {
                _ = try await probe("GET", path, label: "GET <its first item's image_url>")
            }
        case .restaurant:
            break
        case .openmarket:
            if reads { try await openMarketReads(probe) }
            if writes, let credentials { try await self.writes(credentials, probe: probe, variant: openMarketVariant) }
        }
        return answers
    }

    func openMarketReads(_ probe: (String, String, [String: String], Data, String?) async throws -> Exchange) async throws {
        _ = try await probe("GET", "/healthChecker", [:], Data(), nil)
        let page = try await probe("GET", "/api/products?page_no=1&items_per_page=10", [:], Data(), nil)
        if let id = page.json?["pages"]?.arrayValue?.first?["id"]?.intValue {
            _ = try await probe("GET", "/api/products/\(id)", [:], Data(), "GET /api/products/<its newest product>")
        }
        if let lastPage = page.json?["last_page"]?.intValue ?? page.json?["lastPage"]?.intValue {
            _ = try await probe("GET", "/api/products?page_no=\(lastPage + 1)&items_per_page=10", [:], Data(), "GET /api/products?page_no=<past the last>")
        }
    }

    /// Create → read → look up the secret (or delete URI) → delete one scratch product.
    func writes(_ credentials: (identifier: String, password: String),
                probe: (String, String, [String: String], Data, String?) async throws -> Exchange, variant: OpenMarketVariant?) async throws {
        let boundary = "drift-\(UUID().uuidString)"
        let image = (try? Data(contentsOf: MockFixtures.openMarket.appendingPathComponent("images/origin/item01.png"))) ?? Data()
        // Each server version refuses the other's description key: the variant's one.
        let key = (variant ?? .jan2022).descriptionKey
        let params = "{\"name\":\"Drift probe\",\"\(key)\":\"A scratch product made by mock-server drift\",\"price\":1000,\"currency\":\"KRW\",\"secret\":\"\(credentials.password)\"}"
        var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"params\"\r\nContent-Type: application/json\r\n\r\n\(params)\r\n".utf8)
        body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"images\"; filename=\"probe.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
        body += image + Data("\r\n--\(boundary)--\r\n".utf8)
        let headers = ["identifier": credentials.identifier]
        let created = try await probe("POST", "/api/products", headers.merging(["Content-Type": "multipart/form-data; boundary=\(boundary)"]) { a, _ in a },
                                      body, "POST /api/products (a scratch product)")
        guard let id = created.json?["id"]?.intValue else { return }
        _ = try await probe("GET", "/api/products/\(id)", [:], Data(), "GET /api/products/<the scratch product>")
        let secretBody = Data("{\"secret\":\"\(credentials.password)\"}".utf8)
        let late = variant == .late2022
        let lookup = try await probe("POST", "/api/products/\(id)/\(late ? "archived" : "secret")",
                                     headers.merging(["Content-Type": "application/json"]) { a, _ in a }, secretBody,
                                     "POST /api/products/<the scratch product>/\(late ? "archived" : "secret")")
        let secret = String(decoding: lookup.body, as: UTF8.self)
        _ = try await probe("DELETE", late ? "/api/products/\(secret)" : "/api/products/\(id)/\(secret)", headers, Data(),
                            "DELETE the scratch product")
    }

    // MARK: Comparing

    /// The differences of the mock's answers from the upstream's, probe by probe.
    public static func compare(upstream: [(String, Exchange)], mock: [(String, Exchange)]) -> [DriftDifference] {
        var found: [DriftDifference] = []
        let mockByProbe = Dictionary(mock, uniquingKeysWith: { first, _ in first })
        for (probe, real) in upstream {
            guard let played = mockByProbe[probe] else {
                found.append(DriftDifference(probe: probe, path: "probe", kind: .status, upstream: "answered \(real.status)", mock: "was not asked (an earlier answer differed)"))
                continue
            }
            if real.status != played.status {
                found.append(DriftDifference(probe: probe, path: "status", kind: .status, upstream: String(real.status), mock: String(played.status)))
                continue
            }
            if real.mediaType != played.mediaType {
                found.append(DriftDifference(probe: probe, path: "Content-Type", kind: .contentType,
                                             upstream: real.mediaType ?? "none", mock: played.mediaType ?? "none"))
            }
            guard real.mediaType == "application/json" || played.mediaType == "application/json" else { continue }
            switch (ResponseShape(json: real.body), ResponseShape(json: played.body)) {
            case (let a?, let b?): found += ResponseShape.differences(upstream: a, mock: b, probe: probe)
            case (nil, nil): break
            case (let a, let b):
                found.append(DriftDifference(probe: probe, path: "$", kind: .body, upstream: a.map(\.description) ?? "not JSON",
                                             mock: b.map(\.description) ?? "not JSON"))
            }
        }
        return found
    }
}

import BuiltInMockAPIs
import Foundation
import MockCore
import MockFixtures
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a drift check found: the differences from the variant compared, and how far every
/// variant of the API is from the upstream (the closest named).
public struct DriftOutcome: Sendable {
    /// The API probed.
    public let api: DriftCheck.API
    /// The variant the differences are against (the one asked for, else the closest).
    public let variant: String
    /// The differences from `variant`, in probe order; empty when the shapes agree.
    public let differences: [DriftDifference]
    /// Every variant with its count of differences, closest first.
    public let distances: [(variant: String, differences: Int)]

    /// The variant with the fewest differences (`variant` when none was compared).
    public var closest: String { distances.first?.variant ?? variant }
    /// Whether the upstream's answers differ in shape from the variant compared.
    public var drifted: Bool { !differences.isEmpty }

    /// A readable report: the verdict, the closest variant, each difference with its path.
    public var report: String {
        var lines = [drifted ? "DRIFT: the mock's \(variant) answers \(differences.count) way\(differences.count == 1 ? "" : "s") unlike the upstream"
                             : "no drift: the mock's \(variant) answers are shaped like the upstream's"]
        lines.append("closest variant: \(closest) (" + distances.map { "\($0.variant): \($0.differences)" }.joined(separator: ", ") + ")")
        lines += differences.map { "  - \($0)" }
        return lines.joined(separator: "\n")
    }

    /// JUnit XML: one test case per probe, failing with its differences.
    public func junitXML() -> String {
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        var probes: [String] = []
        for difference in differences where !probes.contains(difference.probe) { probes.append(difference.probe) }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
        xml += "  <testsuite name=\"drift \(api.rawValue) \(escape(variant))\" tests=\"\(max(1, probes.count))\" failures=\"\(probes.count)\">\n"
        if probes.isEmpty { xml += "    <testcase classname=\"drift.\(api.rawValue)\" name=\"no drift\"/>\n" }
        for probe in probes {
            let text = differences.filter { $0.probe == probe }.map { "\($0.path): \($0.kind.rawValue) — upstream \($0.upstream), mock \($0.mock)" }
            xml += "    <testcase classname=\"drift.\(api.rawValue)\" name=\"\(escape(probe))\">\n"
            xml += "      <failure message=\"\(text.count) difference\(text.count == 1 ? "" : "s")\">\(escape(text.joined(separator: "\n")))</failure>\n    </testcase>\n"
        }
        return xml + "  </testsuite>\n</testsuites>\n"
    }
}

extension DriftCheck {
    /// Runs the probes against `upstream`, then against the simulator in every variant of
    /// the API, and compares; `variant` (if given) is the one the differences are against.
    public func check(upstream: Send, variant: String? = nil) async throws -> DriftOutcome {
        let names = api.variantNames
        // Every variant played in full (the fixtures' vendor for its writes).
        let mockSide = DriftCheck(api: api, credentials: credentials == nil ? nil : (MarketVendorFixture.identifier, MarketVendorFixture.password))
        var played: [String: [(String, Exchange)]] = [:]
        for name in names {
            played[name] = try await mockSide.run(try Self.simulator(api: api, variant: name), openMarketVariant: OpenMarketVariant(rawValue: name))
        }
        // The upstream's reads first: they say which version it is, whose paths and keys
        // its write probes then use (a create with the wrong description key is refused).
        var real = try await run(upstream, openMarketVariant: nil, writes: false)
        let readDistances = names.map { ($0, Self.compare(upstream: real, mock: played[$0] ?? []).count) }
        let closestByReads = readDistances.min { $0.1 < $1.1 }?.0 ?? names[0]
        if credentials != nil {
            real += try await run(upstream, openMarketVariant: OpenMarketVariant(rawValue: variant ?? closestByReads), reads: false)
        }
        let results = names.map { (variant: $0, differences: Self.compare(upstream: real, mock: played[$0] ?? [])) }
        let distances = results.map { ($0.variant, $0.differences.count) }.sorted { $0.1 < $1.1 }
        let chosen = variant ?? distances.first?.0 ?? names[0]
        return DriftOutcome(api: api, variant: chosen, differences: results.first { $0.variant == chosen }?.differences ?? [],
                            distances: distances.map { (variant: $0.0, differences: $0.1) })
    }

    /// The built-in fixtures' first vendor: the simulator's side of the write probes.
    enum MarketVendorFixture {
        static let identifier = "c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1"
        static let password = "mart1234"
    }

    /// The simulator of one variant, in process (a fresh engine: its writes are its own).
    public static func simulator(api: API, variant: String) throws -> Send {
        var configuration = EngineConfiguration(fixturesDirectory: MockFixtures.directory)
        switch api {
        case .restaurant:
            guard let chosen = RestaurantVariant(rawValue: variant) else { throw DriftError.unknownVariant(variant, api) }
            configuration.restaurantVariant = chosen
        case .openmarket:
            guard let chosen = OpenMarketVariant(rawValue: variant) else { throw DriftError.unknownVariant(variant, api) }
            configuration.openMarketVariant = chosen
        }
        let engine = try MockEngine(configuration: configuration)
        return { method, path, headers, body in
            var fields = HeaderFields(headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            if !body.isEmpty { fields.add("Content-Length", String(body.count)) }
            let plan = engine.respond(to: MockRequest(method: method, uri: path, headers: fields, body: body, baseURL: "http://127.0.0.1:8080"))
            return Exchange(status: plan.status, contentType: plan.headers["Content-Type"], body: plan.body)
        }
    }

    /// A real server at `base`, through URLSession (redirects followed, no cache).
    public static func upstream(_ base: URL, timeout: TimeInterval = 15) -> Send {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = timeout
        let session = URLSession(configuration: configuration)
        let root = base.absoluteString.hasSuffix("/") ? String(base.absoluteString.dropLast()) : base.absoluteString
        return { method, path, headers, body in
            guard let url = URL(string: root + path) else { throw DriftError.badPath(path) }
            var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
            request.httpMethod = method
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            if !body.isEmpty { request.httpBody = body }
            let (data, response) = try await session.data(for: request)
            let http = response as? HTTPURLResponse
            return Exchange(status: http?.statusCode ?? 0, contentType: http?.value(forHTTPHeaderField: "Content-Type"), body: data)
        }
    }
}

/// Why a drift check cannot run.
public enum DriftError: Error, CustomStringConvertible {
    /// No variant of the API has this name.
    case unknownVariant(String, DriftCheck.API)
    /// A probe's path makes no URL on the upstream.
    case badPath(String)

    /// What is wrong: the variant names to choose from, or the path that makes no URL.
    public var description: String {
        switch self {
        case .unknownVariant(let name, let api):
            return "unknown \(api.rawValue) variant \"\(name)\"; choose from: \(api.variantNames.joined(separator: ", "))"
        case .badPath(let path): return "cannot make a URL of \(path)"
        }
    }
}

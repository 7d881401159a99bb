import Foundation
import MockCore

/// The admin API under `/__admin` (JSON in and out): the control plane a server puts ahead
/// of its engine in its `Pipeline`. Built once per server, so it answers alike over sockets
/// and in process. Its calls are journaled too (by the pipeline), marked `admin.*`, so
/// nothing the server received is missing from the journal.
public struct AdminAPI: ControlPlane, Responder {
    /// The path prefix of every admin route.
    public static let prefix = "/__admin"
    @usableFromInline package static let prefixBytes = Array(prefix.utf8)
    /// The admin API's version, as `/__admin/info` reports it.
    public static let version = "0.4.0"
    /// The engine the admin API reads and controls.
    public let engine: MockEngine
    let router: Router
    /// Required on every admin request when set (`X-Admin-Token` or `Authorization: Bearer`).
    let adminToken: String?

    /// Makes the admin API of `engine`; with `adminToken` every admin request must carry it,
    /// with `certificateAuthority` the CA routes serve it, and `transport` feeds `/__admin/info`.
    public init(engine: MockEngine, adminToken: String? = nil, certificateAuthority: CACertificate? = nil, transport: TransportFacts? = nil) {
        self.init(engine: engine, adminToken: adminToken, certificateAuthority: certificateAuthority, transport: transport, proxy: nil)
    }

    package init(engine: MockEngine, adminToken: String?, certificateAuthority: CACertificate?, transport: TransportFacts?, proxy: ProxyFacts?) {
        self.engine = engine
        self.adminToken = adminToken
        var routes: [Route] = [Dashboard.route] + Self.infoRoutes(engine, transport, proxy) + Self.scenarioRoutes(engine) + Self.networkRoutes(engine)
        routes += Self.journalRoutes(engine) + Self.verifyRoutes(engine) + Self.stateRoutes(engine) + Self.pactRoutes(engine)
        routes += Self.openAPIRoutes(engine) + Self.socketRoutes(engine) + [Self.overviewRoute(engine)]
        routes += Self.caRoutes(certificateAuthority) + Self.proxyRoutes(engine, proxy)
        router = Router(routes: routes)
    }

    /// Whether a path belongs to the admin API. Inlinable, as `handles(target:)` is: the
    /// server asks it of every request.
    @inlinable
    public static func handles(_ path: String) -> Bool {
        handles(target: path)
    }

    /// Whether a request target as sent (path and query) is the admin API's: compared on
    /// the bytes, with no `String` made of its path. A path (no query) is a target too,
    /// so both checks are this one (`handles(_:)` also takes `/__admin?query`). Inlinable:
    /// the server's connection handler, another module, runs it on every request.
    @inlinable
    package static func handles(target: String) -> Bool {
        // Contiguous bytes (every target NIO parsed) are compared without the generic
        // walk over two `UTF8View`s, which costs more per byte: this runs on every request.
        if let answer = target.utf8.withContiguousStorageIfAvailable({ bytes -> Bool in
            let prefix = prefixBytes
            guard bytes.count >= prefix.count, bytes[1] == UInt8(ascii: "_"),
                  bytes.prefix(prefix.count).elementsEqual(prefix) else { return false }
            return bytes.count == prefix.count || bytes[prefix.count] == UInt8(ascii: "/") || bytes[prefix.count] == UInt8(ascii: "?")
        }) {
            return answer
        }
        let bytes = target.utf8, prefix = Self.prefix.utf8
        guard bytes.starts(with: prefix) else { return false }
        let next = bytes.dropFirst(prefix.count).first
        return next == nil || next == UInt8(ascii: "/") || next == UInt8(ascii: "?")
    }

    /// Whether `request` is the admin API's: its path is under `/__admin`.
    public func handles(_ request: MockRequest) -> Bool {
        Self.handles(target: request.path)
    }

    /// The admin route's answer to `request`, or 401 without the token. Not journaled here:
    /// the pipeline journals it.
    public func answer(_ request: MockRequest) -> ResponsePlan {
        // A wrong method on an admin path is the router's 405 with Allow.
        // The PAC file is read by the system's proxy settings, which send no token; it tells
        // only which hosts go to the proxy.
        authorized(request) || request.path == Self.proxyPACPath ? router.respond(to: request) : Self.unauthorized
    }

    /// The answer to `request` through a pipeline with this admin API ahead of its engine,
    /// journaled. A server's transports share one pipeline (`MockHTTPServer.pipeline`);
    /// this makes one per call, for tools and tests.
    public func respond(to request: MockRequest) -> ResponsePlan {
        Pipeline(engine: engine, control: self).answer(request).plan
    }

    /// Whether `request` carries the admin token (always, when none is set). Compared in
    /// constant time, so the answer's timing does not give the token away.
    func authorized(_ request: MockRequest) -> Bool {
        guard let adminToken else { return true }
        // A header from tools; the `token` query parameter from a browser (the dashboard and
        // its EventSource cannot set headers).
        let offered = request.headers["X-Admin-Token"]
            ?? request.headers["Authorization"].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
            ?? request.queryValue("token")
        guard let offered else { return false }
        let a = Array(offered.utf8), b = Array(adminToken.utf8)
        var difference = a.count ^ b.count
        for index in 0..<min(a.count, b.count) { difference |= Int(a[index] ^ b[index]) }
        return difference == 0
    }

    static let unauthorized: ResponsePlan = {
        var plan = ResponsePlan.error(401, "The admin API needs the token given to --admin-token, in an X-Admin-Token header (or Authorization: Bearer TOKEN, or ?token=TOKEN from a browser: /__admin/ui?token=TOKEN)")
        plan.headers.add("WWW-Authenticate", "Bearer realm=\"mock-server admin\"")
        return plan.answered(by: "admin.unauthorized")
    }()

    static func infoRoutes(_ engine: MockEngine, _ transport: TransportFacts?, _ proxy: ProxyFacts?) -> [Route] {
        [
            Route("admin.health", .get("/__admin/health")) { _, _ in .json(200, ["status": "ok"]) },
            Route("admin.info", .get("/__admin/info")) { _, _ in
                let configuration = engine.configuration
                var variants: [String: JSONValue] = [:]
                for api in configuration.apis { variants[api.name] = .string(configuration.variant(of: api)) }
                return .json(200, [
                    "version": .string(version),
                    "uptimeSeconds": .number((engine.timeSource.now().timeIntervalSince(engine.startedAt) * 1000).rounded() / 1000),
                    "apis": .array(engine.apis.map(JSONValue.string)),
                    "variants": .object(variants),
                    "scenario": .string(engine.scenarios.currentScenario),
                    "seed": .number(Double(configuration.seed)),
                    "timeScale": .number(configuration.timeScale),
                    "journal": ["capacity": .number(Double(engine.journal.capacity)), "total": .number(Double(engine.journal.totalCount)),
                                "kept": .number(Double(engine.journal.entries().count)),
                                "keptBytes": .number(Double(engine.journal.keptBytes)), "maxBytes": .number(Double(engine.journal.byteBudget))],
                    "transport": transport?.describe() ?? .null,
                    "proxy": proxy.flatMap { $0.describe(engine) } ?? .null,
                ])
            },
        ]
    }

    /// `GET /__admin/openapi` lists the served APIs' documents; `GET
    /// /__admin/openapi/{api}[?variant=NAME][&strict=true]` is the OpenAPI 3.1 document of
    /// an API as this server plays it (its variant and strictness unless the query names others).
    static func openAPIRoutes(_ engine: MockEngine) -> [Route] {
        [
            Route("admin.openapi.list", .get("/__admin/openapi")) { _, _ in
                let listed = engine.apis.compactMap { name -> JSONValue? in
                    guard let served = engine.servedAPI(named: name), served.served.openAPI != nil else { return nil }
                    return ["api": .string(name), "variant": .string(served.variant), "variants": .array(served.api.variants.map(JSONValue.string)),
                            "hosts": .array(served.api.hosts.map(JSONValue.string)), "document": .string("/__admin/openapi/\(name)")]
                }
                return .json(200, ["apis": .array(listed)])
            },
            Route("admin.openapi", .get("/__admin/openapi/{api}")) { request, match in
                let strict = request.queryValue("strict").map { $0 == "true" || $0 == "1" } ?? engine.configuration.strict
                let name = match["api"] ?? ""
                guard let served = engine.servedAPI(named: name), let source = served.served.openAPI else {
                    let known = engine.apis.filter { engine.servedAPI(named: $0)?.served.openAPI != nil }.map { "/__admin/openapi/\($0)" }
                    return .error(404, "No OpenAPI document for \"\(name)\"; there \(known.count == 1 ? "is" : "are") \(known.joined(separator: " and "))")
                }
                var variant = served.variant
                if let asked = request.queryValue("variant") {
                    guard let known = served.api.variant(named: asked) else {
                        return .error(400, "Unknown \(name) variant \"\(asked)\"; choose from: \(served.api.variants.joined(separator: ", "))")
                    }
                    variant = known
                }
                return .json(200, source.document(variant: variant, strict: strict))
            },
        ]
    }

    static func stateRoutes(_ engine: MockEngine) -> [Route] {
        [
            Route("admin.state.reset", .post("/__admin/state/reset")) { _, _ in
                engine.resetState()
                return .json(200, ["reset": "fixtures and scenario states"])
            },
            Route("admin.snapshot", .get("/__admin/snapshot")) { _, _ in
                .json(200, engine.snapshot(), headers: ["Content-Disposition": "attachment; filename=\"mock-server-state.json\""])
            },
            Route("admin.snapshot.restore", RequestPattern(method: "PUT", path: "/__admin/snapshot")) { request, _ in
                do {
                    try engine.restore(snapshot: request.body, source: "request body")
                    return .json(200, ["restored": true])
                } catch let error as FixtureError {
                    return .error(400, "Not a snapshot this server can restore", details: ["problems": .array(error.problems.map(\.json))])
                } catch {
                    return .error(400, "Not a snapshot: \(error)")
                }
            },
            Route("admin.fixtures.reload", .post("/__admin/fixtures/reload")) { _, _ in
                do {
                    try engine.reloadFixtures()
                    return .json(200, ["reloaded": .string(engine.configuration.fixturesDirectory.path)])
                } catch let error as FixtureError {
                    return .error(422, "The fixtures were not reloaded; the previous ones keep serving",
                                  details: ["problems": .array(error.problems.map(\.json))])
                } catch {
                    return .error(422, "The fixtures were not reloaded: \(error)")
                }
            },
        ]
    }

    /// The JSON body of a request, or a 400 saying what is wrong.
    static func body(_ request: MockRequest, example: String) -> Result<[String: JSONValue], Rejected> {
        guard let json = JSONValue(parsing: request.body), case .object(let members) = json else {
            return .failure(Rejected(plan: .error(400, "Send a JSON object like \(example)")))
        }
        return .success(members)
    }

    struct Rejected: Error { let plan: ResponsePlan }
}

/// What the transport tells `/__admin/info`: event loops, connections, limits.
public struct TransportFacts: Sendable {
    /// Describes the transport as JSON, called for each `/__admin/info` request.
    public let describe: @Sendable () -> JSONValue
    /// Makes facts that `describe` reports when asked.
    public init(_ describe: @escaping @Sendable () -> JSONValue) { self.describe = describe }
}

extension FixtureProblem {
    var json: JSONValue { ["file": .string(file), "jsonPath": .string(jsonPath), "reason": .string(reason)] }
}

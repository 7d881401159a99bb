import Foundation

/// One API the mock can serve: a value naming the API, its variants and the hosts it
/// answers to, that reads the API's fixtures and builds its answers for an engine.
///
/// An engine serves the APIs its configuration lists (`EngineConfiguration.apis`; the
/// `BuiltInMockAPIs` module's `BuiltInAPIs.all` lists Restaurant and Open Market).
/// Everything else — routing, scenarios, faults, network
/// profiles, the journal, request conformance, snapshots, the admin API and the dashboard
/// — works on any API through this protocol, so a new API is one type and one line that
/// adds it to the list:
///
///     struct PetsAPI: MockAPI {
///         var name: String { "pets" }
///         func loadFixtures(from directory: URL) -> [Pet]? { Pet.samples }
///         func serve(_ pets: [Pet], _ context: APIContext) -> some ServedAPI { PetsSimulator(pets) }
///     }
///     EngineConfiguration(fixturesDirectory: folder, apis: BuiltInAPIs.all + [PetsAPI()])
public protocol MockAPI: Sendable {
    /// What `loadFixtures(from:)` reads: immutable data shared by every engine built from it.
    associatedtype Fixtures: Sendable
    /// The answers one engine serves.
    associatedtype Served: ServedAPI

    /// The API's name, lower case: the folder of its fixtures inside a fixtures folder,
    /// `/__admin/openapi/NAME`, and the prefix that qualifies its variants' names.
    var name: String { get }
    /// The versions of the API it can be played as, by name; the first is the default.
    /// A name is chosen with `--variant NAME` or `--variant APINAME-NAME`.
    var variants: [String] { get }
    /// The host names it answers to (without port): a request whose `Host` (or
    /// `:authority`) names one of them is answered by this API alone. Requests to any other
    /// host (the mock's own address) are answered by every API's routes.
    var hosts: [String] { get }
    /// The key of its state in a snapshot file (`MockEngine.snapshot()`); its name by default.
    var snapshotKey: String { get }

    /// Reads the API's fixtures for an engine whose fixtures folder is `directory`; nil
    /// when that folder holds none of them (the API is then not served). Problems are
    /// thrown with the file and JSON path.
    func loadFixtures(from directory: URL) throws(FixtureError) -> Fixtures?
    /// The API's answers for one engine, played as `context.variant`.
    func serve(_ fixtures: Fixtures, _ context: APIContext) -> Served
}

extension MockAPI {
    /// One variant, `default`.
    public var variants: [String] { ["default"] }
    /// No host of its own: the API answers on the mock's own address (and on hosts `hostMap` gives it).
    public var hosts: [String] { [] }
    /// The API's `name`.
    public var snapshotKey: String { name }

    /// The variant `value` names for this API (`NAME` or `APINAME-NAME`, any case), if any.
    public func variant(named value: String) -> String? {
        let lowered = value.lowercased()
        if let exact = variants.first(where: { $0.lowercased() == lowered }) { return exact }
        let prefix = name.lowercased() + "-"
        guard lowered.hasPrefix(prefix) else { return nil }
        let bare = lowered.dropFirst(prefix.count)
        return variants.first { $0.lowercased() == bare }
    }

    /// `serve(_:_:)` for fixtures of unknown type; nil when they are not this API's.
    func serve(erased fixtures: any Sendable, _ context: APIContext) -> (any ServedAPI)? {
        guard let fixtures = fixtures as? Fixtures else { return nil }
        return serve(fixtures, context)
    }

    /// `loadFixtures(from:)` with its result's type erased.
    func loadErased(from directory: URL) throws(FixtureError) -> (any Sendable)? {
        try loadFixtures(from: directory)
    }
}

/// What an engine serves an API with: the variant chosen for it and the engine's settings.
public struct APIContext: Sendable {
    /// The variant to play (one of the API's `variants`).
    public let variant: String
    /// The engine's seed: anything random an API does draws from a generator seeded with it.
    public let seed: UInt64
    /// The engine's clock.
    public let timeSource: any TimeSource
    /// `Cache-Control` for images and other static assets.
    public let imageCacheControl: String
    /// Validate requests and answer 400 where the real server was lenient.
    public let strict: Bool
    /// What the engine multiplies every delay by (``EngineConfiguration/timeScale``): an
    /// API that puts times on its plans (an event stream's delays) scales them by it.
    public var timeScale: Double = 1
    /// What every engine sharing the same preloaded fixtures makes the same way (nil: an
    /// engine that read its own fixtures keeps nothing for others).
    let starts: StartingStates?

    /// Makes the context an engine serves an API with, for serving an API outside an engine (a
    /// test of one API); such a context shares nothing with other engines.
    public init(variant: String, seed: UInt64 = 0, timeSource: any TimeSource = SystemTimeSource(),
                imageCacheControl: String = "public, max-age=3600", strict: Bool = false) {
        self.init(variant: variant, seed: seed, timeSource: timeSource, imageCacheControl: imageCacheControl, strict: strict, starts: nil)
    }

    init(variant: String, seed: UInt64, timeSource: any TimeSource, imageCacheControl: String, strict: Bool, starts: StartingStates?) {
        self.variant = variant
        self.seed = seed
        self.timeSource = timeSource
        self.imageCacheControl = imageCacheControl
        self.strict = strict
        self.starts = starts
    }

    /// The value kept for `key` by engines sharing these fixtures, or `make()`'s, kept
    /// (made every time for an engine that shares nothing). For work every engine of a
    /// test run would otherwise repeat: encoding fixed bodies, building a starting catalogue.
    public func shared<Value: Sendable>(_ key: String, make: () -> Value) -> Value {
        guard let starts else { return make() }
        return starts.kept(key, make: make)
    }
}

/// One API's answers in one engine: its routes, its OpenAPI document and its state.
public protocol ServedAPI: Sendable {
    /// What `snapshot()` saves; `NoSnapshot` for an API without state.
    associatedtype Snapshot: Codable & Sendable = NoSnapshot

    /// The API's endpoints, in the order they are tried.
    var routes: [Route] { get }
    /// The API's OpenAPI 3 document as played, nil when it has none. Made on first use and
    /// held by journal entries, so it holds only what the document needs, never the state.
    var openAPI: OpenAPISource? { get }
    /// Everything this API changed since it started (`NoSnapshot` when nothing can change).
    func snapshot() -> Snapshot
    /// Puts back what `snapshot()` saved.
    func restore(_ snapshot: Snapshot)
}

extension ServedAPI {
    /// No document: requests to the API are not checked for conformance.
    public var openAPI: OpenAPISource? { nil }
}

extension ServedAPI where Snapshot == NoSnapshot {
    /// An API without state saves nothing.
    public func snapshot() -> NoSnapshot { NoSnapshot() }
    /// An API without state has nothing to put back.
    public func restore(_ snapshot: NoSnapshot) {}
}

/// The snapshot of an API that keeps no state.
public struct NoSnapshot: Codable, Sendable {}

/// An API's OpenAPI document for a variant, strict or not: the document the engine checks
/// requests against, and the one `/__admin/openapi/NAME` serves.
public struct OpenAPISource: Sendable {
    private let make: @Sendable (_ variant: String, _ strict: Bool) -> JSONValue
    /// The document's checker when it is made once for every engine (nil: each engine
    /// makes one from the document when it first checks a request).
    public let conformance: RequestConformance?

    /// `make` builds the document of a variant (one of the API's); it should capture only
    /// what the document needs (journal entries keep it as long as they are kept).
    public init(_ make: @escaping @Sendable (_ variant: String, _ strict: Bool) -> JSONValue) {
        self.make = make
        conformance = nil
    }

    /// One document for every variant, with its checker made once and shared by every
    /// engine serving it (a large document's is costly to make per engine).
    public init(document: JSONValue, conformance: RequestConformance) {
        make = { _, _ in document }
        self.conformance = conformance
    }

    /// The document for `variant`, with strict validation when `strict` is true.
    public func document(variant: String, strict: Bool) -> JSONValue { make(variant, strict) }
}

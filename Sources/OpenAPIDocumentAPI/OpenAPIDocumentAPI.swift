import Foundation
import MockCore

/// An API served from its OpenAPI document (3.0, 3.1 or 3.2, or Swagger 2.0; YAML or JSON;
/// `$ref`s to any number of local files, read relative to the file that names them).
///
/// What can be read is served: the common mistakes of real documents are repaired, and
/// what cannot be read is skipped, each noted with its file and JSON pointer
/// (`OpenAPIDocument/notes`); a document is refused only when nothing in it can be served.
///
/// Every operation answers under the path of the document's `servers` URL (`/api` for
/// `https://example.com/api` or `/api`; the root without servers), and to the servers'
/// host names. The body is the document's example (the media type's `example`, its
/// `examples` entry first by name, the schema's `example`), else a value made from the schema, the same
/// for the same seed. The status is the lowest documented 2xx (else `default`). A request
/// can ask for another documented answer with `Prefer: code=404`, a named example with
/// `Prefer: example=NAME`, and a fresh value with `Prefer: dynamic=true`.
///
/// Requests are checked against the document (every body media type it declares):
/// violations are flagged on the journal entry, and with `strict` (`--strict`) answered
/// 400 or 422, as the operation documents, naming the parameter or the body's JSON pointer.
/// Where the paths describe a collection (`POST /pets`, `/pets/{id}`), created items are
/// kept in the document's own shapes (wrapped bodies unwrapped and wrapped again, ids the
/// server assigns, lists in the list's item shape): read, changed, deleted (then the
/// documented answer for a missing item) and listed, paged with the list's own
/// `limit`/`offset` or `page`/`per_page` parameters; they are the engine's state and go
/// into its snapshots.
///
///     let api = try OpenAPIDocumentAPI(contentsOf: URL(fileURLWithPath: "petstore.yaml"))
///     let engine = try MockEngine(configuration: EngineConfiguration(
///         fixturesDirectory: MockFixtures.directory, apis: BuiltInAPIs.all + [api]))
public struct OpenAPIDocumentAPI: MockAPI {
    /// The API's name: by default the file's name without its extension, in lower case,
    /// other characters than letters, digits and `-` made `-` (`Pet Store.yaml` is
    /// `pet-store`).
    public let name: String
    /// The hosts of the document's absolute `servers` URLs (loopback names left out).
    public var hosts: [String] { (try? source.result.get())?.hosts ?? [] }
    /// Whether collections keep what is created in them (`--stateless` turns it off).
    public let stateful: Bool
    private let source: Source

    /// Reads the document at `url` now (or takes it from `DocumentCache.shared` when its
    /// files have not changed since this process read it); its problems are thrown with
    /// the file, the JSON pointer and what is wrong.
    /// - Parameters:
    ///   - url: The document's file.
    ///   - name: The API's name (`/__admin/openapi/NAME`, `--variant NAME-…`); by default from the file's name.
    ///   - stateful: Whether collections keep the items created in them.
    public init(contentsOf url: URL, name: String? = nil, stateful: Bool = true) throws(FixtureError) {
        let source = Source(url: url, cache: .shared)
        _ = try source.result.get()
        self.init(name: name ?? Self.name(of: url), stateful: stateful, source: source)
    }

    /// The API of the document at `url`, read when a server first serves it (once per
    /// process through `cache`, by file and modification time). When it cannot be read,
    /// the API's fixtures fail to load with the document's problems: a server serving it
    /// does not start, and says why. For callers that cannot throw (test traits).
    public static func reading(_ url: URL, name: String? = nil, stateful: Bool = true, cache: DocumentCache = .shared) -> OpenAPIDocumentAPI {
        OpenAPIDocumentAPI(name: name ?? Self.name(of: url), stateful: stateful, source: Source(url: url, cache: cache))
    }

    private init(name: String, stateful: Bool, source: Source) {
        self.name = name
        self.stateful = stateful
        self.source = source
    }

    /// Where the document comes from: read on first use, then kept.
    private final class Source: Sendable {
        let url: URL
        let cache: DocumentCache
        private let loaded = Locked<Result<OpenAPIDocument, FixtureError>?>(nil)

        init(url: URL, cache: DocumentCache) {
            self.url = url
            self.cache = cache
        }

        var result: Result<OpenAPIDocument, FixtureError> {
            if let known = loaded.withLock({ $0 }) { return known }
            let read = cache.document(at: url)
            loaded.withLock { $0 = read }
            return read
        }
    }

    /// The loaded document; throws what was wrong with it.
    public func document() throws(FixtureError) -> OpenAPIDocument { try source.result.get() }

    /// What the mock repaired, skipped or does not serve of the document, one sentence
    /// each (empty when it could not be read).
    public var warnings: [String] { (try? source.result.get())?.warnings ?? [] }

    /// The document, whatever the fixtures folder holds (read when first asked, then kept).
    public func loadFixtures(from directory: URL) throws(FixtureError) -> OpenAPIDocument? {
        try source.result.get()
    }

    /// A simulator of `document` for one engine, with state of its own unless the API is stateless.
    public func serve(_ document: OpenAPIDocument, _ context: APIContext) -> DocumentSimulator {
        DocumentSimulator(apiName: name, document: document, context: context, stateful: stateful)
    }

    /// The document at `url`, read and checked now (no cache).
    public static func read(_ url: URL) throws(FixtureError) -> OpenAPIDocument {
        let loaded = try DocumentLoader.load(url)
        return OpenAPIDocument(file: url.path, json: loaded.json, notes: loaded.notes, declaredVersion: loaded.declaredVersion,
                               fileCount: loaded.files.count, byteCount: loaded.bytes)
    }

    /// Every problem of the document at `url` for its own CI (`mock-server validate
    /// --strict`): what the mock would repair or skip, and what OpenAPIKit's reading and
    /// validation find. Empty when the document is all its version says it should be.
    public static func strictProblems(_ url: URL) -> [FixtureProblem] {
        DocumentLoader.strictProblems(url)
    }

    /// The name an API gets from its file: `Pet Store.yaml` is `pet-store`.
    public static func name(of url: URL) -> String {
        let base = url.deletingPathExtension().lastPathComponent.lowercased()
        var name = ""
        for character in base {
            let kept = character.isASCII && (character.isLetter || character.isNumber) ? character : "-"
            if kept == "-" && (name.isEmpty || name.hasSuffix("-")) { continue }
            name.append(kept)
        }
        while name.hasSuffix("-") { name.removeLast() }
        return name.isEmpty ? "api" : name
    }
}

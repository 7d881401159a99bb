import Foundation
import MockCore
import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat

/// Reads an OpenAPI 3.0, 3.1 or 3.2 document, or a Swagger 2.0 one (YAML or JSON, `$ref`s
/// across any number of local files), as one OpenAPI 3.1 document in JSON: what can be
/// read is kept, the common mistakes of real documents repaired, and every repair and
/// every part skipped noted with its file and JSON pointer.
///
/// The document is read in one pass over its values with the package's own JSON parser
/// (or Yams for YAML); nothing is decoded into a model of its own, so an imperfect part
/// costs that part, not the document. `strictProblems(_:)` adds what OpenAPIKit finds, for
/// `mock-server validate --strict`.
enum DocumentLoader {
    struct Loaded: Sendable {
        /// The document as OpenAPI 3.1 JSON: external references resolved, repaired, the
        /// parts that cannot be read left out.
        let json: JSONValue
        /// What was repaired and skipped, by file and pointer.
        let notes: [DocumentNote]
        /// The version the file declares (`2.0` for Swagger).
        let declaredVersion: String
        /// The files read, with their modification times (the root's first).
        let files: [(path: String, modified: Date?)]
        /// The bytes of all files read.
        let bytes: Int
    }

    /// The bounds of reading one document.
    struct Limits: Sendable {
        /// The most bytes read, the document's own file and every file its references reach.
        var bytes: Int
        /// References followed inside one another, at most.
        var depth: Int

        static let standard = Limits(bytes: 256 << 20, depth: 64)
    }

    static func load(_ url: URL, limits: Limits = .standard) throws(FixtureError) -> Loaded {
        let file = url.path
        let data = try FixtureFile.read(url)
        let raw = try DocumentText.read(data, url: url)
        guard case .object = raw else { throw FixtureError(file: file, jsonPath: "", reason: "not an OpenAPI document (expected an object at the top)") }
        let declared = try version(of: raw, file: file)
        let modified = (try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date
        guard data.count <= limits.bytes else {
            throw FixtureError(file: file, jsonPath: "", reason: "the document is \(data.count) bytes, more than the \(limits.bytes) read at most")
        }
        var bundler = ReferenceBundler(root: url, document: raw, bytes: data.count, schemasAt: declared == "2.0" ? .definitions : .components, limits: limits)
        var document = bundler.bundle()
        if declared == "2.0" { document = SwaggerConversion.convert(document) }
        let locate = { (pointer: String) in bundler.locate(pointer) }
        var normalizer = DocumentNormalizer(isVersion30: !declared.hasPrefix("3.1") && !declared.hasPrefix("3.2"), locate: locate)
        document = normalizer.normalize(document)
        var notes = bundler.notes + normalizer.notes
        let (served, skipped) = skipUnreadable(document, unresolved: bundler.problems, locate: locate)
        notes += skipped.notes
        if skipped.operations > 0, !hasOperations(served) {
            throw FixtureError(skipped.problems.isEmpty ? [FixtureProblem(file: file, jsonPath: "/paths", reason: "no operation can be read")] : skipped.problems)
        }
        let files = [(file, modified)] + bundler.fileDates.sorted { $0.key < $1.key }.map { ($0.key, Optional($0.value)) }
        return Loaded(json: served, notes: notes, declaredVersion: declared, files: files, bytes: bundler.bytesRead)
    }

    /// The version the document declares; a problem when it is none the mock reads.
    private static func version(of raw: JSONValue, file: String) throws(FixtureError) -> String {
        if let swagger = raw["swagger"] {
            guard swagger.stringValue?.hasPrefix("2.") == true || swagger == 2 else {
                throw FixtureError(file: file, jsonPath: "/swagger", reason: "Swagger \(swagger) is not read; the mock reads Swagger 2.0 and OpenAPI 3.0, 3.1 and 3.2")
            }
            return "2.0"
        }
        // `openapi: 3.1` unquoted is a number in YAML.
        let written = raw["openapi"]?.stringValue ?? raw["openapi"]?.doubleValue.map { String($0) }
        guard let version = written else {
            throw FixtureError(file: file, jsonPath: "/openapi", reason: "the key \"openapi\" (the OpenAPI version, 3.0.x or 3.1.x) is missing")
        }
        guard version.hasPrefix("3.0") || version.hasPrefix("3.1") || version.hasPrefix("3.2") else {
            throw FixtureError(file: file, jsonPath: "/openapi", reason: "OpenAPI \(version) is not read; the mock reads 3.0, 3.1 and 3.2 (and Swagger 2.0)")
        }
        return version
    }

    private static func hasOperations(_ document: JSONValue) -> Bool {
        (document["paths"]?.objectValue ?? [:]).values.contains { item in
            (item.objectValue ?? [:]).keys.contains { RequestConformance.methods.contains($0) }
        }
    }

    struct Skipped {
        var notes: [DocumentNote] = []
        var problems: [FixtureProblem] = []
        var operations = 0
    }

    /// `document` without the operations and component schemas that cannot be read, and
    /// a note for each left out.
    static func skipUnreadable(_ document: JSONValue, unresolved: [String: FixtureProblem],
                               locate: (String) -> (file: String, pointer: String)) -> (JSONValue, Skipped) {
        guard case .object(var members) = document else { return (document, Skipped()) }
        var check = ReadabilityCheck(document: document, unresolved: unresolved)
        var skipped = Skipped()
        func located(_ problem: ReadabilityCheck.Problem) -> FixtureProblem {
            if let recorded = problem.recorded { return recorded }
            let (file, pointer) = locate(problem.pointer)
            return FixtureProblem(file: file, jsonPath: pointer, reason: problem.reason)
        }
        if case .object(var schemas)? = members["components"]?["schemas"] {
            for name in schemas.keys.sorted() {
                guard let problem = check.componentProblem(name) else { continue }
                schemas[name] = nil
                let where_ = located(problem)
                skipped.notes.append(DocumentNote(.skipped, file: where_.file, pointer: where_.jsonPath,
                                                  "the schema \(name) cannot be read (\(problem.reason)); skipped", group: "a schema that cannot be read skipped"))
            }
            var components = members["components"]?.objectValue ?? [:]
            components["schemas"] = .object(schemas)
            members["components"] = .object(components)
        }
        guard case .object(var paths)? = members["paths"] else {
            if let paths = members["paths"] {
                let (file, pointer) = locate("/paths")
                skipped.notes.append(DocumentNote(.skipped, file: file, pointer: pointer, "paths is \(paths.typeName), not an object of paths; no operation is read"))
                skipped.problems.append(FixtureProblem(file: file, jsonPath: pointer, reason: "paths must be an object of paths"))
                skipped.operations += 1
                members["paths"] = [:]
            }
            return (.object(members), skipped)
        }
        for template in paths.keys.sorted() where !template.hasPrefix("x-") {
            let (item, _) = resolvedItem(paths[template] ?? .null, in: document)
            guard case .object(var operations) = item else {
                let (file, pointer) = locate(JSONPointer.pointer(["paths", template]))
                skipped.notes.append(DocumentNote(.skipped, file: file, pointer: pointer, "the path \(template) is not an object; skipped", group: "a path that cannot be read skipped"))
                skipped.problems.append(FixtureProblem(file: file, jsonPath: pointer, reason: "a path item must be an object"))
                skipped.operations += 1
                paths[template] = nil
                continue
            }
            let shared = operations["parameters"]?.arrayValue ?? []
            var changed = false
            for method in operations.keys.sorted() where RequestConformance.methods.contains(method) {
                guard let problem = check.operationProblem(operations[method] ?? .null, shared: shared, at: ["paths", template, method]) else { continue }
                let where_ = located(problem)
                skipped.problems.append(where_)
                skipped.notes.append(DocumentNote(.skipped, file: where_.file, pointer: where_.jsonPath,
                                                  "\(method.uppercased()) \(template) cannot be read (\(problem.reason)); skipped",
                                                  group: "an operation that cannot be read skipped"))
                skipped.operations += 1
                operations[method] = nil
                changed = true
            }
            if changed { paths[template] = .object(operations) }
        }
        members["paths"] = .object(paths)
        return (.object(members), skipped)
    }

    /// A path item, its `$ref` (to `#/components/pathItems/…`) followed.
    private static func resolvedItem(_ item: JSONValue, in document: JSONValue) -> (JSONValue, String?) {
        guard case .string(let reference)? = item["$ref"], reference.hasPrefix("#"),
              let target = JSONPointer.resolve(String(reference.dropFirst()), in: document) else { return (item, nil) }
        return (target, reference)
    }

    // MARK: Strict

    /// Every problem of the document at `url`, for its own CI (`mock-server validate
    /// --strict`): what the mock repaired or skipped, and what OpenAPIKit's reading and
    /// validation find. Empty when the document is as its version says.
    static func strictProblems(_ url: URL) -> [FixtureProblem] {
        let file = url.path
        let loaded: Loaded
        do {
            loaded = try load(url)
        } catch {
            return error.problems
        }
        var problems = loaded.notes.filter { $0.kind != .notServed }.map(\.problem)
        guard loaded.declaredVersion != "2.0" else { return problems }
        // OpenAPIKit reads the document as its files wrote it (external references put in
        // place, nothing repaired).
        let raw: JSONValue
        do {
            raw = try DocumentText.read(FixtureFile.read(url), url: url)
        } catch {
            return problems + error.problems
        }
        var bundler = ReferenceBundler(root: url, document: raw, bytes: 0, schemasAt: .components)
        let data = JSONCoding.encode(bundler.bundle())
        do {
            let document: OpenAPIKit.OpenAPI.Document
            if loaded.declaredVersion.hasPrefix("3.0") {
                document = try JSONDecoder().decode(OpenAPIKit30.OpenAPI.Document.self, from: data).convert(to: .v3_1_1)
            } else {
                document = try JSONDecoder().decode(OpenAPIKit.OpenAPI.Document.self, from: data)
            }
            do {
                _ = try document.validate(strict: false)
            } catch let errors as OpenAPIKit.ValidationErrorCollection {
                problems += errors.values.map { FixtureProblem(file: file, jsonPath: JSONPointer.pointer($0.codingPath), reason: $0.reason) }
            }
        } catch {
            let described = OpenAPIKit.OpenAPI.Error(from: error)
            problems.append(FixtureProblem(file: file, jsonPath: JSONPointer.pointer(described.codingPath), reason: described.localizedDescription))
        }
        var seen = Set<String>()
        return problems.filter { seen.insert($0.description).inserted }
    }
}

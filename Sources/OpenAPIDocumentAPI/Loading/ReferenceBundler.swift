import Foundation
import MockCore

/// Makes one self-contained document of a document whose `$ref`s reach into other local
/// files, however many: a schema in another file goes to `#/components/schemas` once and
/// is referred to there (so a model used by a thousand operations is read, and walked,
/// once); any other part (an operation, a response, a parameter) is put in place of its
/// reference. References inside the root document (`#/…`) stay as they are.
///
/// Bounded by the bytes it reads and by how deep references nest, not by the number of
/// files. Vendor extensions (`x-…`) are not followed: the mock does not use them, and
/// code samples kept in files of their own need not be read. A reference that cannot be
/// followed (a missing file, a pointer naming nothing, a remote URL) is left as it is and
/// recorded in `problems`; the operations that use it are skipped, the rest is served.
struct ReferenceBundler {
    /// The document's file, as a standardized path.
    let root: String
    /// The most bytes read for the document (its own file included), and how deep
    /// references may nest.
    let limits: DocumentLoader.Limits
    /// Every reference that could not be followed, by the reference as written, with where it stands.
    private(set) var problems: [String: FixtureProblem] = [:]
    /// What was repaired on the way (a `#/…` reference in another file that only the root holds).
    private(set) var notes: [DocumentNote] = []
    /// Where each inlined part came from, by its keys in the bundled document: the file and
    /// the pointer there (for notes about it).
    private var origins: [(bundled: [String], file: String, pointer: String)] = []
    /// The origins by their pointer in the bundled document, made once the document is whole.
    private var originIndex: [String: (file: String, pointer: String)] = [:]
    /// Each reference's file, by the file naming it and the reference as written.
    private var targets: [String: String] = [:]
    /// How many files were read, and their bytes.
    private(set) var fileCount = 1
    private(set) var bytesRead: Int

    private var files: [String: JSONValue] = [:]
    /// The modification times of the files read (for the per-process cache).
    private(set) var fileDates: [String: Date] = [:]
    private var stack: [String] = []
    private var hoistedNames: [String: String] = [:]
    private var hoisted: [String: JSONValue] = [:]
    private var takenNames: Set<String>
    private var inlined: [String: JSONValue] = [:]
    private var path: [String] = []
    private let document: JSONValue

    /// The root document's schemas by `$id` and `$anchor` (JSON Schema 2020-12), as
    /// pointers; indexed when a reference first needs them.
    private var identified: [String: String]?
    private var anchors: [String: String] = [:]

    /// Where schemas from other files go: OpenAPI 3's components, or Swagger 2.0's definitions.
    enum SchemaPlace {
        case components, definitions
        var keys: [String] { self == .components ? ["components", "schemas"] : ["definitions"] }
        var prefix: String { self == .components ? "#/components/schemas/" : "#/definitions/" }
    }

    let schemasAt: SchemaPlace

    /// - Parameters:
    ///   - root: The document's file.
    ///   - document: Its value.
    ///   - bytes: The size of its file, counted in `maximumBytes`.
    ///   - schemasAt: Where schemas read from other files are put.
    ///   - limits: The most bytes read and the deepest nesting of references.
    init(root: URL, document: JSONValue, bytes: Int, schemasAt: SchemaPlace, limits: DocumentLoader.Limits = .standard) {
        self.root = root.standardizedFileURL.path
        self.limits = limits
        self.document = document
        self.schemasAt = schemasAt
        bytesRead = bytes
        var taken = document
        for key in schemasAt.keys { taken = taken[key] ?? [:] }
        takenNames = Set(taken.objectValue?.keys.map { $0 } ?? [])
    }

    /// Where a part of the document is described: the file and pointer of the innermost
    /// inlined part holding `pointer`, else the root file's own pointer.
    func locate(_ pointer: String) -> (file: String, pointer: String) {
        var prefix = Substring(pointer)
        while true {
            if let origin = originIndex[String(prefix)] { return (origin.file, origin.pointer + pointer.dropFirst(prefix.count)) }
            guard let slash = prefix.lastIndex(of: "/") else { return (root, pointer) }
            prefix = prefix[..<slash]
        }
    }

    /// `document` (the root file's value) with every external reference resolved; the
    /// document itself when it has none (nothing is copied).
    mutating func bundle() -> JSONValue {
        guard Self.hasExternalReference(document, depth: 0) else { return document }
        let result = walk(document, file: root, context: .document) ?? document
        for origin in origins where originIndex[JSONPointer.pointer(origin.bundled)] == nil {
            originIndex[JSONPointer.pointer(origin.bundled)] = (origin.file, origin.pointer)
        }
        guard !hoisted.isEmpty, case .object(var members) = result else { return result }
        switch schemasAt {
        case .components:
            var components = members["components"]?.objectValue ?? [:]
            var schemas = components["schemas"]?.objectValue ?? [:]
            schemas.merge(hoisted) { own, _ in own }
            components["schemas"] = .object(schemas)
            members["components"] = .object(components)
        case .definitions:
            var definitions = members["definitions"]?.objectValue ?? [:]
            definitions.merge(hoisted) { own, _ in own }
            members["definitions"] = .object(definitions)
        }
        return .object(members)
    }

    /// Whether any `$ref` outside vendor extensions names something other than a pointer
    /// into the document itself.
    static func hasExternalReference(_ value: JSONValue, depth: Int) -> Bool {
        guard depth < 256 else { return false }
        switch value {
        case .object(let members):
            if case .string(let reference)? = members["$ref"], !reference.hasPrefix("#") { return true }
            for (key, member) in members where !key.hasPrefix("x-") {
                if hasExternalReference(member, depth: depth + 1) { return true }
            }
            return false
        case .array(let items):
            return items.contains { hasExternalReference($0, depth: depth + 1) }
        default:
            return false
        }
    }

    // MARK: Walking

    /// What a value is where it stands: which keys hold schemas, names or data.
    enum Context {
        /// Any other part of the document.
        case document
        /// A JSON Schema.
        case schema
        /// A map from names to values of `inner` (`properties`, `paths`, `responses`).
        case names(inner: Inner)
        /// Values that are data (`example`, `enum`): no references in them.
        case data

        enum Inner { case document, schema }
    }

    private static let documentNameMaps: Set<String> = [
        "paths", "webhooks", "callbacks", "links", "examples", "encoding", "content", "variables", "securitySchemes",
        "parameters", "responses", "requestBodies", "headers", "pathItems",
    ]
    private static let schemaNameMaps: Set<String> = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]
    private static let schemaData: Set<String> = ["example", "examples", "default", "enum", "const"]

    private static func child(_ key: String, of context: Context) -> Context {
        switch context {
        case .data:
            return .data
        case .names(let inner):
            return inner == .schema ? .schema : .document
        case .schema:
            if schemaData.contains(key) || key.hasPrefix("x-") { return .data }
            return schemaNameMaps.contains(key) ? .names(inner: .schema) : .schema
        case .document:
            if key.hasPrefix("x-") || key == "example" || key == "value" { return .data }
            if key == "schema" { return .schema }
            if key == "schemas" || key == "definitions" { return .names(inner: .schema) }
            // `parameters` and `responses` are lists or maps of parts, never schemas.
            return documentNameMaps.contains(key) ? .names(inner: .document) : .document
        }
    }

    /// `value` with its external references resolved; nil when it has none (unchanged).
    private mutating func walk(_ value: JSONValue, file: String, context: Context) -> JSONValue? {
        if case .data = context { return nil }
        switch value {
        case .object(let members):
            if case .string(let reference)? = members["$ref"] {
                switch context {
                case .document, .schema:
                    return follow(reference, siblings: members, file: file, context: context)
                case .names where members.count == 1:
                    // A map of names kept elsewhere (`properties: {$ref: 'attributes.yml#/ids'}`), as
                    // split documents write them: put in place.
                    return follow(reference, siblings: members, file: file, context: context)
                default:
                    break
                }
            }
            var changed: [String: JSONValue]?
            for key in members.keys.sorted() {
                guard let member = members[key] else { continue }
                let inner = Self.child(key, of: context)
                if case .data = inner { continue }
                path.append(key)
                let walked = walk(member, file: file, context: inner)
                path.removeLast()
                if let walked {
                    if changed == nil { changed = members }
                    changed?[key] = walked
                }
            }
            return changed.map(JSONValue.object)
        case .array(let items):
            // A list's items are values, never names (a `parameters` list holds parameters).
            var itemContext = context
            if case .names(let inner) = context { itemContext = inner == .schema ? .schema : .document }
            var changed: [JSONValue]?
            for (index, item) in items.enumerated() {
                path.append(String(index))
                let walked = walk(item, file: file, context: itemContext)
                path.removeLast()
                if let walked {
                    if changed == nil { changed = items }
                    changed?[index] = walked
                }
            }
            return changed.map(JSONValue.array)
        default:
            return nil
        }
    }

    private mutating func follow(_ reference: String, siblings: [String: JSONValue], file: String, context: Context) -> JSONValue? {
        let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let location = String(parts[0])
        let fragment = parts.count > 1 ? String(parts[1]) : ""
        if file == root {
            if location.isEmpty, fragment.hasPrefix("/") || fragment.isEmpty {
                // Stays an internal reference, unless it stands for a map of names.
                guard case .names = context, let target = JSONPointer.resolve(fragment, in: document) else { return nil }
                return walk(target, file: root, context: context) ?? target
            }
            if let named = identifiedPointer(location: location, fragment: fragment) {
                return .object(siblings.merging(["$ref": .string("#" + named)]) { _, new in new })
            }
            if location.isEmpty {
                record(reference, file: file, "\(reference) names no $anchor of the document")
                return nil
            }
        }
        var target: String
        if location.isEmpty {
            target = file
        } else if let known = targets[file + "\n" + location] {
            target = known
        } else {
            if location.contains(":"), let scheme = URL(string: location)?.scheme, scheme.count > 1, scheme != "file" {
                record(reference, file: file, "\(reference) is a remote reference; only files beside the document are read")
                return nil
            }
            let path = location.contains("%") ? location.removingPercentEncoding ?? location : location
            target = Self.join(path.hasPrefix("file://") ? String(path.dropFirst(7)) : path, relativeTo: file)
            targets[file + "\n" + location] = target
        }
        if target == root { return .object(siblings.merging(["$ref": .string("#" + fragment)]) { _, new in new }) }
        guard let content = load(target, reference: reference, from: file) else { return nil }
        let value = JSONPointer.resolve(fragment, in: content)
        if value == nil, location.isEmpty, fragment.hasPrefix("/"), JSONPointer.resolve(fragment, in: document) != nil {
            // `#/components/…` in another file, meant for the root document, as many tools write it.
            let (noteFile, notePointer) = here(in: file)
            notes.append(DocumentNote(.repaired, file: noteFile, pointer: notePointer + "/$ref",
                                      "\(reference) names nothing in \(Self.lastComponent(target)); read in the root document",
                                      group: "a #/… reference in another file read in the root document"))
            return .object(siblings.merging(["$ref": .string(reference)]) { _, new in new })
        }
        guard let value else {
            record(reference, file: file, "\(reference) names nothing: \(target) has no \(fragment.isEmpty ? "value" : fragment)")
            return nil
        }
        let key = target + "#" + fragment
        if case .schema = context {
            let name: String
            if let known = hoistedNames[key] {
                name = known
            } else {
                name = uniqueName(for: fragment.isEmpty ? Self.baseName(target) : String(fragment.split(separator: "/").last ?? "Schema"))
                hoistedNames[key] = name
                guard stack.count < limits.depth else {
                    record(reference, file: file, "references nest deeper than \(limits.depth)")
                    return nil
                }
                stack.append(key)
                let saved = path
                path = schemasAt.keys + [name]
                origins.append((path, target, fragment))
                hoisted[name] = walk(value, file: target, context: .schema) ?? value
                path = saved
                stack.removeLast()
            }
            var members = siblings
            members["$ref"] = .string(schemasAt.prefix + JSONPointer.escape(name))
            return .object(members)
        }
        if stack.contains(key) {
            record(reference, file: file, "\(reference) refers back to itself (only schemas may)")
            return nil
        }
        guard stack.count < limits.depth else {
            record(reference, file: file, "references nest deeper than \(limits.depth)")
            return nil
        }
        origins.append((path, target, fragment))
        var resolved: JSONValue
        if let known = inlined[key] {
            resolved = known
        } else {
            stack.append(key)
            resolved = walk(value, file: target, context: context) ?? value
            stack.removeLast()
            inlined[key] = resolved
        }
        if case .object(var members) = resolved {
            for (sibling, member) in siblings where sibling != "$ref" && members[sibling] == nil { members[sibling] = member }
            resolved = .object(members)
        }
        return resolved
    }

    /// A schema named by its `$id`, or an `$anchor`, as a pointer into the root document.
    private mutating func identifiedPointer(location: String, fragment: String) -> String? {
        if identified == nil {
            var ids: [String: String] = [:]
            Self.index(document, at: "", ids: &ids, anchors: &anchors, depth: 0)
            identified = ids
        }
        guard let base = location.isEmpty ? (fragment.hasPrefix("/") || fragment.isEmpty ? nil : "") : identified?[location] else { return nil }
        return fragment.isEmpty ? base : fragment.hasPrefix("/") ? base + fragment : anchors[fragment]
    }

    private static func index(_ value: JSONValue, at pointer: String, ids: inout [String: String], anchors: inout [String: String], depth: Int) {
        guard depth < 256 else { return }
        switch value {
        case .object(let members):
            if let id = members["$id"]?.stringValue { ids[id] = pointer }
            if let anchor = members["$anchor"]?.stringValue { anchors[anchor] = pointer }
            for (key, member) in members { index(member, at: pointer + "/" + JSONPointer.escape(key), ids: &ids, anchors: &anchors, depth: depth + 1) }
        case .array(let items):
            for (offset, item) in items.enumerated() { index(item, at: pointer + "/\(offset)", ids: &ids, anchors: &anchors, depth: depth + 1) }
        default:
            break
        }
    }

    /// The file and pointer of the part being walked, in the file it was read from: the
    /// innermost inlined part holding it says which.
    private func here(in file: String) -> (file: String, pointer: String) {
        let keys = JSONPointer.pointer(path)
        guard file != root else { return (root, keys) }
        for candidate in origins.reversed() where path.starts(with: candidate.bundled) {
            return (candidate.file, candidate.pointer + JSONPointer.pointer(Array(path.dropFirst(candidate.bundled.count))))
        }
        return (root, keys)
    }

    private mutating func record(_ reference: String, file: String, _ reason: String) {
        guard problems[reference] == nil else { return }
        let (where_, pointer) = here(in: file)
        problems[reference] = FixtureProblem(file: where_, jsonPath: pointer + "/$ref", reason: reason)
    }

    private mutating func load(_ path: String, reference: String, from file: String) -> JSONValue? {
        if let known = files[path] { return known }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let attributes else {
            record(reference, file: file, "the referenced file \(path) does not exist")
            return nil
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard bytesRead + size <= limits.bytes else {
            record(reference, file: file, "the document reaches more than \(limits.bytes) bytes of files; \(path) is not read")
            return nil
        }
        let value: JSONValue
        do {
            value = try DocumentText.read(URL(fileURLWithPath: path))
        } catch {
            record(reference, file: file, error.problems.first.map { "\($0.file): \($0.reason)" } ?? "\(path) cannot be read")
            return nil
        }
        bytesRead += size
        fileCount += 1
        fileDates[path] = attributes[.modificationDate] as? Date
        files[path] = value
        return value
    }

    private mutating func uniqueName(for base: String) -> String {
        let cleaned = String(base.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." ? $0 : "_" })
        var name = cleaned.isEmpty ? "Schema" : cleaned
        var suffix = 2
        while takenNames.contains(name) {
            name = (cleaned.isEmpty ? "Schema" : cleaned) + "\(suffix)"
            suffix += 1
        }
        takenNames.insert(name)
        return name
    }
}

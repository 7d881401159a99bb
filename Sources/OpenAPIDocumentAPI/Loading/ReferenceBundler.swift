import Foundation
import Scenarios

/// Makes one self-contained document of a document whose `$ref`s reach into other local
/// files: each external target is read (relative to the file that names it) and put in
/// place of its reference; a target that refers back to itself, directly or not, goes to
/// `#/components/schemas` once and is referred to there. References inside the root
/// document (`#/…`) stay as they are.
struct ReferenceBundler {
    /// At most this many files are read for one document.
    static let maximumFiles = 256
    /// References followed inside one another, at most.
    static let maximumDepth = 64

    let root: URL
    private var files: [String: JSONValue] = [:]
    private var stack: [String] = []
    private var hoistedNames: [String: String] = [:]
    private var hoisted: [String: JSONValue] = [:]
    private var takenNames: Set<String>

    /// The root document's schemas by `$id` and `$anchor` (JSON Schema 2020-12), as pointers.
    private var identified: [String: String] = [:]
    private var anchors: [String: String] = [:]

    init(root: URL, document: JSONValue) {
        self.root = root.standardizedFileURL
        takenNames = Set(document["components"]?["schemas"]?.objectValue?.keys.map { $0 } ?? [])
        index(document, at: "")
    }

    private mutating func index(_ value: JSONValue, at pointer: String) {
        switch value {
        case .object(let members):
            if let id = members["$id"]?.stringValue { identified[id] = pointer }
            if let anchor = members["$anchor"]?.stringValue { anchors[anchor] = pointer }
            for (key, member) in members { index(member, at: pointer + "/" + JSONPointer.escape(key)) }
        case .array(let items):
            for (offset, item) in items.enumerated() { index(item, at: pointer + "/\(offset)") }
        default:
            break
        }
    }

    /// `document` (the root file's value) with every external reference resolved.
    mutating func bundle(_ document: JSONValue) throws(FixtureError) -> JSONValue {
        var result = try walk(document, file: root, at: "")
        guard !hoisted.isEmpty, case .object(var members) = result else { return result }
        var components = members["components"]?.objectValue ?? [:]
        var schemas = components["schemas"]?.objectValue ?? [:]
        schemas.merge(hoisted) { own, _ in own }
        components["schemas"] = .object(schemas)
        members["components"] = .object(components)
        result = .object(members)
        return result
    }

    private mutating func walk(_ value: JSONValue, file: URL, at pointer: String) throws(FixtureError) -> JSONValue {
        switch value {
        case .object(let members):
            if case .string(let reference)? = members["$ref"] {
                return try follow(reference, siblings: members, file: file, at: pointer)
            }
            var out: [String: JSONValue] = [:]
            for (key, member) in members { out[key] = try walk(member, file: file, at: pointer + "/" + JSONPointer.escape(key)) }
            return .object(out)
        case .array(let items):
            var out: [JSONValue] = []
            for (index, item) in items.enumerated() { out.append(try walk(item, file: file, at: pointer + "/\(index)")) }
            return .array(out)
        default:
            return value
        }
    }

    private mutating func follow(_ reference: String, siblings: [String: JSONValue], file: URL, at pointer: String) throws(FixtureError) -> JSONValue {
        let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let location = String(parts[0])
        let fragment = parts.count > 1 ? String(parts[1]) : ""
        let target: URL
        if file == root, let base = location.isEmpty ? (fragment.hasPrefix("/") || fragment.isEmpty ? nil : "") : identified[location] {
            // A schema named by its `$id`, or an `$anchor`: a pointer into the document.
            let named = fragment.isEmpty ? base : fragment.hasPrefix("/") ? base + fragment : anchors[fragment]
            guard let named else {
                throw FixtureError(file: file.path, jsonPath: pointer + "/$ref", reason: "\(reference) names no $anchor of the document")
            }
            return .object(siblings.merging(["$ref": .string("#" + named)]) { _, new in new })
        }
        if location.isEmpty {
            if file == root { return .object(siblings) }   // stays an internal reference
            target = file
        } else {
            if let scheme = URL(string: location)?.scheme, scheme.count > 1, scheme != "file" {
                throw FixtureError(file: file.path, jsonPath: pointer + "/$ref",
                                   reason: "\(reference) is a remote reference; only files beside the document are read")
            }
            let path = location.removingPercentEncoding ?? location
            target = URL(fileURLWithPath: path, relativeTo: file.deletingLastPathComponent()).standardizedFileURL
        }
        if target == root { return .object(siblings.merging(["$ref": .string("#" + fragment)]) { _, new in new }) }
        let key = target.path + "#" + fragment
        if let name = hoistedNames[key] { return ["$ref": .string("#/components/schemas/" + JSONPointer.escape(name))] }
        if stack.contains(key) {
            let name = uniqueName(for: fragment.isEmpty ? target.deletingPathExtension().lastPathComponent : String(fragment.split(separator: "/").last ?? "Schema"))
            hoistedNames[key] = name
            return ["$ref": .string("#/components/schemas/" + JSONPointer.escape(name))]
        }
        guard stack.count < Self.maximumDepth else {
            throw FixtureError(file: file.path, jsonPath: pointer + "/$ref", reason: "references nest deeper than \(Self.maximumDepth)")
        }
        let content = try load(target, from: file, at: pointer)
        guard let value = JSONPointer.resolve(fragment, in: content) else {
            throw FixtureError(file: file.path, jsonPath: pointer + "/$ref", reason: "\(reference) names nothing: \(target.path) has no \(fragment.isEmpty ? "value" : fragment)")
        }
        stack.append(key)
        var resolved = try walk(value, file: target, at: fragment)
        stack.removeLast()
        if let name = hoistedNames[key] {
            hoisted[name] = resolved
            return ["$ref": .string("#/components/schemas/" + JSONPointer.escape(name))]
        }
        if case .object(var members) = resolved {
            for (sibling, member) in siblings where sibling != "$ref" && members[sibling] == nil { members[sibling] = member }
            resolved = .object(members)
        }
        return resolved
    }

    private mutating func load(_ url: URL, from file: URL, at pointer: String) throws(FixtureError) -> JSONValue {
        if let known = files[url.path] { return known }
        guard files.count < Self.maximumFiles else {
            throw FixtureError(file: file.path, jsonPath: pointer + "/$ref", reason: "the document reaches more than \(Self.maximumFiles) files")
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw FixtureError(file: file.path, jsonPath: pointer + "/$ref", reason: "the referenced file \(url.path) does not exist")
        }
        let value = try DocumentText.read(url)
        files[url.path] = value
        return value
    }

    private mutating func uniqueName(for base: String) -> String {
        let cleaned = String(base.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." ? $0 : "_" })
        var name = cleaned.isEmpty ? "Schema" : cleaned
        var suffix = 2
        while takenNames.contains(name) {
            name = cleaned + "\(suffix)"
            suffix += 1
        }
        takenNames.insert(name)
        return name
    }
}

/// RFC 6901 JSON pointers over JSON values.
enum JSONPointer {
    static func escape(_ key: String) -> String {
        key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    static func unescape(_ token: Substring) -> String {
        let text = String(token).removingPercentEncoding ?? String(token)
        return text.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }

    /// The value at `pointer` ("" or "/a/0/b") in `value`.
    static func resolve(_ pointer: String, in value: JSONValue) -> JSONValue? {
        var current = value
        for token in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let key = unescape(token)
            switch current {
            case .object(let members):
                guard let next = members[key] else { return nil }
                current = next
            case .array(let items):
                guard let index = Int(key), items.indices.contains(index) else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }

    /// A coding path as a pointer: `/paths/~1pets/get`.
    static func pointer(_ codingPath: [any CodingKey]) -> String {
        codingPath.map { "/" + escape($0.intValue.map(String.init) ?? $0.stringValue) }.joined()
    }
}

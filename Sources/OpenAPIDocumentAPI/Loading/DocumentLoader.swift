import Foundation
import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat
import Scenarios

/// Reads an OpenAPI 3.0, 3.1 or 3.2 document (YAML or JSON, `$ref`s across local files)
/// with OpenAPIKit, and gives it as one OpenAPI 3.1 document in JSON (3.0 converted).
enum DocumentLoader {
    struct Loaded: Sendable {
        /// The document as OpenAPI 3.1 (or 3.2) JSON, external references resolved.
        let json: JSONValue
    }

    static func load(_ url: URL) throws(FixtureError) -> Loaded {
        let file = url.path
        let raw = try DocumentText.read(url)
        guard case .object = raw else { throw FixtureError(file: file, jsonPath: "", reason: "not an OpenAPI document (expected an object at the top)") }
        var bundler = ReferenceBundler(root: url, document: raw)
        let bundled = try bundler.bundle(raw)
        guard let version = bundled["openapi"]?.stringValue else {
            if bundled["swagger"] != nil {
                throw FixtureError(file: file, jsonPath: "/swagger", reason: "a Swagger 2.0 document; convert it to OpenAPI 3 first (for example with swagger2openapi)")
            }
            throw FixtureError(file: file, jsonPath: "/openapi", reason: "the key \"openapi\" (the OpenAPI version, 3.0.x or 3.1.x) is missing")
        }
        let data = JSONCoding.encode(bundled)
        let document: OpenAPIKit.OpenAPI.Document
        do {
            if version.hasPrefix("3.0") {
                let old = try JSONDecoder().decode(OpenAPIKit30.OpenAPI.Document.self, from: data)
                document = old.convert(to: .v3_1_1)
            } else if version.hasPrefix("3.1") || version.hasPrefix("3.2") {
                document = try JSONDecoder().decode(OpenAPIKit.OpenAPI.Document.self, from: data)
            } else {
                throw FixtureError(file: file, jsonPath: "/openapi", reason: "OpenAPI \(version) is not read; the mock reads 3.0, 3.1 and 3.2")
            }
        } catch let error as FixtureError {
            throw error
        } catch {
            let described = OpenAPIKit.OpenAPI.Error(from: error)
            throw FixtureError(file: file, jsonPath: JSONPointer.pointer(described.codingPath), reason: described.localizedDescription)
        }
        do {
            _ = try document.validate(strict: false)
        } catch let errors as OpenAPIKit.ValidationErrorCollection {
            throw FixtureError(errors.values.map { FixtureProblem(file: file, jsonPath: JSONPointer.pointer($0.codingPath), reason: $0.reason) })
        } catch {
            throw FixtureError(file: file, jsonPath: "", reason: "\(error)")
        }
        let encoded: Data
        do {
            encoded = try JSONEncoder().encode(document)
        } catch {
            throw FixtureError(file: file, jsonPath: "", reason: "cannot be written as OpenAPI 3.1: \(error)")
        }
        guard let json = JSONValue(parsing: encoded) else {
            throw FixtureError(file: file, jsonPath: "", reason: "cannot be written as OpenAPI 3.1")
        }
        return Loaded(json: nullableCombinators(json))
    }

    /// OpenAPIKit writes a nullable `allOf`/`anyOf`/`oneOf` (a 3.0 `nullable: true`, or a
    /// branch of type null) as the combinator beside `"type": "null"`, which no value but
    /// null satisfies; here it is the combinator or null, as meant.
    static func nullableCombinators(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let items):
            return .array(items.map(nullableCombinators))
        case .object(var members):
            for (key, member) in members { members[key] = nullableCombinators(member) }
            guard members["type"] == "null", members["allOf"] != nil || members["anyOf"] != nil || members["oneOf"] != nil else {
                return .object(members)
            }
            members["type"] = nil
            for key in ["anyOf", "oneOf"] {
                if let branches = members[key]?.arrayValue, branches.contains(where: { $0["type"] == "null" }) { return .object(members) }
            }
            return ["anyOf": [.object(members), ["type": "null"]]]
        default:
            return value
        }
    }
}

import Foundation

/// Reads fixture files through `JSONParser` and `JSONReader` instead of `JSONDecoder`.
///
/// Every start reads `products.json`, and `JSONDecoder` is costly to start with: every
/// generic container it instantiates costs runtime conformance lookups, which a
/// statically linked binary pays by scanning all of its conformance records. Fixture
/// types read themselves from the parsed value here, and report each problem with its
/// file and JSON path. Unknown keys are ignored, as a `Decodable` conformance ignores them.
extension FixtureFile {
    /// Parses the file at `url` and builds a value from it with `build`, which reports
    /// its problems on the reader and returns nil when there were any.
    package static func read<T>(_ url: URL, _ build: (JSONReader, JSONValue) -> T?) throws(FixtureError) -> T {
        let data = try read(url)
        let json: JSONValue
        do {
            json = try JSONValue.parse(data)
        } catch {
            // Our parser says where the syntax breaks, never `JSONDecoder` (see `decode`).
            throw FixtureError(file: url.path, reason: "not valid JSON: \(error)")
        }
        let reader = JSONReader(file: url.path)
        let value = build(reader, json)
        guard reader.problems.isEmpty, let value else {
            throw FixtureError(reader.problems.isEmpty ? [FixtureProblem(file: url.path, reason: "cannot be read as a fixture file")] : reader.problems)
        }
        return value
    }
}

/// The members of one JSON object in a fixture file, read by key with type checks.
/// Each accessor reports a missing key or a wrong type at `path.key` and returns nil.
package struct FixtureFields {
    package let reader: JSONReader
    package let path: String
    package let members: [String: JSONValue]

    /// The object at `path`, or nil (with a problem) when `value` is not an object.
    package init?(_ value: JSONValue, _ path: String, _ reader: JSONReader) {
        guard case .object(let members) = value else {
            reader.problem(path, "expected an object, found \(value.typeName)")
            return nil
        }
        self.reader = reader
        self.path = path
        self.members = members
    }

    private func required(_ key: String, _ expected: String) -> JSONValue? {
        guard let value = members[key] else {
            reader.problem("\(path).\(key)", "required key \"\(key)\" is missing")
            return nil
        }
        if case .null = value {
            reader.problem("\(path).\(key)", "expected \(expected), found null")
            return nil
        }
        return value
    }

    private func mismatch(_ key: String, _ expected: String, _ value: JSONValue) {
        reader.problem("\(path).\(key)", "expected \(expected), found \(value.typeName)")
    }

    package func string(_ key: String) -> String? {
        guard let value = required(key, "a string") else { return nil }
        guard case .string(let text) = value else { mismatch(key, "a string", value); return nil }
        return text
    }

    package func double(_ key: String) -> Double? {
        guard let value = required(key, "a number") else { return nil }
        guard case .number(let number) = value else { mismatch(key, "a number", value); return nil }
        return number
    }

    package func int(_ key: String) -> Int? {
        guard let value = required(key, "an integer") else { return nil }
        guard case .number(let number) = value else { mismatch(key, "an integer", value); return nil }
        guard let integer = value.intValue else {
            reader.problem("\(path).\(key)", "expected an integer, found \(JSONReader.show(number))")
            return nil
        }
        return integer
    }

    /// An array whose elements are read by `element` at `path.key[i]`; nil if any fails.
    package func list<T>(_ key: String, _ element: (JSONValue, String, JSONReader) -> T?) -> [T]? {
        guard let value = required(key, "an array") else { return nil }
        guard case .array(let elements) = value else { mismatch(key, "an array", value); return nil }
        var result: [T] = []
        result.reserveCapacity(elements.count)
        var complete = true
        for (index, json) in elements.enumerated() {
            if let item = element(json, "\(path).\(key)[\(index)]", reader) { result.append(item) } else { complete = false }
        }
        return complete ? result : nil
    }
}

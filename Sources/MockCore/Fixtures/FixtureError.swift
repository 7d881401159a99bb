import Foundation

/// A problem in a fixture or scenario file: which file, where in it (a JSON path like
/// `$.items[2].price`), and what is wrong.
public struct FixtureProblem: Sendable, Equatable, CustomStringConvertible {
    /// The file's path, as it was opened.
    public var file: String
    /// Where in the file, as a JSON path (`$.items[2].price`); empty for the file as a whole.
    public var jsonPath: String
    /// What is wrong, and what is expected.
    public var reason: String

    /// Makes a problem in `file` at `jsonPath` (the whole document by default).
    public init(file: String, jsonPath: String = "$", reason: String) {
        self.file = file
        self.jsonPath = jsonPath
        self.reason = reason
    }

    /// `FILE: PATH: REASON`, or `FILE: REASON` without a path.
    public var description: String { jsonPath.isEmpty ? "\(file): \(reason)" : "\(file): \(jsonPath): \(reason)" }
}

/// Every problem found while loading a set of files.
public struct FixtureError: Error, Sendable, CustomStringConvertible {
    /// Every problem, in the order found.
    public var problems: [FixtureProblem]

    /// Makes an error of `problems`.
    public init(_ problems: [FixtureProblem]) { self.problems = problems }
    /// Makes an error of one problem in `file` at `jsonPath`.
    public init(file: String, jsonPath: String = "$", reason: String) {
        self.problems = [FixtureProblem(file: file, jsonPath: jsonPath, reason: reason)]
    }

    /// One problem per line.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// Reads and decodes fixture files, turning decoding errors into file + JSON path + reason.
public enum FixtureFile {
    /// The file's bytes; a file that cannot be read is thrown as a problem at `$`.
    public static func read(_ url: URL) throws(FixtureError) -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw FixtureError(file: url.path, reason: "cannot read the file (\(FixtureFile.describe(error)))")
        }
    }

    /// Reads and decodes `url`; a decoding error is thrown with the file, the JSON path and the reason.
    public static func decode<T: Decodable>(_ type: T.Type, from url: URL) throws(FixtureError) -> T {
        try decode(type, from: read(url), file: url.path)
    }

    /// `data` as `T`. `JSONDecoder` is given only JSON this package's strict parser
    /// accepted: swift-foundation's traps on some malformed input (a CR, then arrays nested
    /// past 512 levels and left open), and a bad file must be an error, never a crash.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, file: String) throws(FixtureError) -> T {
        try checkSyntax(data, file: file)
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw FixtureError([problem(error, file: file)])
        } catch {
            throw FixtureError(file: file, reason: "not valid JSON")
        }
    }

    /// Throws where and why `data` is not JSON (`JSONValue.parse`); returns when it is.
    public static func checkSyntax(_ data: Data, file: String) throws(FixtureError) {
        do {
            _ = try JSONValue.parse(data)
        } catch {
            throw FixtureError(file: file, reason: "not valid JSON: \(error)")
        }
    }

    static func problem(_ error: DecodingError, file: String) -> FixtureProblem {
        switch error {
        case .typeMismatch(let type, let context):
            return FixtureProblem(file: file, jsonPath: jsonPath(context.codingPath),
                                  reason: "expected \(typeName(type)): \(context.debugDescription)")
        case .valueNotFound(let type, let context):
            return FixtureProblem(file: file, jsonPath: jsonPath(context.codingPath),
                                  reason: "expected \(typeName(type)), found null")
        case .keyNotFound(let key, let context):
            return FixtureProblem(file: file, jsonPath: jsonPath(context.codingPath + [key]),
                                  reason: "required key \"\(key.stringValue)\" is missing")
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            let reason = context.codingPath.isEmpty
                ? "not valid JSON" + (underlying.map { " (\($0))" } ?? "")
                : context.debugDescription
            return FixtureProblem(file: file, jsonPath: jsonPath(context.codingPath), reason: reason)
        @unknown default:
            return FixtureProblem(file: file, reason: "\(error)")
        }
    }

    /// `$.items[2].price` for a coding path.
    public static func jsonPath(_ codingPath: [any CodingKey]) -> String {
        codingPath.reduce("$") { path, key in
            if let index = key.intValue { return path + "[\(index)]" }
            return path + "." + key.stringValue
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Int64.Type, is UInt.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        case is Bool.Type: return "a boolean"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") || name.hasPrefix("[") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "an object (\(name))"
        }
    }

    static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain && nsError.code == NSFileReadNoSuchFileError { return "no such file" }
        return nsError.localizedDescription
    }
}

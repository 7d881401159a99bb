/// Walks a JSON document keeping the path, collecting every problem instead of stopping
/// at the first: validation reports them all with file, JSON path and reason. Open to the
/// package's readers of other formats built on the same messages (the HAR import in `MockServer`).
package final class JSONReader {
    /// The file named in every problem (a path, or a label for a document that has none).
    public let file: String
    /// Every problem found so far, in the order found.
    public private(set) var problems: [FixtureProblem] = []

    /// Makes a reader whose problems name `file`.
    public init(file: String) { self.file = file }

    /// Records a problem at `path` (a JSON path such as `$.rules[2].request`) and reads on.
    public func problem(_ path: String, _ reason: String) {
        problems.append(FixtureProblem(file: file, jsonPath: path, reason: reason))
    }

    /// The members of an object whose other keys belong to someone else (a HAR file's
    /// vendor extensions, say): none are reported. A missing value is reported when `required`.
    public func openObject(_ value: JSONValue?, _ path: String, required: Bool = false) -> [String: JSONValue]? {
        guard let value else {
            if required { problem(path, "required key is missing") }
            return nil
        }
        guard case .object(let members) = value else {
            problem(path, "expected an object, found \(value.typeName)")
            return nil
        }
        return members
    }

    /// The members of an object; unknown keys are reported.
    public func object(_ value: JSONValue?, _ path: String, keys allowed: Set<String>) -> [String: JSONValue]? {
        guard let value else { return nil }
        guard case .object(let members) = value else {
            problem(path, "expected an object, found \(value.typeName)")
            return nil
        }
        for key in members.keys.sorted() where !allowed.contains(key) {
            problem("\(path).\(key)", "unknown key; expected one of: \(allowed.sorted().joined(separator: ", "))")
        }
        return members
    }

    /// The string at `path`; nil, with a problem recorded, when it is not a string, or when it is missing and `required`.
    public func string(_ value: JSONValue?, _ path: String, required: Bool = false) -> String? {
        guard let value else {
            if required { problem(path, "required key is missing") }
            return nil
        }
        guard case .string(let text) = value else {
            problem(path, "expected a string, found \(value.typeName)")
            return nil
        }
        return text
    }

    /// The number at `path`; nil, with a problem recorded, when it is not a number, lies outside
    /// `range`, or is missing and `required`.
    public func number(_ value: JSONValue?, _ path: String, required: Bool = false, range: ClosedRange<Double>? = nil) -> Double? {
        guard let value else {
            if required { problem(path, "required key is missing") }
            return nil
        }
        guard case .number(let number) = value else {
            problem(path, "expected a number, found \(value.typeName)")
            return nil
        }
        if let range, !range.contains(number) {
            problem(path, "must be between \(Self.show(range.lowerBound)) and \(Self.show(range.upperBound)), found \(Self.show(number))")
            return nil
        }
        return number
    }

    /// The whole number at `path`; nil, with a problem recorded, when it has a fraction, lies
    /// outside `range`, or is missing and `required`.
    public func integer(_ value: JSONValue?, _ path: String, required: Bool = false, range: ClosedRange<Int>? = nil) -> Int? {
        guard let number = number(value, path, required: required) else { return nil }
        guard let integer = JSONValue.number(number).intValue else {
            problem(path, "expected a whole number, found \(Self.show(number))")
            return nil
        }
        if let range, !range.contains(integer) {
            problem(path, "must be between \(range.lowerBound) and \(range.upperBound), found \(integer)")
            return nil
        }
        return integer
    }

    /// The array at `path`; nil, with a problem recorded, when it is not an array, or when it is missing and `required`.
    public func array(_ value: JSONValue?, _ path: String, required: Bool = false) -> [JSONValue]? {
        guard let value else {
            if required { problem(path, "required key is missing") }
            return nil
        }
        guard case .array(let elements) = value else {
            problem(path, "expected an array, found \(value.typeName)")
            return nil
        }
        return elements
    }

    /// A string that must be one of `choices`.
    public func choice<T>(_ value: JSONValue?, _ path: String, _ choices: [String: T]) -> T? {
        guard let text = string(value, path) else { return nil }
        guard let picked = choices[text] else {
            problem(path, "\"\(text)\" is not one of: \(choices.keys.sorted().joined(separator: ", "))")
            return nil
        }
        return picked
    }

    /// `number` as a message shows it: `3` for a whole number, `2.5` otherwise.
    public static func show(_ number: Double) -> String {
        JSONValue.number(number).intValue.map(String.init) ?? String(number)
    }
}

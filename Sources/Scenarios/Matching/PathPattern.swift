/// A path template: literal segments, `{name}` parameters (one segment), `*` (any one
/// segment) and a trailing `**` (any rest, including nothing).
/// `/api/products/{id}` matches `/api/products/7` with `id = "7"`.
public struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
        case anySegment
        case anyRest
    }

    public let template: String
    let segments: [Segment]

    public init(_ template: String) {
        self.template = template
        let parts = PathPattern.split(template)
        self.segments = parts.enumerated().map { index, part in
            if part == "**" && index == parts.count - 1 { return .anyRest }
            if part == "*" { return .anySegment }
            if part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2 {
                return .parameter(String(part.dropFirst().dropLast()))
            }
            return .literal(part)
        }
    }

    public var description: String { template }

    /// The parameters when `path` matches, nil otherwise. Segments are compared after
    /// percent-decoding, so `/images/a%20b.png` matches `/images/{file}` with `a b.png`.
    public func match(_ path: String) -> [String: String]? {
        let parts = PathPattern.split(path)
        var parameters: [String: String] = [:]
        var index = 0
        for segment in segments {
            switch segment {
            case .anyRest:
                return parameters
            case .literal(let literal):
                guard index < parts.count, parts[index] == literal else { return nil }
            case .parameter(let name):
                guard index < parts.count else { return nil }
                parameters[name] = parts[index].removingPercentEncoding ?? parts[index]
            case .anySegment:
                guard index < parts.count else { return nil }
            }
            index += 1
        }
        return index == parts.count ? parameters : nil
    }

    static func split(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }
}

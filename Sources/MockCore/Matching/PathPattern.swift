import Foundation

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

    /// The template as written, such as `/api/products/{id}`.
    public let template: String
    let segments: [Segment]

    /// Parses `template`: segments split at `/`, `{name}` a parameter, `*` any one segment, a trailing `**` any rest.
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

    /// The template as written.
    public var description: String { template }

    /// How many segments are literal: where several templates match one path, the most
    /// literal one is that path's resource (OpenAPI's "concrete paths first").
    var literalCount: Int { segments.count { if case .literal = $0 { return true }; return false } }

    /// The parameters when `path` matches, nil otherwise. Segments are compared after
    /// percent-decoding, so `/images/a%20b.png` matches `/images/{file}` with `a b.png`.
    public func match(_ path: String) -> [String: String]? {
        // On the path's contiguous UTF-8 with integer offsets: stepping `String.Index`es
        // through a `UTF8View` costs many times more per byte, on every request routed.
        // (`MockRequest` makes its path contiguous once; a bridged string is copied here.)
        var path = path
        return path.withUTF8 { match(bytes: $0) }
    }

    /// Walks the path's bytes once, segment by segment: no array of parts per route tried.
    private func match(bytes: UnsafeBufferPointer<UInt8>) -> [String: String]? {
        let slash = UInt8(ascii: "/")
        var position = 0
        func nextSegment() -> Range<Int>? {
            while position < bytes.count && bytes[position] == slash { position += 1 }
            guard position < bytes.count else { return nil }
            let start = position
            while position < bytes.count && bytes[position] != slash { position += 1 }
            return start..<position
        }
        var parameters: [String: String] = [:]
        for segment in segments {
            switch segment {
            case .anyRest:
                return parameters
            case .literal(let literal):
                guard let range = nextSegment(), Self.equal(UnsafeBufferPointer(rebasing: bytes[range]), literal) else { return nil }
            case .parameter(let name):
                guard let range = nextSegment() else { return nil }
                // Cut at "/" bytes, so the part is whole UTF-8.
                let part = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
                parameters[name] = part.utf8.contains(UInt8(ascii: "%")) ? (part.removingPercentEncoding ?? part) : part
            case .anySegment:
                guard nextSegment() != nil else { return nil }
            }
        }
        return nextSegment() == nil ? parameters : nil
    }

    /// Whether a segment's bytes are `literal`'s UTF-8, byte for byte.
    /// One `memcmp`, not `elementsEqual`, which goes byte by byte: this runs for every
    /// route a request is compared with.
    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: String) -> Bool {
        let utf8 = literal.utf8
        guard bytes.count == utf8.count else { return false }
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return true }
        return utf8.withContiguousStorageIfAvailable { memcmp(start, $0.baseAddress!, bytes.count) == 0 } ?? bytes.elementsEqual(utf8)
    }

    /// The first segment a matching path must have, as sent (literals are compared
    /// before percent-decoding): "" when the pattern matches only `/`, nil when the first
    /// segment can be anything.
    var requiredFirstSegment: String? {
        guard let first = segments.first else { return "" }
        if case .literal(let literal) = first { return literal }
        return nil
    }

    /// The first segment of `path` (leading slashes skipped), "" for `/`.
    static func firstSegment(of path: String) -> Substring {
        // On contiguous bytes (the transport's paths are): offsets found by a plain loop,
        // then UTF-8 indices, which a native string offsets in constant time.
        if let (start, end) = path.utf8.withContiguousStorageIfAvailable({ bytes -> (Int, Int) in
            guard let start = bytes.firstIndex(where: { $0 != UInt8(ascii: "/") }) else { return (bytes.count, bytes.count) }
            return (start, bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count)
        }) {
            let utf8 = path.utf8
            guard start < end else { return "" }
            return path[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)]
        }
        let bytes = path.utf8
        guard let start = bytes.firstIndex(where: { $0 != UInt8(ascii: "/") }) else { return "" }
        let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
        return path[start..<end]
    }

    static func split(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }
}

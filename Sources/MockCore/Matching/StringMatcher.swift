import Foundation

/// How one string (a header, a query item) must look. Each meaning is its own case.
public enum StringMatcher: Sendable, Hashable {
    /// Equal to this string, case included.
    case equalTo(String)
    /// Equal to this string, case ignored.
    case equalToIgnoringCase(String)
    /// Contains this string.
    case contains(String)
    /// Starts with this string.
    case hasPrefix(String)
    /// A regular expression that must match the whole value.
    case matches(String)
    /// The item must be there, with any value.
    case present
    /// The item must not be there.
    case absent

    /// Whether `value` (nil: the item is absent) meets the matcher; only `absent` accepts nil.
    public func matches(_ value: String?) -> Bool {
        switch self {
        case .absent: return value == nil
        case .present: return value != nil
        default: break
        }
        guard let value else { return false }
        switch self {
        case .equalTo(let expected): return value == expected
        case .equalToIgnoringCase(let expected): return value.lowercased() == expected.lowercased()
        case .contains(let part): return value.contains(part)
        case .hasPrefix(let prefix): return value.hasPrefix(prefix)
        case .matches(let pattern):
            // The whole value must match, by any of the pattern's alternatives (`a|ab` matches
            // "ab"): the pattern is anchored at both ends rather than its first match compared.
            guard let regex = RegexCache.shared.regex(#"\A(?:"# + pattern + #")\z"#) else { return false }
            return regex.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
        case .present, .absent: return true
        }
    }

    /// The matcher for people, such as `== "application/json"`.
    public var description: String {
        switch self {
        case .equalTo(let s): return "== \"\(s)\""
        case .equalToIgnoringCase(let s): return "== \"\(s)\" (any case)"
        case .contains(let s): return "contains \"\(s)\""
        case .hasPrefix(let s): return "starts with \"\(s)\""
        case .matches(let s): return "matches /\(s)/"
        case .present: return "present"
        case .absent: return "absent"
        }
    }
}

/// Compiled regular expressions, shared: the patterns of scenario files and of OpenAPI
/// documents' schemas, and the patterns that do not compile (nil), so neither is compiled
/// twice. At most `limit` are kept: a pattern past it empties the cache first.
final class RegexCache: Sendable {
    static let shared = RegexCache()
    /// How many patterns are kept.
    let limit: Int
    private let cache = Locked([String: NSRegularExpression?]())

    init(limit: Int = 4_096) { self.limit = limit }

    /// How many patterns are kept now.
    var count: Int { cache.withLock { $0.count } }

    /// `pattern` compiled (ICU syntax, no options); nil when it does not compile.
    func regex(_ pattern: String) -> NSRegularExpression? {
        if let known = cache.withLock({ $0[pattern] }) { return known }
        let compiled = try? NSRegularExpression(pattern: pattern)
        cache.withLock { cache in
            if cache.count >= limit { cache.removeAll(keepingCapacity: true) }
            cache[pattern] = .some(compiled)
        }
        return compiled
    }
}

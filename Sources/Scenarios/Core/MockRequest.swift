import Foundation

/// One HTTP request as the engine sees it: transport-independent and immutable.
public struct MockRequest: Sendable {
    public var method: String
    /// The path without the query, percent-decoded per segment is left to the matcher.
    public var path: String
    /// Query items in order; a name without `=` has an empty value.
    public var query: [(name: String, value: String)]
    public var headers: HeaderFields
    public var body: Data
    /// `scheme://host:port` as the client addressed this server; absolute URLs in
    /// responses (image URLs) are built on it.
    public var baseURL: String
    public var receivedAt: Date
    /// The connection the request came on, when it came on one (nil in process).
    public var connection: ConnectionRef?

    public init(
        method: String,
        uri: String,
        headers: HeaderFields = [:],
        body: Data = Data(),
        baseURL: String = "http://localhost",
        receivedAt: Date = Date(timeIntervalSince1970: 0),
        connection: ConnectionRef? = nil
    ) {
        // Methods arrive upper-case from the parser; only others pay for `uppercased()`.
        let lowerCase = method.utf8.withContiguousStorageIfAvailable { $0.contains { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") } }
            ?? method.utf8.contains { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }
        self.method = lowerCase ? method.uppercased() : method
        let (splitPath, query) = MockRequest.split(uri: uri)
        var path = splitPath
        // Routing reads the path's UTF-8 in place: a lazily bridged string (a URL's path
        // on Apple platforms) is copied once here, not once per route tried.
        path.makeContiguousUTF8()
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.baseURL = baseURL
        self.receivedAt = receivedAt
        self.connection = connection
    }

    /// The first value of a query item, percent-decoded.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    public func queryValues(_ name: String) -> [String] {
        query.filter { $0.name == name }.map(\.value)
    }

    /// The original URI: path plus query.
    public var uri: String {
        guard !query.isEmpty else { return path }
        let items = query.map { $0.value.isEmpty ? $0.name : "\($0.name)=\($0.value)" }
        return path + "?" + items.joined(separator: "&")
    }

    static func split(uri: String) -> (String, [(name: String, value: String)]) {
        // Most targets are a path alone ("/menu"): one scan of contiguous bytes says so.
        if uri.utf8.withContiguousStorageIfAvailable({ $0.first == UInt8(ascii: "/") && !$0.contains(UInt8(ascii: "?")) }) == true {
            return (uri, [])
        }
        // Searched on the UTF-8 view: `firstIndex(of: Character)` walks grapheme clusters.
        var rawPath = Substring(uri)
        var rawQuery: Substring = ""
        if let mark = uri.utf8.firstIndex(of: UInt8(ascii: "?")) {
            rawPath = uri[..<mark]
            rawQuery = uri[uri.utf8.index(after: mark)...]
        }
        if let hash = rawQuery.utf8.firstIndex(of: UInt8(ascii: "#")) { rawQuery = rawQuery[..<hash] }
        // An absolute-form request target ("http://host/path") keeps only its path.
        if rawPath.utf8.first == UInt8(ascii: "h"), rawPath.hasPrefix("http://") || rawPath.hasPrefix("https://"),
           let afterScheme = rawPath.range(of: "://")?.upperBound {
            let rest = rawPath[afterScheme...]
            rawPath = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        let path = rawPath.isEmpty ? "/" : String(rawPath)
        // Items split at "&" and "=" on the UTF-8 view (both are ASCII, so every cut is a
        // valid index): `split(separator: Character)` walked grapheme clusters and was a
        // tenth of the server's time on an Open Market page (#7).
        var query: [(name: String, value: String)] = []
        let bytes = rawQuery.utf8
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
            if start < end {
                let item = rawQuery[start..<end]
                if let equals = item.utf8.firstIndex(of: UInt8(ascii: "=")) {
                    query.append((name: decodeQueryComponent(item[..<equals]),
                                  value: decodeQueryComponent(item[item.utf8.index(after: equals)...])))
                } else {
                    query.append((name: decodeQueryComponent(item), value: ""))
                }
            }
            start = end < bytes.endIndex ? bytes.index(after: end) : end
        }
        return (path, query)
    }

    /// `+` is a space, `%XX` a byte; a malformed escape or invalid UTF-8 keeps the text
    /// as sent. Works on bytes: most queries (`page_no=1`) need no decoding at all.
    static func decodeQueryComponent(_ text: Substring) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first != utf8.endIndex, utf8.index(after: first) != utf8.endIndex,
                      let high = hexValue(utf8[first]), let low = hexValue(utf8[utf8.index(after: first)]) else {
                    return String(text).replacingOccurrences(of: "+", with: " ")
                }
                bytes.append(high << 4 | low)
                index = utf8.index(after: utf8.index(after: first))
                continue
            } else {
                bytes.append(byte)
            }
            index = utf8.index(after: index)
        }
        return String(bytes: bytes, encoding: .utf8) ?? String(text).replacingOccurrences(of: "+", with: " ")
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// Which connection a request came on, and its place there: what tells a client's own
/// resend on a fresh connection (`AutomaticResend`) from a second call.
public struct ConnectionRef: Sendable, Hashable {
    /// Unique among a process's connections.
    public let id: UInt64
    /// 1 for the first request on the connection (HTTP/2: the first stream).
    public let ordinal: Int

    public init(id: UInt64, ordinal: Int) {
        self.id = id
        self.ordinal = ordinal
    }

    /// Whether the connection had carried a request before this one.
    public var isReused: Bool { ordinal > 1 }
}

import Foundation

/// One HTTP request as the engine sees it: transport-independent and immutable.
public struct MockRequest: Sendable {
    /// The method, upper-case (`GET`), whatever case the client sent.
    public var method: String
    /// The path without the query, percent-decoded per segment is left to the matcher.
    public var path: String
    /// Query items in order; a name without `=` has an empty value.
    public var query: [(name: String, value: String)]
    /// The header fields in arrival order.
    public var headers: HeaderFields
    /// The body bytes, empty when the request has none.
    public var body: Data
    /// `scheme://host:port` as the client addressed this server; absolute URLs in
    /// responses (image URLs) are built on it.
    public var baseURL: String
    /// When the transport received the request, on the engine's `TimeSource`; the journal records it and measures the exchange's duration from it.
    public var receivedAt: Date
    /// The connection the request came on, when it came on one (nil in process).
    public var connection: ConnectionRef?

    /// Makes a request from its request line, headers and body.
    ///
    /// - Parameters:
    ///   - method: Any case; stored upper-case.
    ///   - uri: The request target, path and optional query (`/menu?page=2`); the query is split off and percent-decoded.
    ///   - headers: The header fields as they came, in order, names in any case.
    ///   - body: The body's bytes (empty for none).
    ///   - baseURL: `scheme://host:port` as the client addressed the server; absolute URLs in responses are built on it.
    ///   - receivedAt: The time the transport received the request.
    ///   - connection: The connection and its place there, nil when the request came in process.
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

    /// Every value of the query item `name` (case-sensitive), percent-decoded, in order; empty when there is none.
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
        var target = uri
        // Native strings (every request target NIO parses) are read in place; `withUTF8`
        // copies a bridged one once. Raw offsets, not a Substring's UTF-8 view: indexing
        // the view costs many times more, and every request target is split here.
        let split: (String, [(name: String, value: String)])? = target.withUTF8 { bytes in
            // Most targets are a path alone ("/menu"): one scan says so, and the target
            // itself is the path (below, as `withUTF8` left it: native). A fragment ("#",
            // which a client should not send) is no part of the path or the query.
            guard let mark = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else {
                guard bytes.first != UInt8(ascii: "/") else { return nil }
                return (path(bytes[...]), [])
            }
            guard bytes[mark] == UInt8(ascii: "?") else { return (path(bytes[..<mark]), []) }
            var query: [(name: String, value: String)] = []
            var end = bytes.endIndex
            if let hash = bytes[(mark + 1)...].firstIndex(of: UInt8(ascii: "#")) { end = hash }
            // Items split at "&" and "=" (both ASCII, so every cut falls between whole
            // characters). Empty items are skipped; only the first "=" separates.
            var start = mark + 1
            while start < end {
                let itemEnd = bytes[start..<end].firstIndex(of: UInt8(ascii: "&")) ?? end
                if start < itemEnd {
                    if let equals = bytes[start..<itemEnd].firstIndex(of: UInt8(ascii: "=")) {
                        query.append((name: decodeQueryComponent(bytes[start..<equals]),
                                      value: decodeQueryComponent(bytes[(equals + 1)..<itemEnd])))
                    } else {
                        query.append((name: decodeQueryComponent(bytes[start..<itemEnd]), value: ""))
                    }
                }
                start = itemEnd + 1
            }
            return (path(bytes[..<mark]), query)
        }
        return split ?? (target, [])
    }

    /// The path of a request target's part before "?": an absolute-form target
    /// ("http://host/path", the scheme in any case) keeps only its path, and an empty one
    /// is "/".
    private static func path(_ raw: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        var raw = raw
        let scheme = raw.prefix(8).lazy.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        if scheme.starts(with: "http://".utf8) || scheme.starts(with: "https://".utf8) {
            let rest = raw[(raw.firstIndex(of: UInt8(ascii: ":"))! + 3)...]
            guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return "/" }
            raw = rest[slash...]
        }
        return raw.isEmpty ? "/" : String(decoding: UnsafeBufferPointer(rebasing: raw), as: UTF8.self)
    }

    /// `+` is a space, `%XX` a byte; a malformed escape or invalid UTF-8 keeps the text
    /// as sent. Most queries (`page_no=1`) need no decoding at all.
    static func decodeQueryComponent(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        let asSent = { String(decoding: UnsafeBufferPointer(rebasing: text), as: UTF8.self) }
        guard text.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return asSent() }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < text.endIndex, let high = hexValue(text[index + 1]), let low = hexValue(text[index + 2]) else {
                    return asSent().replacingOccurrences(of: "+", with: " ")
                }
                bytes.append(high << 4 | low)
                index += 3
                continue
            } else {
                bytes.append(byte)
            }
            index += 1
        }
        return String(bytes: bytes, encoding: .utf8) ?? asSent().replacingOccurrences(of: "+", with: " ")
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

    /// Makes a reference to the `ordinal`th request (from 1) on connection `id`.
    public init(id: UInt64, ordinal: Int) {
        self.id = id
        self.ordinal = ordinal
    }

    /// Whether the connection had carried a request before this one.
    public var isReused: Bool { ordinal > 1 }
}

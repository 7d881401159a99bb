import Foundation

/// A file served from memory with validators: `ETag` (a digest of the bytes),
/// `Last-Modified`, `Cache-Control`, and `304 Not Modified` on a matching
/// `If-None-Match` or a not-older `If-Modified-Since`. Loaded once; never read per request.
public struct StaticAsset: Sendable {
    /// The file name, as routes look it up.
    public let name: String
    /// The file's bytes.
    public let data: Data
    /// The `Content-Type` it is served with.
    public let contentType: String
    /// The `ETag`: a quoted FNV-1a digest of the bytes, strong.
    public let etag: String
    /// Whole seconds: HTTP dates carry no fractions, and comparisons must agree.
    public let lastModified: Date
    /// `lastModified` as the `Last-Modified` header writes it (IMF-fixdate).
    public let lastModifiedText: String

    /// Makes an asset of `data`; its `ETag` is computed here and `lastModified` is cut to whole seconds.
    public init(name: String, data: Data, contentType: String, lastModified: Date) {
        self.name = name
        self.data = data
        self.contentType = contentType
        self.etag = "\"" + StableHash.hex(StableHash.fnv1a64(bytes: data)) + "\""
        self.lastModified = Date(timeIntervalSince1970: lastModified.timeIntervalSince1970.rounded(.down))
        self.lastModifiedText = HTTPDate.format(self.lastModified)
    }

    /// The response to a GET or HEAD of this asset.
    public func respond(to request: MockRequest, cacheControl: String, contentType: String? = nil) -> ResponsePlan {
        // One array made at its final size: a literal, then a field added, grew it per request.
        if isNotModified(for: request) {
            return ResponsePlan(status: 304, headers: HeaderFields(fields: [
                (name: "ETag", value: etag), (name: "Last-Modified", value: lastModifiedText), (name: "Cache-Control", value: cacheControl),
            ]))
        }
        let type = contentType ?? self.contentType
        let headers = okHeaders.withLock { kept -> HeaderFields in
            if let kept, kept.cacheControl.utf8Equals(cacheControl), kept.contentType.utf8Equals(type) { return kept.headers }
            let headers = HeaderFields(fields: [
                (name: "ETag", value: etag), (name: "Last-Modified", value: lastModifiedText), (name: "Cache-Control", value: cacheControl),
                (name: "Content-Type", value: type),
            ])
            kept = (cacheControl, type, headers)
            return headers
        }
        return ResponsePlan(status: 200, headers: headers, body: data)
    }

    /// The 200's header list, made once for the cache control and content type it was last
    /// asked with (one per engine): every answer shares it, so the transport writes the
    /// lines it encoded before (`HeaderFields.sharesStorage`).
    private let okHeaders = Locked<(cacheControl: String, contentType: String, headers: HeaderFields)?>(nil)

    func isNotModified(for request: MockRequest) -> Bool {
        ConditionalRequest.isNotModified(request, etag: etag, lastModified: lastModified)
    }

    static func weakCompare(_ a: String, _ b: String) -> Bool {
        func opaque(_ tag: String) -> Substring { tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag) }
        return opaque(a) == opaque(b)
    }
}

/// Conditional GET (RFC 9110 §13.2.2): whether a request's validators match a
/// representation's. If-None-Match wins; If-Modified-Since counts only without it.
package enum ConditionalRequest {
    /// Whether `request` may be answered `304 Not Modified` for a representation with `etag`
    /// and `lastModified` (nil: the representation has none).
    public static func isNotModified(_ request: MockRequest, etag: String?, lastModified: Date?) -> Bool {
        if let ifNoneMatch = request.headers["If-None-Match"] {
            guard let etag else { return false }
            let tags = ifNoneMatch.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return tags.contains { $0 == "*" || StaticAsset.weakCompare($0, etag) }
        }
        if let lastModified, let since = request.headers["If-Modified-Since"].flatMap(HTTPDate.parse) {
            return lastModified <= since
        }
        return false
    }
}

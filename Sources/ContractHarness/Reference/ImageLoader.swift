import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An image loader as iOS apps write one: a memory cache of downloaded bytes in front of
/// URLSession, plus what the contract's recommended checks ask for — concurrent loads of
/// one URL share a request, entries that must be revalidated are asked for with
/// `If-None-Match`/`If-Modified-Since` and a 304 reuses them, failures are never cached.
///
/// The cache is a least-recently-used list with a count limit rather than `NSCache`:
/// `NSCache` evicts whenever it likes on Apple platforms and does not enforce
/// `countLimit` on Linux, so a loader built on it is not reliably bounded (the
/// `image-cache.bounded` check shows it).
public actor ImageLoader {
    struct Entry {
        let data: Data
        let etag: String?
        let lastModified: String?
        /// nil: fresh until evicted; otherwise the moment it must be revalidated.
        let freshUntil: Date?
    }

    /// The most images the cache keeps; the least recently used goes first past it.
    public nonisolated let countLimit: Int
    private let session: URLSession
    private let timeout: TimeInterval
    private var cache: LRUCache<URL, Entry>
    private var inFlight: [URL: Task<Data, any Error>] = [:]

    /// Makes a loader over `session` whose requests time out after `timeout` seconds, caching at most `countLimit` images.
    public init(session: URLSession, timeout: TimeInterval, countLimit: Int = 50) {
        self.session = session
        self.timeout = timeout
        self.countLimit = countLimit
        cache = LRUCache(countLimit: countLimit)
    }

    /// The bytes at `url`: from the cache while fresh, else fetched (revalidated when the
    /// cache holds a stale copy) and cached; concurrent loads of one URL share a request.
    /// Throws the session's error, or `URLError(.badServerResponse)` for an empty body or a status other than 200 (or 304 with a cached copy).
    public func data(from url: URL) async throws -> Data {
        let cached = cache[url]
        if let cached, cached.freshUntil.map({ $0 > Date() }) ?? true { return cached.data }
        if let running = inFlight[url] { return try await running.value }
        let task = Task { try await self.fetch(url, revalidating: cached) }
        inFlight[url] = task
        defer { inFlight[url] = nil }
        return try await task.value
    }

    private func fetch(_ url: URL, revalidating cached: Entry?) async throws -> Data {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        if let etag = cached?.etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let modified = cached?.lastModified { request.setValue(modified, forHTTPHeaderField: "If-Modified-Since") }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        if http.statusCode == 304, let cached {
            store(cached.data, for: url, response: http)
            return cached.data
        }
        guard http.statusCode == 200, !data.isEmpty else { throw URLError(.badServerResponse) }
        store(data, for: url, response: http)
        return data
    }

    private func store(_ data: Data, for url: URL, response: HTTPURLResponse) {
        let control = (response.value(forHTTPHeaderField: "Cache-Control") ?? "").lowercased()
        guard !control.contains("no-store") else { return }
        var freshUntil: Date?
        if control.contains("no-cache") {
            freshUntil = Date()
        } else if let range = control.range(of: "max-age=") {
            let seconds = Double(control[range.upperBound...].prefix { $0.isNumber }) ?? 0
            freshUntil = Date().addingTimeInterval(seconds)
        }
        cache[url] = Entry(data: data, etag: response.value(forHTTPHeaderField: "ETag"),
                           lastModified: response.value(forHTTPHeaderField: "Last-Modified"), freshUntil: freshUntil)
    }
}

/// A dictionary that keeps at most `countLimit` entries, dropping the least recently used.
package struct LRUCache<Key: Hashable, Value> {
    /// The most entries kept, at least 1.
    public let countLimit: Int
    private var values: [Key: Value] = [:]
    private var order: [Key] = []   // least recently used first

    /// Makes an empty cache of at most `countLimit` entries (at least 1).
    public init(countLimit: Int) { self.countLimit = max(1, countLimit) }

    /// How many entries it holds.
    public var count: Int { values.count }

    /// The value for `key`, which becomes the most recently used; setting nil removes it, and
    /// setting past the limit drops the least recently used.
    public subscript(key: Key) -> Value? {
        mutating get {
            guard let value = values[key] else { return nil }
            touch(key)
            return value
        }
        set {
            guard let newValue else {
                values[key] = nil
                order.removeAll { $0 == key }
                return
            }
            values[key] = newValue
            touch(key)
            while order.count > countLimit { values[order.removeFirst()] = nil }
        }
    }

    private mutating func touch(_ key: Key) {
        order.removeAll { $0 == key }
        order.append(key)
    }
}

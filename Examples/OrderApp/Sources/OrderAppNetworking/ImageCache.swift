import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A memory cache of downloaded image bytes in front of a `URLSession`, shared by both
/// clients. It keys entries by the full URL, keeps at most `countLimit` of them (least
/// recently used out first), lets concurrent loads of one URL share a request, honours
/// `Cache-Control` (`no-store`, `no-cache`, `max-age`) by revalidating with
/// `If-None-Match`/`If-Modified-Since`, and never keeps a failure.
///
/// (`NSCache` would be shorter, but it evicts whenever it likes on Apple platforms and does
/// not enforce `countLimit` on Linux.)
public actor ImageCache {
    /// Thrown when the server answers with a status other than 200 (304 to a revalidation
    /// aside) or with no bytes.
    public struct LoadError: Error, Equatable, Sendable {
        /// The HTTP status of the answer.
        public let status: Int
    }

    private struct Entry {
        let data: Data
        let etag: String?
        let lastModified: String?
        /// When the entry must be revalidated; nil: fresh until evicted.
        let revalidateAfter: Date?
    }

    /// How many images are kept at most.
    public nonisolated let countLimit: Int
    private let session: URLSession
    private var entries: [URL: Entry] = [:]
    private var recency: [URL] = []   // least recently used first
    private var inFlight: [URL: Task<Data, any Error>] = [:]

    public init(session: URLSession, countLimit: Int = 100) {
        self.session = session
        self.countLimit = max(1, countLimit)
    }

    /// The image's bytes, from memory while they are fresh, else from the server.
    public func data(from url: URL) async throws -> Data {
        let cached = entries[url]
        if let cached, cached.revalidateAfter.map({ $0 > Date() }) ?? true {
            touch(url)
            return cached.data
        }
        if let running = inFlight[url] { return try await running.value }
        let task = Task { try await self.download(url, revalidating: cached) }
        inFlight[url] = task
        defer { inFlight[url] = nil }
        return try await task.value
    }

    private func download(_ url: URL, revalidating cached: Entry?) async throws -> Data {
        // The cache is ours: keep URLSession's own URLCache out of the way, so a 304 reaches us.
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        if let etag = cached?.etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let modified = cached?.lastModified { request.setValue(modified, forHTTPHeaderField: "If-Modified-Since") }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        if http.statusCode == 304, let cached {
            store(cached.data, for: url, response: http)
            return cached.data
        }
        guard http.statusCode == 200, !data.isEmpty else { throw LoadError(status: http.statusCode) }
        store(data, for: url, response: http)
        return data
    }

    private func store(_ data: Data, for url: URL, response: HTTPURLResponse) {
        let control = (response.value(forHTTPHeaderField: "Cache-Control") ?? "").lowercased()
        guard !control.contains("no-store") else { return }
        var revalidateAfter: Date?
        if control.contains("no-cache") {
            revalidateAfter = Date()
        } else if let range = control.range(of: "max-age=") {
            revalidateAfter = Date().addingTimeInterval(Double(control[range.upperBound...].prefix(while: \.isNumber)) ?? 0)
        }
        entries[url] = Entry(data: data, etag: response.value(forHTTPHeaderField: "ETag"),
                             lastModified: response.value(forHTTPHeaderField: "Last-Modified"), revalidateAfter: revalidateAfter)
        touch(url)
        while recency.count > countLimit { entries[recency.removeFirst()] = nil }
    }

    private func touch(_ url: URL) {
        recency.removeAll { $0 == url }
        recency.append(url)
    }
}

import ContractTests
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A test-only image loader whose good habits can be switched off one at a time, to
/// prove each image-cache check fails on the defect it names.
actor FaultyImageLoader {
    struct Habits {
        var caches = true
        var coalesces = true
        var cachesFailures = false
        var honoursNoCache = true
        var uses304 = true
        var acceptsAnyStatus = false
        var singleSlot = false
        var limit = 4
        /// Entries keyed by the URL's last path component, as `url.lastPathComponent` keys do.
        var keysByFileName = false
        /// Its own `URLSession(configuration: .default)` and 60 s requests, ignoring the
        /// timeout it was given (as `URLSession.shared` loaders do).
        var ownSessionWithoutTimeout = false
        /// Returns early on cancellation, skipping the in-flight bookkeeping.
        var leavesCancelledInFlight = false
    }

    struct Entry { let data: Data; let etag: String?; let mustRevalidate: Bool }

    /// The habits a defect (by its name, shared by both APIs' defect lists) switches off.
    static func habits(for defect: String) -> Habits {
        var habits = Habits()
        switch defect {
        case "noImageCache": habits.caches = false
        case "singleSlotImageCache": habits.singleSlot = true
        case "cachesFailures": habits.cachesFailures = true
        case "noCoalescing": habits.coalesces = false
        case "ignores304": habits.uses304 = false
        case "acceptsAnyImageStatus": habits.acceptsAnyStatus = true
        case "imageCacheKeyedByFileName": habits.keysByFileName = true
        case "imageLoadsWithoutTimeout": habits.ownSessionWithoutTimeout = true
        case "cancelLeavesInFlightTask": habits.leavesCancelledInFlight = true
        default: break
        }
        return habits
    }

    /// The image-cache checks an image-cache defect fails, and a phrase of the failure.
    static func expectation(for defect: String, prefix: String) -> (failing: Set<String>, phrase: String)? {
        switch defect {
        // Every check that presumes a cache fails; concurrent loads are still shared in flight.
        case "noImageCache": return (Set(["same-url-once", "different-urls", "revalidates"].map { prefix + $0 }), "the second load must come from the cache")
        case "singleSlotImageCache": return ([prefix + "different-urls"], "kept while another URL is loaded")
        case "cachesFailures": return ([prefix + "failure-not-cached"], "not a cached failure")
        case "noCoalescing": return ([prefix + "coalesces"], "should share one request")
        case "ignores304": return ([prefix + "revalidates"], "the revalidating load to succeed")
        case "unboundedImageCache": return ([prefix + "bounded"], "declares none")
        // Different URLs with one file name share an entry; the bounded check sees it too and says so.
        case "imageCacheKeyedByFileName": return ([prefix + "full-url-key", prefix + "bounded"], "keys entries by file name or path, not by the full URL")
        case "imageLoadsWithoutTimeout":
            return ([prefix.replacingOccurrences(of: "image-cache.", with: "image.") + "timeout"], "no timeout?")
        case "cancelLeavesInFlightTask": return ([prefix + "cancellation"], "the cancelled load left something behind")
        default: return nil
        }
    }

    let habits: Habits
    let session: URLSession
    let timeout: TimeInterval
    private var entries: [URL: Entry] = [:]
    private var order: [URL] = []
    private var failures: [URL: any Error] = [:]
    private var inFlight: [URL: Task<Data, any Error>] = [:]

    init(habits: Habits, session: URLSession, timeout: TimeInterval) {
        self.habits = habits
        self.session = habits.ownSessionWithoutTimeout ? URLSession(configuration: .default) : session
        self.timeout = habits.ownSessionWithoutTimeout ? 60 : timeout
    }

    func data(from url: URL) async throws -> Data {
        let key = habits.keysByFileName ? URL(string: url.lastPathComponent)! : url
        if habits.cachesFailures, let failure = failures[key] { throw failure }
        let cached = entries[key]
        if let cached, !(cached.mustRevalidate && habits.honoursNoCache) { return cached.data }
        if habits.coalesces, let running = inFlight[key] { return try await running.value }
        let task = Task { try await self.fetch(url, key: key, cached: cached) }
        if habits.coalesces { inFlight[key] = task }
        if habits.leavesCancelledInFlight {
            let value: Data
            do {
                value = try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
            } catch {
                if Task.isCancelled { throw error }   // the early return for a cancel skips the clean-up
                inFlight[key] = nil
                throw error
            }
            inFlight[key] = nil
            return value
        }
        defer { inFlight[key] = nil }
        do {
            return try await task.value
        } catch {
            if habits.cachesFailures { failures[key] = error }
            throw error
        }
    }

    private func fetch(_ url: URL, key: URL, cached: Entry?) async throws -> Data {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        if let etag = cached?.etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        if http.statusCode == 304 {
            guard habits.uses304, let cached else { throw URLError(.badServerResponse) }
            return cached.data
        }
        if habits.acceptsAnyStatus && http.statusCode != 200 { return data }
        guard http.statusCode == 200, !data.isEmpty else { throw URLError(.badServerResponse) }
        if habits.caches {
            let mustRevalidate = (http.value(forHTTPHeaderField: "Cache-Control") ?? "").contains("no-cache")
            if habits.singleSlot { entries.removeAll(); order.removeAll() }
            entries[key] = Entry(data: data, etag: http.value(forHTTPHeaderField: "ETag"), mustRevalidate: mustRevalidate)
            order.removeAll { $0 == key }
            order.append(key)
            while order.count > habits.limit { entries[order.removeFirst()] = nil }
        }
        return data
    }
}

/// Plain requests for defects the reference providers would never make.
struct RawClient {
    let context: ProviderContext
    let session: URLSession

    init(_ context: ProviderContext, timeout: TimeInterval? = nil) {
        self.context = context
        let configuration = context.sessionConfiguration
        if let timeout { configuration.timeoutIntervalForRequest = timeout }
        session = URLSession(configuration: configuration, delegate: context.sessionDelegate, delegateQueue: nil)
    }

    func send(_ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil,
              timeout: TimeInterval? = nil) async throws -> (Data, Int) {
        var request = URLRequest(url: URL(string: context.baseURL.absoluteString + path)!, cachePolicy: .reloadIgnoringLocalCacheData,
                                 timeoutInterval: timeout ?? context.timeout)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        return (data, (response as! HTTPURLResponse).statusCode)
    }

    /// The same context with another request timeout.
    static func context(_ context: ProviderContext, timeout: TimeInterval) -> ProviderContext {
        ProviderContext(baseURL: context.baseURL, timeout: timeout, vendor: context.vendor, sessionDelegate: context.sessionDelegate, sessionConfiguration: {
            let configuration = context.sessionConfiguration
            configuration.timeoutIntervalForRequest = timeout
            return configuration
        })
    }
}

import ContractHarness
import Foundation
import MockCore

/// The image-cache checks: one request per URL, failures not cached, concurrent loads
/// coalesced, revalidation with `If-None-Match`/304, bounded size.
public enum ImageCacheChecks {
    /// `paths` are five image paths on the server; `sameName` two URLs (paths, queries)
    /// that a cache keyed by less than the full URL takes for one; `load` calls the
    /// provider's image method.
    public static func checks<P: Sendable>(
        prefix: String, paths: [String], sameName: (String, String),
        limit: @escaping @Sendable (P) -> Int?,
        load: @escaping @Sendable (CheckRun<P>, URL) async throws -> Data
    ) -> [ContractCheck<P>] {
        precondition(paths.count >= 5)
        let get = Self.pattern
        return [
            ContractCheck("\(prefix).same-url-once", .required, "loading the same image URL twice makes one request") { run in
                let first = try await run.call("the first image load") { try await load(run, run.url(paths[0])) }
                let second = try await run.call("the second image load") { try await load(run, run.url(paths[0])) }
                try run.require(!first.isEmpty && first == second, "both loads to return the same bytes",
                                actual: "returned \(first.count) and \(second.count) different bytes")
                try await run.expectations.expect(get(paths[0]), .exactly(1), "the second load must come from the cache")
            },
            ContractCheck("\(prefix).different-urls", .required, "different image URLs make one request each, and each keeps its own entry") { run in
                var results: [Data] = []
                for path in [paths[0], paths[1], paths[0], paths[1]] {
                    results.append(try await run.call("loading \(path)") { try await load(run, run.url(path)) })
                }
                try run.require(results[0] != results[1] && results[0] == results[2] && results[1] == results[3],
                                "\(paths[0]) and \(paths[1]) to give their own bytes each time",
                                actual: "returned \(results.map { "\($0.count) bytes" }.joined(separator: ", ")) — one URL answered from another's entry?")
                try await run.expectations.expect(get(paths[0]), .exactly(1), "each URL loaded once, then kept while another URL is loaded")
                try await run.expectations.expect(get(paths[1]), .exactly(1), "each URL loaded once, then kept while another URL is loaded")
            },
            ContractCheck("\(prefix).full-url-key", .required,
                          "\(sameName.0) and \(sameName.1) are two entries: the cache is keyed by the full URL, not the file name") { run in
                let (a, b) = sameName
                let first = try await run.call("loading \(a)") { try await load(run, run.url(a)) }
                let second = try await run.call("loading \(b)") { try await load(run, run.url(b)) }
                let (truthA, truthB) = (run.truth("GET", a).body, run.truth("GET", b).body)
                let sentB = run.expectations.requests(matching: get(b)).count
                var problems: [String] = []
                if first != truthA { problems.append("\(a) returned \(first.count) bytes, not its \(truthA.count)") }
                if second != truthB {
                    problems.append("\(b) returned \(second.count) bytes\(second == truthA && truthA != truthB ? ", the bytes of \(a)" : ""), not its \(truthB.count)")
                }
                if sentB != 1 { problems.append("the server saw \(b) \(sentB) time\(sentB == 1 ? "" : "s"), expected once") }
                try run.require(problems.isEmpty, "each URL its own entry and its own bytes",
                                actual: "\(b) was answered from \(a)'s entry — the cache keys entries by file name or path, not by the full URL",
                                differences: problems)
            },
            ContractCheck("\(prefix).failure-not-cached", .required, "a failed image load is not cached: the retry reaches the server",
                          scenarios: [Scenario(name: "fails-once", rules: [Rule("fail-once", get(paths[2]), .sequence([.status(500), .simulator], afterLast: .repeatLast))])]) { run in
                try run.use("fails-once")
                // Whether the failed load throws is the errors check's business; here only the retry matters.
                _ = await run.outcome(within: run.timeout + 5) { try await load(run, run.url(paths[2])) }
                let retry = await run.outcome(within: run.timeout + 5) { try await load(run, run.url(paths[2])) }
                try await run.expectations.expect(get(paths[2]), .exactly(2), "the retry after a 500 must reach the server, not a cached failure")
                guard case .returned(let data, _) = retry, !data.isEmpty else {
                    // The retry reached the server: a late timeout is the machine's, not a cached failure.
                    let late = retry.isLateTimeout(run.timeout)
                    var violation = run.expectations.violation("the retry to return the image",
                                                               actual: retry.summary + (late ? "" : " — was the failure cached?"))
                    violation.isTimingOnly = late
                    throw violation
                }
            },
            ContractCheck("\(prefix).cancellation", .required,
                          "a cancelled image load leaves nothing behind: the next load of the URL gets the image, and nothing more is sent",
                          scenarios: [Scenario(name: "slow-cancel", rules: [Rule("slow", get(paths[1]), always: Outcome.simulator.delayed(.fixed(0.5)))])]) { run in
                try run.use("slow-cancel")
                let url = run.url(paths[1])
                let image = run.truth("GET", paths[1]).body
                let cancelled = await run.cancelling({ try await load(run, url) }, once: {
                    try await run.expectations.expect(get(paths[1]), .atLeast(1), timeout: run.timeout)
                }, within: 1.5)
                var problems: [String] = []
                if case .returned(let data, _) = cancelled, data != image {
                    problems.append("the cancelled load returned \(data.count) bytes that are not the image")
                }
                let next = await run.outcome(within: run.timeout + 5) { try await load(run, url) }
                if case .returned(let data, _) = next, data == image {} else {
                    problems.append("the next load \(next.summary) — the cancelled load left something behind (an in-flight task, an empty entry) that answers in the image's place")
                }
                try? await Task.sleep(nanoseconds: 600_000_000)
                let sent = run.expectations.requests(matching: get(paths[1])).count
                if sent > 2 { problems.append("the server saw \(paths[1]) \(sent) times for one cancelled and one later load") }
                guard problems.isEmpty else {
                    var violation = run.expectations.violation("after a cancelled load, the next load of \(paths[1]) to return the image",
                                                               actual: "the cancelled load was \(cancelled.summary)", differences: problems)
                    // When the only problem is a next load that timed out late (a 0.5 s
                    // answer held past a busy machine's timeout), it is the clock's.
                    violation.isTimingOnly = problems.count == 1 && next.isLateTimeout(run.timeout)
                    throw violation
                }
            },
            ContractCheck("\(prefix).coalesces", .recommended, "concurrent loads of one URL make one request",
                          scenarios: [Scenario(name: "slow-image", rules: [Rule("slow", get(paths[3]), always: Outcome.simulator.delayed(.fixed(0.3)))])]) { run in
                try run.use("slow-image")
                let outcomes = await withTaskGroup(of: CallOutcome<Data>.self) { group in
                    for _ in 0..<5 { group.addTask { await run.outcome(within: run.timeout + 5) { try await load(run, run.url(paths[3])) } } }
                    var all: [CallOutcome<Data>] = []
                    for await outcome in group { all.append(outcome) }
                    return all
                }
                let sent = run.expectations.requests(matching: get(paths[3])).count
                let results = outcomes.compactMap { outcome -> Data? in
                    if case .returned(let data, _) = outcome { return data }
                    return nil
                }
                guard results.count == 5 else {
                    if sent > 1 {
                        try await run.expectations.expect(get(paths[3]), .exactly(1), "five concurrent loads of one URL should share one request")
                    }
                    let failed = outcomes.filter { if case .returned = $0 { return false }; return true }
                    var violation = run.expectations.violation("all five concurrent loads to return the image",
                                                               actual: "\(failed.count) did not: " + failed.map(\.summary).joined(separator: "; "))
                    // All five sharing one request and giving up late together (a 0.3 s answer
                    // held past a busy machine's timeout) failed on the clock, not by the cache;
                    // some returning while others did not is the cache's (waiters it failed).
                    violation.isTimingOnly = sent <= 1 && results.isEmpty && failed.allSatisfy { $0.isLateTimeout(run.timeout) }
                    throw violation
                }
                try run.require(Set(results).count == 1, "five identical results", actual: "\(Set(results).count) different results")
                try await run.expectations.expect(get(paths[3]), .exactly(1), "five concurrent loads of one URL should share one request")
            },
            ContractCheck("\(prefix).revalidates", .recommended,
                          "a cached image that must be revalidated is asked for with If-None-Match, and the 304 is used",
                          imageCacheControl: "no-cache") { run in
                let first = try await run.call("the first load") { try await load(run, run.url(paths[0])) }
                let second = try await run.call("the revalidating load") { try await load(run, run.url(paths[0])) }
                let seen = try await run.expectations.expect(get(paths[0]), .exactly(2), "Cache-Control: no-cache asks for revalidation on each use")
                let etag = run.truth("GET", paths[0]).headers["ETag"] ?? ""
                try run.require(seen[1].request.headers["If-None-Match"] == etag, "the second request to carry If-None-Match: \(etag)",
                                actual: "it carried If-None-Match: \(seen[1].request.headers["If-None-Match"] ?? "nothing")")
                try run.require(seen[1].status == 304, "the server to answer 304", actual: "it answered \(seen[1].status)")
                try run.require(second == first && !second.isEmpty, "the 304 to give back the cached \(first.count) bytes",
                                actual: "returned \(second.count) bytes — is the 304 treated as an empty or failed answer?")
            },
            ContractCheck("\(prefix).bounded", .recommended, "the image cache is bounded and evicts") { run in
                guard let limit = limit(run.provider), limit > 0 else {
                    throw run.expectations.violation("the provider to declare its image cache's count limit (imageCacheLimit)",
                                                     actual: "declares none — an unbounded cache grows with every image scrolled past")
                }
                let total = limit + 3
                for index in 0..<total {
                    _ = try await run.call("loading image \(index + 1) of \(total)") { try await load(run, run.url("\(paths[4])?n=\(index)")) }
                }
                _ = try await run.call("loading the first image again") { try await load(run, run.url("\(paths[4])?n=0")) }
                // Eviction is only in question when every different URL reached the server.
                let reached = Set(run.expectations.requests(matching: get(paths[4])).map(\.request.asRequest.uri)).count
                try run.require(reached == total, "\(total) different URLs (\(paths[4])?n=0…\(total - 1)) to reach the server once each",
                                actual: "only \(reached) of them did — the cache keys entries by less than the full URL (path or file name), so different URLs share one")
                try await run.expectations.expect(get("\(paths[4])?n=0"), .exactly(2),
                                                  "after \(total) different images the first must have been evicted (limit \(limit))")
            },
        ]
    }

    /// `GET path` with the query items of `path` required.
    @Sendable static func pattern(_ path: String) -> RequestPattern {
        let parts = path.split(separator: "?", maxSplits: 1)
        var pattern = RequestPattern.get(String(parts[0]))
        if parts.count == 2 {
            for item in parts[1].split(separator: "&") {
                let pair = item.split(separator: "=", maxSplits: 1).map(String.init)
                pattern.query[pair[0]] = .equalTo(pair.count > 1 ? pair[1] : "")
            }
        }
        return pattern
    }
}

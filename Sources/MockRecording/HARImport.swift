import Foundation
import MockCore

/// Turns an HTTP Archive (HAR 1.2, as Proxyman, Charles, Safari, Chrome and mitmproxy's
/// `hardump` export it) into the exchanges `record` would have made of the same traffic,
/// for a `RecordingBook` to write as a replay scenario. Pure logic: `write(_:to:name:source:)`
/// puts the result on disk.
///
/// - Bodies: `content.text`, base64-decoded when `encoding` says so; text as UTF-8 (HAR
///   holds decoded text, so `Content-Encoding` is dropped as the recorder drops it). No
///   text, no body. `Content-Type` from the headers, else `content.mimeType`.
/// - The capture's own origin in text bodies and `Location` becomes `{{baseURL}}`, as the
///   recorder does with its upstream, so absolute image URLs lead to the replay server.
/// - Secrets are redacted unless `keepSecrets` (see `Redaction`); the rules built from
///   redacted requests accept any value where the secret was.
/// - Entries that are no exchange to replay (status 0, 1xx, other schemes, the browser's
///   cache) are left out and listed in `Capture.notes`.
public enum HARImport {
    /// What to keep of a capture.
    public struct Options: Sendable {
        /// Keep only the entries for this `host[:port]`; nil keeps all, if they share one host.
        public var host: String?
        /// Keep credentials as captured instead of replacing them with `REDACTED` (see `Redaction`).
        public var keepSecrets: Bool
        /// Each response's HAR timing becomes its fixed latency.
        public var keepTiming: Bool

        /// Makes options; by default all entries of the capture's one host, secrets redacted, no latency.
        public init(host: String? = nil, keepSecrets: Bool = false, keepTiming: Bool = false) {
            self.host = host
            self.keepSecrets = keepSecrets
            self.keepTiming = keepTiming
        }
    }

    /// What an import made of a capture.
    public struct Capture: Sendable {
        /// The kept exchanges, in capture order.
        public var exchanges: [RecordedExchange]
        /// The `host[:port]` whose entries were kept.
        public var host: String
        /// `scheme://host[:port]` of the kept entries, as written in the capture.
        public var origins: [String]
        /// Entries left out and bodies the capture lacks, one line each (`$.log.entries[2]: …`).
        public var notes: [String]
        /// What was redacted and how often: `"Authorization header": 3`, `"secret": 1`.
        public var redactions: [String: Int]
        /// The first kept entry's `startedDateTime`.
        public var capturedAt: Date?
    }

    /// Reads `data` (the HAR file `file`) into exchanges; every problem, with its JSON path,
    /// is thrown at once.
    public static func read(_ data: Data, file: String, options: Options = Options()) throws(FixtureError) -> Capture {
        let (text, repaired) = HARText.repairingLoneSurrogates(data)
        let json: JSONValue
        do {
            json = try JSONValue.parse(text)
        } catch {
            throw FixtureError(file: file, reason: "not valid JSON: \(error)")
        }
        let reader = JSONReader(file: file)
        let root = reader.openObject(json, "$")
        let log = reader.openObject(root?["log"], "$.log", required: root != nil)
        let elements = reader.array(log?["entries"], "$.log.entries", required: log != nil) ?? []
        var entries: [HAREntry] = []
        var skipped: [(index: Int, reason: String)] = []
        for (index, element) in elements.enumerated() {
            switch HAREntry.read(element, index: index, keepTiming: options.keepTiming, reader: reader) {
            case .entry(let entry): entries.append(entry)
            case .skipped(let reason): skipped.append((index, reason))
            case .invalid: break
            }
        }
        var notes = skipped.map { "$.log.entries[\($0.index)]: left out: \($0.reason)" }
        guard reader.problems.isEmpty else { throw FixtureError(reader.problems) }
        if repaired > 0 {
            notes.append("$: \(repaired) lone UTF-16 surrogate escape\(repaired == 1 ? "" : "s") (bytes that were not text, as mitmproxy writes them) read as U+FFFD")
        }
        let (kept, host) = try select(entries, host: options.host, file: file, skipped: skipped)
        var capture = build(kept, host: host, options: options)
        capture.notes = notes + capture.notes
        return capture
    }

    /// The default scenario name for a capture file: `Captures/Menu App.har` → `menu-app`.
    public static func defaultName(for file: URL) -> String {
        RecordingBook.slug(file.deletingPathExtension().lastPathComponent)
    }

    /// The entries of one host: the one `--host` names, or the only one there is.
    static func select(_ entries: [HAREntry], host: String?, file: String, skipped: [(index: Int, reason: String)]) throws(FixtureError) -> ([HAREntry], String) {
        guard !entries.isEmpty else {
            let listing = skipped.prefix(5).map { "[\($0.index)]: \($0.reason)" }.joined(separator: "; ") + (skipped.count > 5 ? "; …" : "")
            let reason = skipped.isEmpty ? "the capture has no entries" : "no entry is an HTTP exchange to replay (\(listing))"
            throw FixtureError(file: file, jsonPath: "$.log.entries", reason: reason)
        }
        var counts: [String: Int] = [:]
        var order: [String] = []
        for entry in entries {
            if counts[entry.url.hostKey] == nil { order.append(entry.url.hostKey) }
            counts[entry.url.hostKey, default: 0] += 1
        }
        // Most requests first; among equals, the first seen first.
        let ranked = order.enumerated().sorted { a, b in
            let (countA, countB) = (counts[a.element] ?? 0, counts[b.element] ?? 0)
            return countA != countB ? countA > countB : a.offset < b.offset
        }
        let listing = ranked.map { "\($0.element) (\(counts[$0.element] ?? 0))" }.joined(separator: ", ")
        if let host {
            let kept = entries.filter { $0.url.isNamed(by: host) }
            guard let first = kept.first else {
                throw FixtureError(file: file, jsonPath: "$.log.entries", reason: "no request to \(host); the capture's hosts (requests): \(listing)")
            }
            return (kept, first.url.hostKey)
        }
        guard order.count == 1 else {
            throw FixtureError(file: file, jsonPath: "$.log.entries",
                               reason: "requests to \(order.count) hosts: \(listing); choose one with --host")
        }
        return (entries, order[0])
    }

    static func build(_ entries: [HAREntry], host: String, options: Options) -> Capture {
        var origins: [String] = [], needles: Set<String> = []
        for entry in entries {
            if let written = entry.url.origins.first, !origins.contains(written) { origins.append(written) }
            needles.formUnion(entry.url.origins)
        }
        var capture = Capture(exchanges: [], host: host, origins: origins, notes: [], redactions: [:],
                              capturedAt: entries.first?.startedDateTime.flatMap(date))
        let forms = needles.sorted()
        for entry in entries {
            let made = exchange(entry, origins: forms, options: options, into: &capture)
            capture.exchanges.append(made)
        }
        return capture
    }
    static func exchange(_ entry: HAREntry, origins: [String], options: Options, into capture: inout Capture) -> RecordedExchange {
        let target = MockRequest(method: entry.method, uri: entry.url.target)
        var query = target.query
        var requestHeaders = entry.requestHeaders
        var requestBody = entry.requestBody
        var headers = entry.responseHeaders
        var body = entry.body
        if headers["Content-Type"] == nil, let type = entry.mimeType, type != "x-unknown" { headers.add("Content-Type", type) }
        if (300..<400).contains(entry.status), headers["Location"] == nil, let location = entry.redirectURL { headers.add("Location", location) }
        if entry.bodyLeftOut {
            capture.notes.append("$.log.entries[\(entry.index)].response.content: no text in the capture; replayed with an empty body")
        }

        var templated = false
        if RecordedExchange.isText(contentType: headers["Content-Type"]), let text = String(data: body, encoding: .utf8),
           let rebased = HARText.templating(text, origins: origins) {
            body = Data(rebased.utf8)
            templated = true
        }
        if let location = headers["Location"], let rebased = HARText.templating(location, origins: origins) {
            headers.set("Location", rebased)
            templated = true
        }

        var redactedQuery: Set<String> = [], redactedKeys: Set<String> = []
        if !options.keepSecrets {
            func count(_ names: some Sequence<String>, _ suffix: String = "") {
                for name in names { capture.redactions[name + suffix, default: 0] += 1 }
            }
            var names: [String]
            (requestHeaders, names) = Redaction.headers(requestHeaders)
            count(names, " header")
            (headers, names) = Redaction.headers(headers)
            count(names, " header")
            (query, redactedQuery) = Redaction.query(query)
            count(redactedQuery, " in the query")
            let requestType = entry.requestContentType ?? requestHeaders["Content-Type"]
            if case (let redacted, let found)? = Redaction.body(requestBody, contentType: requestType) {
                requestBody = redacted
                redactedKeys = found
                count(found)
            } else {
                requestBody = Data()
                capture.notes.append("$.log.entries[\(entry.index)].request.postData.text: multipart that does not parse, left out (its secrets cannot be found; replay does not match on it)")
            }
            if case (let redacted, let found)? = Redaction.body(body, contentType: headers["Content-Type"]) {
                body = redacted
                count(found)
            }
        }
        return RecordedExchange(method: entry.method, path: target.path, query: query, requestHeaders: requestHeaders,
                                requestBody: requestBody, status: entry.status, headers: headers, body: body, templated: templated,
                                latencyMilliseconds: entry.latency, redactedQueryNames: redactedQuery, redactedBodyKeys: redactedKeys)
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        // Python's isoformat writes microseconds, which not every formatter reads: drop them.
        guard let dot = text.firstIndex(of: ".") else { return nil }
        let digitsEnd = text[text.index(after: dot)...].firstIndex { !$0.isNumber } ?? text.endIndex
        return formatter.date(from: String(text[..<dot] + text[digitsEnd...]))
    }
}

import Foundation
import MockCore

extension AdminAPI {
    static func journalRoutes(_ engine: MockEngine) -> [Route] {
        let journal = engine.journal
        return [
            Route("admin.requests", .get("/__admin/requests")) { request, _ in
                var entries = journal.entries()
                if let method = request.queryValue("method") { entries = entries.filter { $0.request.method == method.uppercased() } }
                if let path = request.queryValue("path") {
                    let pattern = PathPattern(path)
                    entries = entries.filter { pattern.match($0.request.path) != nil }
                }
                if let status = request.queryValue("status") {
                    guard let code = Int(status) else { return .error(400, "\"status\" must be a number, found \"\(status)\"") }
                    entries = entries.filter { $0.status == code }
                }
                if let session = request.queryValue("session") { entries = entries.filter { $0.session == session } }
                if let since = request.queryValue("since") {
                    guard let id = UInt64(since) else { return .error(400, "\"since\" must be a journal id, found \"\(since)\"") }
                    entries = entries.filter { $0.id > id }
                }
                if let after = request.queryValue("after") {
                    guard let date = ISO8601.parse(after) else {
                        return .error(400, "\"after\" must be an ISO 8601 time, found \"\(after)\"")
                    }
                    entries = entries.filter { $0.receivedAt > date }
                }
                if request.queryValue("unmatched") == "true" { entries = entries.filter { !$0.wasMatched } }
                // Requests that break their API's OpenAPI document, each violation with its path.
                if let violations = request.queryValue("violations") {
                    guard violations == "true" || violations == "false" else {
                        return .error(400, "\"violations\" must be true or false, found \"\(violations)\"")
                    }
                    entries = entries.filter { $0.violations.isEmpty == (violations == "false") }
                }
                var limit = 100
                if let text = request.queryValue("limit") {
                    guard let value = Int(text), (1...10_000).contains(value) else { return .error(400, "\"limit\" must be 1…10000") }
                    limit = value
                }
                let shown = entries.suffix(limit)
                return .json(200, ["total": .number(Double(journal.totalCount)), "matching": .number(Double(entries.count)),
                                   "evicted": .bool(journal.hasEvicted), "requests": .array(shown.map(\.json))])
            },
            Route("admin.requests.clear", .delete("/__admin/requests")) { _, _ in
                journal.clear()
                return .json(200, ["cleared": true, "total": .number(Double(journal.totalCount))])
            },
            Route("admin.requests.unmatched", .get("/__admin/requests/unmatched")) { _, _ in
                let router = engine.router
                let unmatched: [JSONValue] = journal.unmatched().filter { $0.answeredBy == nil }.map { entry in
                    guard case .object(var object) = entry.json else { return entry.json }
                    object["nearMisses"] = .array(router.nearest(to: entry.request.asRequest).map {
                        ["route": .string($0.name), "request": .string($0.pattern.description)]
                    })
                    return .object(object)
                }
                return .json(200, ["requests": .array(unmatched)])
            },
            Route("admin.requests.count", .post("/__admin/requests/count")) { request, _ in
                switch pattern(request) {
                case .failure(let rejected): return rejected.plan
                case .success(let pattern):
                    let count = journal.entries(matching: pattern).count
                    return .json(200, ["count": .number(Double(count)), "complete": .bool(!journal.hasEvicted),
                                       "total": .number(Double(journal.totalCount))])
                }
            },
            Route("admin.request", .get("/__admin/requests/{id}")) { _, match in
                guard let id = match["id"].flatMap(UInt64.init) else { return .error(400, "The id must be a number") }
                guard let entry = journal.entries().first(where: { $0.id == id }) else {
                    let reason = id <= journal.totalCount ? "Request \(id) was evicted or cleared from the journal (capacity \(journal.capacity) entries, \(journal.byteBudget) bytes)" : "No request \(id)"
                    return .error(404, reason)
                }
                return .json(200, entry.detailJSON)
            },
            Route("admin.events", .get("/__admin/events")) { _, _ in
                var plan = ResponsePlan(status: 200, headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"])
                plan.stream = engine.events
                return plan
            },
        ]
    }

    /// `{"request": {...pattern...}}` from a request body.
    static func pattern(_ request: MockRequest) -> Result<RequestPattern, Rejected> {
        switch body(request, example: #"{"request": {"method": "GET", "path": "/menu"}}"#) {
        case .failure(let rejected): return .failure(rejected)
        case .success(let members):
            guard let json = members["request"] else {
                return .failure(Rejected(plan: .error(400, "Missing \"request\": a pattern as in scenario files")))
            }
            do {
                return .success(try RequestPattern.parse(json, path: "$.request"))
            } catch {
                return .failure(Rejected(plan: .error(400, "The request pattern is invalid", details: ["problems": .array(error.problems.map(\.json))])))
            }
        }
    }
}

import Foundation
import MockCore

extension AdminAPI {
    static func verifyRoutes(_ engine: MockEngine) -> [Route] {
        let journal = engine.journal
        return [
            Route("admin.verify", .post("/__admin/verify")) { request, _ in
                let pattern: RequestPattern
                switch Self.pattern(request) {
                case .failure(let rejected): return rejected.plan
                case .success(let parsed): pattern = parsed
                }
                let spec = JSONValue(parsing: request.body)?["count"] ?? ["atLeast": 1]
                guard let count = CountSpec(spec) else {
                    return .error(400, "\"count\" must be {\"exactly\": n}, {\"atLeast\": n}, {\"atMost\": n} or \"never\"")
                }
                let seen = journal.entries(matching: pattern).count
                let expected = "\(count.description) request\(count.isOne ? "" : "s") matching \(pattern)"
                if count.accepts(seen) && !(journal.hasEvicted && count.needsEverything) {
                    return .json(200, ["ok": true, "count": .number(Double(seen))])
                }
                if journal.hasEvicted && (count.needsEverything || !count.accepts(seen)) {
                    return .json(409, ["ok": false, "incomplete": true, "count": .number(Double(seen)),
                                       "message": .string("Cannot verify \(expected): the journal kept \(journal.entries().count) of the \(journal.countSinceClear) requests since it was last cleared (capacity \(journal.capacity) entries, \(journal.byteBudget) bytes); raise --journal-capacity or --journal-max-bytes, or clear the journal just before the part under test")])
                }
                let nearMisses = journal.entries()
                    .filter { !pattern.matches($0.request.asRequest) && !$0.request.path.hasPrefix(AdminAPI.prefix) }
                    .map { (entry: $0, distance: pattern.distance(to: $0.request.asRequest)) }
                    .sorted { $0.distance < $1.distance }
                    .prefix(3)
                    .map { JSONValue.string("\($0.entry.request.method) \($0.entry.request.asRequest.uri) → \($0.entry.status)") }
                return .json(409, ["ok": false, "count": .number(Double(seen)),
                                   "message": .string("Expected \(expected), but the server saw \(seen)"),
                                   "nearMisses": .array(nearMisses)])
            },
            Route("admin.verify.sequence", .post("/__admin/verify/sequence")) { request, _ in
                guard let list = JSONValue(parsing: request.body)?["requests"]?.arrayValue, !list.isEmpty else {
                    return .error(400, "Send JSON like {\"requests\": [{\"path\": \"/categories\"}, {\"path\": \"/menu\"}]}")
                }
                var patterns: [RequestPattern] = []
                for (index, element) in list.enumerated() {
                    do { patterns.append(try RequestPattern.parse(element, path: "$.requests[\(index)]")) } catch let error as FixtureError {
                        return .error(400, "The request pattern is invalid", details: ["problems": .array(error.problems.map(\.json))])
                    } catch {
                        return .error(400, "The request pattern is invalid: \(error)")
                    }
                }
                let matched = journal.matchedInOrder(patterns)
                if matched == patterns.count {
                    return .json(200, ["ok": true, "matched": .number(Double(matched))])
                }
                var answer: [String: JSONValue] = [
                    "ok": false, "matched": .number(Double(matched)),
                    "message": .string("Only the first \(matched) of \(patterns.count) arrived in that order; missing \(patterns[matched])"),
                ]
                if journal.hasEvicted { answer["incomplete"] = true }
                return .json(409, .object(answer))
            },
        ]
    }
}

/// How many matching requests a verification expects.
enum CountSpec: CustomStringConvertible {
    case exactly(Int), atLeast(Int), atMost(Int)

    init?(_ json: JSONValue) {
        if json == "never" { self = .exactly(0); return }
        guard case .object(let members) = json, members.count == 1, let (key, value) = members.first, let n = value.intValue, n >= 0 else { return nil }
        switch key {
        case "exactly": self = .exactly(n)
        case "atLeast": self = .atLeast(n)
        case "atMost": self = .atMost(n)
        default: return nil
        }
    }

    func accepts(_ count: Int) -> Bool {
        switch self {
        case .exactly(let n): return count == n
        case .atLeast(let n): return count >= n
        case .atMost(let n): return count <= n
        }
    }

    /// Whether an evicted request could change the answer (only `atLeast` survives eviction).
    var needsEverything: Bool { if case .atLeast = self { return false }; return true }
    var isOne: Bool { switch self { case .exactly(let n), .atLeast(let n), .atMost(let n): return n == 1 } }

    var description: String {
        switch self {
        case .exactly(0): return "no"
        case .exactly(let n): return "exactly \(n)"
        case .atLeast(let n): return "at least \(n)"
        case .atMost(let n): return "at most \(n)"
        }
    }
}

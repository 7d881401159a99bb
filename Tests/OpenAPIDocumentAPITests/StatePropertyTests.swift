import Foundation
@testable import OpenAPIDocumentAPI
import MockCore
import Testing

/// Every stateful answer is valid against its operation's response schema: random valid
/// items are created, read, listed, changed and deleted in each document's collections,
/// and every answer is checked (its status documented, its body valid for that status).
@Suite struct StatePropertyTests {
    @Test(arguments: ["petstore.yaml", "catalog.json", "generated/journal.yaml", "generated/records.json",
                      "generated/swagger.json", "generated/large.json", "generated/split/openapi.yaml"])
    func everyStatefulAnswerIsValidForItsSchema(name: String) throws {
        let document = try Documents.api(name).document()
        #expect(!document.collections.isEmpty, "the document has collections")
        let engine = try Documents.engine(name, seed: 11)
        let base = document.basePaths[0]
        var random = SeededRandom(seed: 43, stream: "state \(name)")
        var made: [String: [String]] = [:]   // collection template → ids made
        var failures: [String] = []
        var stateful = 0
        for step in 0..<240 {
            let collection = document.collections[Int(random.next() % UInt64(document.collections.count))]
            let choices = document.operations.filter { $0.path == collection.path || $0.path == collection.itemPath }
            guard !choices.isEmpty else { continue }
            var operation = choices[Int(random.next() % UInt64(choices.count))]
            if step % 3 == 0, let create = choices.first(where: { $0.method == "POST" && $0.path == collection.path }) { operation = create }
            guard var request = ValidRequests.make(operation, document: document, base: base, using: &random) else { continue }
            // Parent parameters fixed, and a made item's id for the item path most of the time.
            var uri = request.uri
            let known = made[collection.path] ?? []
            if operation.path == collection.itemPath, !known.isEmpty, random.next() % 4 != 0 {
                let id = known[Int(random.next() % UInt64(known.count))]
                uri = base + fill(collection.itemPath, id: id, parameter: collection.parameter) + (uri.firstIndex(of: "?").map { String(uri[$0...]) } ?? "")
            } else {
                uri = base + fill(operation.path, id: nil, parameter: collection.parameter)
                    + (uri.firstIndex(of: "?").map { String(uri[$0...]) } ?? "")
            }
            request = MockRequest(method: request.method, uri: uri, headers: request.headers, body: request.body, baseURL: request.baseURL)
            let plan = engine.respond(to: request)
            if operation.method == "POST", (200...299).contains(plan.status), let id = createdID(plan, collection) {
                made[collection.path, default: []].append(id)
                stateful += 1
            }
            if operation.method == "DELETE", (200...299).contains(plan.status) { made[collection.path]?.removeAll { uri.hasSuffix("/" + $0) } }
            if let problem = check(plan, operation, document) {
                failures.append("\(request.method) \(uri) \(String(decoding: request.body.prefix(160), as: UTF8.self)) → \(plan.status): \(problem)")
            }
        }
        #expect(stateful > 10, "items were made: \(stateful)")
        #expect(failures.isEmpty, "\(failures.count) answers break their schema:\n\(failures.prefix(4).joined(separator: "\n"))")
    }

    /// `template` with the item parameter set to `id` (when given) and any other parameter to `p1`.
    private func fill(_ template: String, id: String?, parameter: String) -> String {
        var path = template
        if let id { path = path.replacingOccurrences(of: "{\(parameter)}", with: id) }
        while let open = path.firstIndex(of: "{"), let close = path[open...].firstIndex(of: "}") {
            path.replaceSubrange(open...close, with: "p1")
        }
        return path
    }

    /// The id of the item a create answered with, from its `Location`.
    private func createdID(_ plan: ResponsePlan, _ collection: ResourceCollection) -> String? {
        if let location = plan.headers["Location"] { return location.split(separator: "/").last.map(String.init) }
        guard let body = JSONValue(parsing: plan.body), let property = collection.idProperty else { return nil }
        let found = body[property] ?? body.objectValue?.values.compactMap { $0[property] }.first ?? body["data"]?["id"]
        return found.map(DocumentAnswers.text)
    }

    /// What is wrong with an answer: an undocumented status, or a body its schema refuses.
    private func check(_ plan: ResponsePlan, _ operation: DocumentOperation, _ document: OpenAPIDocument) -> String? {
        guard let index = operation.response(for: plan.status) else {
            if plan.status == 404, MissingItem.status(for: operation) == nil { return nil }   // named at start
            return "status \(plan.status) is not documented (\(operation.responses.map(\.code)))"
        }
        guard !plan.body.isEmpty, let type = plan.headers["Content-Type"], type.contains("json") else { return nil }
        let response = operation.responses[index]
        guard let content = response.contents.first(where: { type.hasPrefix($0.type) }) ?? response.contents.first(where: \.isJSON),
              let schema = content.schema else { return nil }
        guard let body = JSONValue(parsing: plan.body) else { return "not JSON" }
        let problems = document.validator.problems(body, against: schema)
        return problems.isEmpty ? nil : "\(problems.prefix(3)) in \(String(decoding: plan.body.prefix(300), as: UTF8.self))"
    }
}

import Foundation
@testable import OpenAPIDocumentAPI
import MockCore
import Testing

/// State keeps the document's own shapes: wrapped bodies are unwrapped to store and
/// wrapped again to answer, ids the server assigns read back, lists are of the list's item
/// shape, and a missing item answers what the operation documents.
@Suite struct DocumentShapesTests {
    private let token = ["Authorization": "Token abc"]

    private func problems(_ engine: MockEngine, _ answer: (status: Int, body: JSONValue?, plan: ResponsePlan),
                          _ method: String, _ path: String) throws -> [String] {
        let document = try Documents.api("generated/journal.yaml").document()
        let operation = try #require(document.operations.first { $0.method == method && $0.path == path })
        let index = try #require(operation.response(for: answer.status), "status \(answer.status) is not documented")
        guard let schema = operation.responses[index].contents.first(where: \.isJSON)?.schema, let body = answer.body else { return [] }
        return document.validator.problems(body, against: schema)
    }

    /// A list wrapper's count fields take the list's total; other fields whose names merely
    /// contain the letters keep theirs.
    @Test(arguments: [("total", true), ("count", true), ("articlesCount", true), ("total_items", true), ("totalResults", true),
                      ("item_count", true), ("numberOfItems", true), ("discount", false), ("account", false), ("totalPrice", false),
                      ("total_pages", false), ("counter", false), ("phoneNumber", false)])
    func countFieldsAreWholeWords(name: String, counts: Bool) {
        #expect(DocumentSimulator.isCount(name) == counts)
    }

    @Test func aWrappedResourceReadsBackWhatWasSentIsListedChangedAndDeleted() throws {
        let engine = try Documents.engine("generated/journal.yaml", strict: true)
        let created = engine.send("POST", "/journal/posts", json: #"{"post": {"title": "How to Train Your Dragon", "summary": "Ever wonder how?", "body": "Very carefully.", "labels": ["dragons"]}}"#,
                                  headers: token)
        #expect(created.status == 201, "\(String(describing: created.body))")
        let post = try #require(created.body?["post"], "\(String(describing: created.body))")
        #expect(post["title"] == "How to Train Your Dragon" && post["body"] == "Very carefully." && post["labels"] == ["dragons"], "what was sent: \(post)")
        let slug = try #require(post["slug"]?.stringValue)
        #expect(slug == "how-to-train-your-dragon")
        #expect(created.plan.headers["Location"] == "/journal/posts/\(slug)")
        #expect(try problems(engine, created, "POST", "/posts").isEmpty)

        let read = engine.send("GET", "/journal/posts/\(slug)")
        #expect(read.status == 200)
        #expect(read.body?["post"] == post, "reads back what the create answered")

        let listed = engine.send("GET", "/journal/posts")
        #expect(listed.status == 200)
        let items = try #require(listed.body?["posts"]?.arrayValue, "\(String(describing: listed.body))")
        #expect(items.count == 1 && listed.body?["postsCount"] == 1)
        #expect(items[0]["post"] == nil && items[0]["slug"]?.stringValue == slug && items[0]["title"] == post["title"], "the list's item shape: \(items[0])")
        #expect(items[0]["body"] == nil, "the list's items have no body")
        let listProblems = try problems(engine, listed, "GET", "/posts")
        #expect(listProblems.isEmpty, "\(listProblems)")

        let changed = engine.send("PUT", "/journal/posts/\(slug)", json: #"{"post": {"body": "With a saddle."}}"#, headers: token)
        #expect(changed.status == 200)
        #expect(changed.body?["post"]?["body"] == "With a saddle." && changed.body?["post"]?["title"] == post["title"] && changed.body?["post"]?["slug"]?.stringValue == slug)
        #expect(engine.send("GET", "/journal/posts/\(slug)").body?["post"]?["body"] == "With a saddle.")

        #expect(engine.send("DELETE", "/journal/posts/\(slug)", headers: token).status == 204)
        let gone = engine.send("GET", "/journal/posts/\(slug)")
        #expect(gone.status == 422, "GET documents 200 and 422: \(gone.status)")
        #expect(try problems(engine, gone, "GET", "/posts/{slug}").isEmpty)
        #expect(engine.send("GET", "/journal/posts").body?["postsCount"] == 0)
    }

    @Test func serverAssignedIdsAreUniqueAndNestedCollectionsKeepTheirParent() throws {
        let engine = try Documents.engine("generated/journal.yaml", strict: true)
        let body = #"{"post": {"title": "Same", "summary": "s", "body": "b"}}"#
        let first = engine.send("POST", "/journal/posts", json: body, headers: token).body?["post"]?["slug"]?.stringValue
        let second = engine.send("POST", "/journal/posts", json: body, headers: token).body?["post"]?["slug"]?.stringValue
        #expect(first == "same" && second == "same-2")
        let note = engine.send("POST", "/journal/posts/same/notes", json: #"{"note": {"body": "Nice"}}"#, headers: token)
        #expect(note.status == 200)
        let id = try #require(note.body?["note"]?["id"]?.intValue, "\(String(describing: note.body))")
        #expect(note.body?["note"]?["body"] == "Nice")
        #expect(engine.send("GET", "/journal/posts/same/notes").body?["notes"]?.arrayValue?.count == 1)
        #expect(engine.send("GET", "/journal/posts/same-2/notes").body?["notes"]?.arrayValue?.isEmpty != false, "another post's notes")
        #expect(engine.send("DELETE", "/journal/posts/same/notes/\(id)", headers: token).status == 204)
        // DELETE documents 204, 401 and 422 only: a deleted note is the documented 422, never 404.
        let again = engine.send("DELETE", "/journal/posts/same/notes/\(id)", headers: token)
        #expect(again.status == 422, "\(again.status)")
        #expect(again.body?["errors"]?["body"]?.arrayValue != nil, "the documented body: \(String(describing: again.body))")
    }

    @Test func jsonAPIResourcesAreUnwrappedAndWrappedAgain() throws {
        let engine = try Documents.engine("generated/records.json", strict: true)
        let headers = ["Content-Type": "application/vnd.api+json"]
        let created = engine.respond(to: MockRequest(method: "POST", uri: "/jsonapi/records", headers: HeaderFields(headers.map { ($0.key, $0.value) }),
                                                     body: Data(#"{"data": {"type": "records", "attributes": {"title": "Blue", "rating": 4}}}"#.utf8),
                                                     baseURL: "http://127.0.0.1:8080"))
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        let data = try #require(JSONValue(parsing: created.body)?["data"])
        let id = try #require(data["id"]?.stringValue, "a string id, as the schema types it: \(data)")
        #expect(data["type"] == "records" && data["attributes"]?["title"] == "Blue" && data["attributes"]?["rating"] == 4)
        #expect(data["attributes"]?["created"]?.stringValue != nil, "a required field it did not send is made")
        let read = engine.send("GET", "/jsonapi/records/\(id)")
        #expect(read.body?["data"] == data)
        let listed = engine.send("GET", "/jsonapi/records")
        #expect(listed.body?["data"]?.arrayValue == [data] && listed.body?["meta"]?["total"] == 1, "\(String(describing: listed.body))")
        #expect(engine.send("DELETE", "/jsonapi/records/\(id)").status == 204)
        #expect(engine.send("GET", "/jsonapi/records/\(id)").status == 404)
    }

    @Test func operationsDocumentingNoAnswerForAMissingItemAreNamed() throws {
        let folder = try Documents.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("bare.yaml")
        try Data("""
            openapi: 3.1.0
            info: { title: Bare, version: '1' }
            paths:
              /notes:
                post: { responses: { '201': { description: made } } }
              /notes/{id}:
                parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]
                get: { responses: { '200': { description: a note } } }
                delete: { responses: { '204': { description: gone }, '409': { description: busy } } }
            """.utf8).write(to: file)
        let document = try OpenAPIDocumentAPI.read(file)
        let named = document.notes.filter { $0.kind == .undocumented && $0.message.contains("missing item") }
        #expect(named.map(\.pointer) == ["/paths/~1notes~1{id}/get"], "DELETE documents a 4xx (409): \(named)")
        // With --strict, a request that breaks the document gets an undocumented 400 where
        // neither 400, 422, 4XX nor default is documented (a 409 does not fit a bad request).
        let refused = document.notes.filter { $0.kind == .undocumented && $0.message.contains("--strict") }
        #expect(refused.map(\.pointer) == ["/paths/~1notes/post", "/paths/~1notes~1{id}/delete", "/paths/~1notes~1{id}/get"], "\(refused)")
        #expect(MissingItem.status(for: try #require(document.operations.first { $0.method == "DELETE" })) == 409)
    }
}

import ContractTests
import ContractTestsTesting
import Foundation
import OpenAPIDocumentAPITesting
import Scenarios
import Testing
import TodoNetworking

/// The API's document, as the tests' resource.
enum TodosDocument {
    static let url = Bundle.module.url(forResource: "todos", withExtension: "yaml")!
}

/// Ordinary tests of the client. `.mockServer(api:)` gives each test a server of its own
/// serving `todos.yaml`: every operation answers from the document, and what the test
/// creates is kept (stateful), so a created todo reads back, changes and goes away.
@Suite struct TodoClientTests {
    /// The client against this test's server; `/v1` is the path of the document's server.
    private func client() -> TodoClient { TodoClient(baseURL: MockServer.current.url("/v1")) }

    @Test(.mockServer(api: TodosDocument.url))
    func aCreatedTodoIsListedChangedAndDeleted() async throws {
        let client = client()
        let created = try await client.create(title: "Milk")
        #expect(created.title == "Milk")
        #expect(try await client.todo(id: created.id) == created)
        #expect(try await client.todos().map(\.id) == [created.id])

        let done = try await client.update(id: created.id, done: true)
        #expect(done.done)
        #expect(done.title == "Milk")

        try await client.delete(id: created.id)
        let gone = await #expect(throws: TodoError.self) { try await client.todo(id: created.id) }
        guard case .notFound? = gone else {
            Issue.record("expected notFound once deleted, got \(String(describing: gone))")
            return
        }
        // The requests kept the document: the trait reports any that did not as an issue.
        try await MockServer.current.expectations.expect(.post("/v1/todos"), .exactly(1))
        try await MockServer.current.expectations.expect(.delete("/v1/todos/\(created.id)"), .exactly(1))
    }

    /// An id the server never made is the document's 404, which the client reports as
    /// `notFound` with the problem's detail.
    @Test(.mockServer(api: TodosDocument.url))
    func aTodoThatDoesNotExistIsNotFound() async throws {
        let error = await #expect(throws: TodoError.self) { try await client().todo(id: 99) }
        guard case .notFound(let detail)? = error else {
            Issue.record("expected notFound, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("99"), "the server names the id: \(detail)")
    }

    /// Before anything is created, the list is the document's first example by name ("none").
    @Test(.mockServer(api: TodosDocument.url))
    func theListStartsAsTheDocumentsExample() async throws {
        #expect(try await client().todos(done: false).isEmpty)
        let sent = try await MockServer.current.expectations.expect(.get("/v1/todos"), .exactly(1))
        #expect(sent.first?.request.query.map(\.value) == ["false"])
    }
}

import ContractTests
import ContractTestsTesting
import Foundation
import OpenAPIDocumentContract
import Testing
import TodoNetworking
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The contract suite made from `todos.yaml`, run against the client: for every operation,
/// its requests keep the document, each documented answer is decoded (or thrown, for the
/// errors), and a hung, slow or cancelled call behaves. Each check runs against a fresh
/// server; a failing check records one issue naming the operation and what broke.
@Suite struct ContractSuiteTests {
    /// One call per operation of the document, keyed by its `operationId`.
    static let calls: [String: OpenAPIContract.Call<TodoClient>] = [
        "listTodos": { try await $0.todos(done: false) },
        "createTodo": { try await $0.create(title: "Eggs", due: "2026-12-24") },
        "getTodo": { try await $0.todo(id: 1) },
        "updateTodo": { try await $0.update(id: 1, done: true) },
        "deleteTodo": { try await $0.delete(id: 1) },
    ]

    @Test(arguments: [ContractTransport.sockets, .inProcess])
    func todoClientKeepsItsContract(transport: ContractTransport) async throws {
        let suite = try OpenAPIContract.suite(document: TodosDocument.url, client: TodoClient.self,
                                              configuration: SuiteConfiguration(transport: transport), calls: Self.calls)
        let report = await suite.run { context in
            TodoClient(baseURL: context.baseURL.appendingPathComponent("v1"),
                       session: URLSession(configuration: context.sessionConfiguration, delegate: context.sessionDelegate, delegateQueue: nil))
        }
        expectContract(report)
    }
}

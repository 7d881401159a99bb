import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Todos API (`todos.yaml`), as an app's networking layer calls it: async/await over an
/// injected `URLSession`, Codable models, and a `TodoError` for every status that is not a
/// success.
public struct TodoClient: Sendable {
    /// The API's root, servers' path included: `https://todos.example.com/v1`.
    public let baseURL: URL
    let session: URLSession

    public init(baseURL: URL, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.session = session
    }

    /// `GET /todos`, all of them or only those `done` (or not).
    public func todos(done: Bool? = nil) async throws -> [Todo] {
        var components = URLComponents(url: baseURL.appendingPathComponent("todos"), resolvingAgainstBaseURL: false)!
        if let done { components.queryItems = [URLQueryItem(name: "done", value: done ? "true" : "false")] }
        return try await send(URLRequest(url: components.url!))
    }

    /// `GET /todos/{todoId}`.
    public func todo(id: Int) async throws -> Todo {
        try await send(URLRequest(url: baseURL.appendingPathComponent("todos/\(id)")))
    }

    /// `POST /todos`: the todo the server made, with its id.
    public func create(title: String, due: String? = nil) async throws -> Todo {
        struct NewTodo: Encodable { var title: String; var due: String? }
        return try await send(request("POST", "todos", body: NewTodo(title: title, due: due)))
    }

    /// `PATCH /todos/{todoId}`: marks it done or not.
    public func update(id: Int, done: Bool) async throws -> Todo {
        struct Change: Encodable { var done: Bool }
        return try await send(request("PATCH", "todos/\(id)", body: Change(done: done)))
    }

    /// `DELETE /todos/{todoId}`.
    public func delete(id: Int) async throws {
        var request = URLRequest(url: baseURL.appendingPathComponent("todos/\(id)"))
        request.httpMethod = "DELETE"
        _ = try await data(for: request)
    }

    private func request(_ method: String, _ path: String, body: some Encodable) throws -> URLRequest {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(body)
        return request
    }

    private func send<T: Decodable>(_ request: URLRequest) async throws -> T {
        try JSONDecoder().decode(T.self, from: try await data(for: request))
    }

    /// The body of a 2xx answer; a `TodoError` for any other status.
    private func data(for request: URLRequest) async throws -> Data {
        var request = request
        request.setValue("application/json, application/problem+json", forHTTPHeaderField: "Accept")
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard !(200...299).contains(status) else { return data }
        // The problem's words when the body is one; the status alone otherwise.
        let problem = try? JSONDecoder().decode(Problem.self, from: data)
        let detail = problem?.detail ?? problem?.title ?? HTTPURLResponse.localizedString(forStatusCode: status)
        switch status {
        case 404: throw TodoError.notFound(detail: detail)
        case 422: throw TodoError.rejected(detail: detail)
        default: throw TodoError.server(status: status, detail: detail)
        }
    }
}

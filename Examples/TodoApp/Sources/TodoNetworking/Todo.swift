import Foundation

/// A todo as the API sends it.
public struct Todo: Codable, Sendable, Equatable, Identifiable {
    public var id: Int
    public var title: String
    public var done: Bool
    /// A calendar date (`2026-12-01`), if the todo has one.
    public var due: String?

    public init(id: Int, title: String, done: Bool, due: String? = nil) {
        self.id = id
        self.title = title
        self.done = done
        self.due = due
    }
}

/// Why a call failed, in the app's words: the server's problem (RFC 9457) or the status.
public enum TodoError: Error, Equatable {
    /// 404: no such todo.
    case notFound(detail: String)
    /// 422: the server refused what was sent.
    case rejected(detail: String)
    /// Any other status that is not a success.
    case server(status: Int, detail: String)
}

/// The API's error body (`application/problem+json`).
struct Problem: Decodable {
    var title: String
    var status: Int
    var detail: String?
}

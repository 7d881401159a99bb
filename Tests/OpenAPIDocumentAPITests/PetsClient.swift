import ContractTests
import Foundation
import MockCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client of `Documents/petstore.yaml` written as an app would: its own models, a
/// `URLSession` from the check's context, an error that carries the server's message.
/// Each `Bug` is a mistake such clients make; the contract suite must catch every one.
struct PetsClient: Sendable {
    struct Pet: Codable, Sendable, Equatable {
        var id: Int
        var name: String
        var tag: String?
    }

    /// A pet whose id is read as text: a model written from a server that sent strings.
    struct TextIDPet: Codable, Sendable {
        var id: String
        var name: String
    }

    struct NewPet: Encodable {
        var name: String
        var tag: String?
    }

    /// The document's `Error`.
    struct ErrorBody: Decodable {
        var code: Int
        var message: String
    }

    /// An error model that does not fit the document's `Error` (`{"error": …}`).
    struct OtherErrorBody: Decodable {
        var error: String
    }

    enum PetsError: Error {
        case server(status: Int, message: String)
    }

    enum Bug: Sendable, Hashable {
        /// `GET /api/pet/{id}`: a path the document does not have.
        case wrongPath
        /// `PATCH /api/pets/{id}` where the document has `PUT`.
        case wrongMethod
        /// `POST /api/pets` with `{"title": …}`: the required `name` is missing.
        case missingRequiredField
        /// `GET /api/pets?page_size=10`: the document's parameter is `limit`.
        case misspeltQuery
        /// Every body decoded as the success type, whatever the status.
        case statusIgnored
        /// Errors decoded as `{"error": …}`, which the document's `Error` is not.
        case otherErrorModel
        /// Listed pets decoded with `id` as text.
        case textIDs
        /// The session's timeout replaced by one of a minute.
        case noTimeout
        /// Every call tried again on any error but a timeout, a cancel included: a data task
        /// tied to the Swift task, whose cancel comes back as `URLError.cancelled`.
        case retriesEverything
    }

    let base: URL
    let session: URLSession
    let bugs: Set<Bug>

    init(context: ProviderContext, bugs: Set<Bug> = []) {
        base = context.baseURL.appendingPathComponent("api")
        let configuration = context.sessionConfiguration
        if bugs.contains(.noTimeout) { configuration.timeoutIntervalForRequest = 60 }
        session = URLSession(configuration: configuration)
        self.bugs = bugs
    }

    func pets(limit: Int) async throws -> [Pet] {
        var components = URLComponents(url: base.appendingPathComponent("pets"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: bugs.contains(.misspeltQuery) ? "page_size" : "limit", value: "\(limit)")]
        let data = try await send(URLRequest(url: components.url!))
        if bugs.contains(.textIDs) {
            return try JSONDecoder().decode([TextIDPet].self, from: data).map { Pet(id: Int($0.id) ?? 0, name: $0.name) }
        }
        return try JSONDecoder().decode([Pet].self, from: data)
    }

    func pet(id: Int) async throws -> Pet {
        let path = bugs.contains(.wrongPath) ? "pet/\(id)" : "pets/\(id)"
        return try JSONDecoder().decode(Pet.self, from: try await send(URLRequest(url: base.appendingPathComponent(path))))
    }

    func create(name: String) async throws -> Pet {
        var request = URLRequest(url: base.appendingPathComponent("pets"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = bugs.contains(.missingRequiredField)
            ? try JSONEncoder().encode(["title": name])
            : try JSONEncoder().encode(NewPet(name: name, tag: "cat"))
        return try JSONDecoder().decode(Pet.self, from: try await send(request))
    }

    func replace(id: Int, name: String) async throws -> Pet {
        var request = URLRequest(url: base.appendingPathComponent("pets/\(id)"))
        request.httpMethod = bugs.contains(.wrongMethod) ? "PATCH" : "PUT"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(NewPet(name: name))
        return try JSONDecoder().decode(Pet.self, from: try await send(request))
    }

    func delete(id: Int) async throws {
        var request = URLRequest(url: base.appendingPathComponent("pets/\(id)"))
        request.httpMethod = "DELETE"
        _ = try await send(request)
    }

    func photo(id: Int) async throws -> Data {
        try await send(URLRequest(url: base.appendingPathComponent("pets/\(id)/photo")))
    }

    /// The body of a 2xx; the server's error otherwise.
    private func send(_ request: URLRequest) async throws -> Data {
        let (data, response) = bugs.contains(.retriesEverything) ? try await retrying(request) : try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard !bugs.contains(.statusIgnored), !(200...299).contains(status) else { return data }
        if bugs.contains(.otherErrorModel) {
            throw PetsError.server(status: status, message: try JSONDecoder().decode(OtherErrorBody.self, from: data).error)
        }
        let message = (try? JSONDecoder().decode(ErrorBody.self, from: data))?.message ?? HTTPURLResponse.localizedString(forStatusCode: status)
        throw PetsError.server(status: status, message: message)
    }

    /// A "resilient" load on completion handlers: any error but a timeout is tried once more.
    private func retrying(_ request: URLRequest) async throws -> (Data, URLResponse) {
        let current = Locked<URLSessionDataTask?>(nil)
        let session = session
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                @Sendable func attempt(_ retriesLeft: Int) {
                    let task = session.dataTask(with: request) { data, response, error in
                        if let error, (error as? URLError)?.code != .timedOut, retriesLeft > 0 { return attempt(retriesLeft - 1) }
                        if let error { return continuation.resume(throwing: error) }
                        guard let response else { return continuation.resume(throwing: URLError(.badServerResponse)) }
                        continuation.resume(returning: (data ?? Data(), response))
                    }
                    current.withLock { $0 = task }
                    task.resume()
                }
                attempt(1)
            }
        } onCancel: {
            current.current?.cancel()
        }
    }
}

import ContractTests
import Foundation
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client of `Documents/things.yaml` that uses the document's second server (`/v2`), as
/// an app may. Each `Bug` is a mistake the contract suite must catch.
struct ThingsClient: Sendable {
    struct Thing: Decodable, Sendable {
        var id: Int
        var name: String
    }

    struct Health: Decodable, Sendable {
        var status: String
    }

    /// The document's `Error`.
    struct ErrorBody: Decodable {
        var message: String
    }

    enum ThingsError: Error {
        case server(status: Int, message: String)
    }

    enum Bug: Sendable, Hashable {
        /// Every body decoded as the success type, whatever the status.
        case statusIgnored
        /// A call given this status never ends (a retry loop that never gives up): it waits
        /// on `ThingsClient.hangs` until the test lets it go.
        case hangsOn(Int)
        /// Every call throws before it sends anything (an "offline" guard gone wrong).
        case sendsNothing
    }

    let base: URL
    let session: URLSession
    let bugs: Set<Bug>

    /// Where `hangsOn` calls wait: a clock the test moves only to let them go.
    static let hangs = TestClock()

    init(context: ProviderContext, bugs: Set<Bug> = []) {
        base = context.baseURL.appendingPathComponent("v2")
        session = URLSession(configuration: context.sessionConfiguration)
        self.bugs = bugs
    }

    func things() async throws -> [Thing] {
        try JSONDecoder().decode([Thing].self, from: try await send(URLRequest(url: base.appendingPathComponent("things"))))
    }

    func thing(id: Int) async throws -> Thing {
        try JSONDecoder().decode(Thing.self, from: try await send(URLRequest(url: base.appendingPathComponent("things/\(id)"))))
    }

    /// `thing(id:)` with the server's error returned, not thrown: what `OpenAPIContract.Call`
    /// must not return.
    func thingResult(id: Int) async -> Result<Thing, ThingsError> {
        do {
            return .success(try await thing(id: id))
        } catch let error as ThingsError {
            return .failure(error)
        } catch {
            return .failure(.server(status: 0, message: "\(error)"))
        }
    }

    func delete(id: Int) async throws {
        var request = URLRequest(url: base.appendingPathComponent("things/\(id)"))
        request.httpMethod = "DELETE"
        _ = try await send(request)
    }

    func health() async throws -> Health {
        try JSONDecoder().decode(Health.self, from: try await send(URLRequest(url: base.appendingPathComponent("health"))))
    }

    /// The body of a 2xx; the server's error otherwise.
    private func send(_ request: URLRequest) async throws -> Data {
        if bugs.contains(.sendsNothing) { throw URLError(.notConnectedToInternet) }
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if bugs.contains(.hangsOn(status)) { try await Self.hangs.sleep(for: .seconds(1)) }
        guard !bugs.contains(.statusIgnored), !(200...299).contains(status) else { return data }
        let message = (try? JSONDecoder().decode(ErrorBody.self, from: data))?.message ?? HTTPURLResponse.localizedString(forStatusCode: status)
        throw ThingsError.server(status: status, message: message)
    }
}

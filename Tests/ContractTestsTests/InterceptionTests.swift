@testable import ContractHarness
import ContractTestsTesting
import Foundation
import BuiltInMockAPIs
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `.mockServer(intercepting:)`: an unmodified client calls the real host and the test's
/// own server answers, in process. `.invalid` hosts never resolve, so a request that is
/// not intercepted fails at once without reaching any network.
@Suite struct InterceptionTests {
    static let openMarket = "market-training.yagom-academy.kr"
    static let page = URL(string: "https://market-training.yagom-academy.kr/api/products?page_no=1&items_per_page=2")!

    /// The answer to a GET of `url` through `session`.
    static func get(_ url: URL, _ session: URLSession = .shared) async throws -> (JSONValue?, Int) {
        let (data, response) = try await session.data(from: url)
        return (JSONValue(parsing: data), (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    /// The URLError a GET of `url` fails with, or nil if it succeeds.
    static func failure(_ url: URL, _ session: URLSession = .shared) async -> URLError.Code? {
        do {
            _ = try await session.data(from: url)
            return nil
        } catch {
            return (error as? URLError)?.code
        }
    }

    /// How a request to a host nobody intercepts ends: the name does not resolve (or, on a
    /// machine with no network at all, there is none).
    static let notFound: Set<URLError.Code> = [.cannotFindHost, .dnsLookupFailed, .notConnectedToInternet]

    @Test(.mockServer(intercepting: [openMarket]))
    func theSharedSessionGetsTheMocksPage() async throws {
        let (page, status) = try await Self.get(Self.page)
        #expect(status == 200)
        #expect(page?["page_no"] == 1)
        #expect(page?["pages"]?.arrayValue?.count == 2)
        try await MockServer.current.expectations.expect(.get("/api/products"), .exactly(1))
        #expect(MockServer.current.journal.entries().last?.request.headers["Host"] == Self.openMarket)
    }

    /// The real host reaches the engine: Open Market's host is answered by Open Market
    /// alone, and the restaurant's `/categories` is no route there.
    @Test(.mockServer(intercepting: [openMarket]))
    func theHostsOwnAPIAnswers() async throws {
        let (_, status) = try await Self.get(URL(string: "https://\(Self.openMarket)/categories")!)
        #expect(status == 404)
    }

    #if canImport(ObjectiveC)
    /// On Apple platforms a session made from `.default` or `.ephemeral` is intercepted too.
    @Test(.mockServer(intercepting: [openMarket]), arguments: ["default", "ephemeral"])
    func aSessionFromAStandardConfigurationGetsTheMocksPage(configuration: String) async throws {
        let session = URLSession(configuration: configuration == "default" ? .default : .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (page, status) = try await Self.get(Self.page, session)
        #expect(status == 200)
        #expect(page?["page_no"] == 1)
        try await MockServer.current.expectations.expect(.get("/api/products"), .exactly(1))
    }
    #else
    /// The documented limit of swift-corelibs-foundation: a session made from `.default`
    /// consults only its own configuration, so it goes out as before.
    @Test(.mockServer(intercepting: ["corelibs-default.invalid"]))
    func onLinuxASessionFromTheDefaultConfigurationGoesOut() async throws {
        let session = URLSession(configuration: .default)
        defer { session.finishTasksAndInvalidate() }
        let code = await Self.failure(URL(string: "https://corelibs-default.invalid/categories")!, session)
        #expect(code.map(Self.notFound.contains) == true, "\(String(describing: code))")
        #expect(MockServer.current.journal.entries().isEmpty)
    }
    #endif

    @Test(.mockServer(intercepting: [openMarket]))
    func aHostNoTestInterceptsGoesOutAsBefore() async throws {
        let code = await Self.failure(URL(string: "https://unintercepted.invalid/api/products?page_no=1&items_per_page=2")!)
        #expect(code.map(Self.notFound.contains) == true, "\(String(describing: code))")
        #expect(MockServer.current.journal.entries().isEmpty)
    }

    /// `host:port` covers that port alone; a host no API answers to reaches every API's routes.
    @Test(.mockServer(intercepting: ["restaurant-app.invalid:8080"]))
    func aPortEntryCoversThatPortOnly() async throws {
        let (categories, status) = try await Self.get(URL(string: "http://restaurant-app.invalid:8080/categories")!)
        #expect(status == 200)
        #expect(categories?["categories"]?.arrayValue?.count == 6)
        let (_, pageStatus) = try await Self.get(URL(string: "http://RESTAURANT-APP.invalid:8080/api/products?page_no=1&items_per_page=2")!)
        #expect(pageStatus == 200)
        #expect(MockServer.current.journal.entries().first?.request.headers["Host"] == "restaurant-app.invalid:8080")
        let code = await Self.failure(URL(string: "http://restaurant-app.invalid:8081/categories")!)
        #expect(code.map(Self.notFound.contains) == true, "\(String(describing: code))")
        #expect(MockServer.current.journal.entries().count == 2)
    }

    @Test(arguments: [
        ("market-training.yagom-academy.kr", "market-training.yagom-academy.kr", nil),
        (" Localhost:8080 ", "localhost", 8080),
        ("[::1]:8443", "::1", 8443),
        ("[2001:db8::1]", "2001:db8::1", nil),
    ] as [(String, String, Int?)])
    func anEntryIsAHostOrAHostAndPort(entry: String, host: String, port: Int?) throws {
        let parsed = try InterceptedHost(parsing: entry)
        #expect(parsed.host == host)
        #expect(parsed.port == port)
    }

    @Test(arguments: ["https://market-training.yagom-academy.kr", "", "localhost:http", "localhost:70000", "[::1", "user@host",
                      "localhost", "127.0.0.1", "[::1]"])
    func anEntryThatIsNoHostIsRefusedWithAReason(entry: String) {
        #expect(throws: InterceptionError.self) { try InterceptedHost(parsing: entry) }
    }

    @Test func anEntryCoversItsHostOnAnySchemeAndItsPortOnly() throws {
        let any = try InterceptedHost(parsing: "api.example.invalid")
        let one = try InterceptedHost(parsing: "api.example.invalid:443")
        #expect(any.covers(URL(string: "http://API.example.invalid:9/x")!))
        #expect(!any.covers(URL(string: "http://other.invalid/x")!))
        #expect(one.covers(URL(string: "https://api.example.invalid/x")!))
        #expect(!one.covers(URL(string: "http://api.example.invalid/x")!))
    }
}

import ContractTests
import ContractTestsTesting
import Foundation
import MockFixtures
import BuiltInMockAPIs
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A third API (`PetsAPI`, one file) added with one line, `apis: [PetsAPI()]`, is served,
/// journaled, documented, snapshotted and shown like the built-in ones.
@Suite struct ThirdAPITests {
    private func send(_ method: String, _ path: String, body: String? = nil) async throws -> (JSONValue?, Int) {
        var request = URLRequest(url: MockServer.current.url(path))
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return (JSONValue(parsing: data), (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    @Test(.mockServer(apis: [PetsAPI()]))
    func itIsServedBesideTheBuiltInAPIs() async throws {
        let (pets, status) = try await send("GET", "/pets")
        #expect(status == 200)
        #expect(pets?["pets"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Rex", "Tom"])
        let (_, menu) = try await send("GET", "/menu")
        #expect(menu == 200)
        #expect(MockServer.current.engine.apis == ["restaurant", "openmarket", "pets"])
    }

    @Test(.mockServer(apis: [PetsAPI()]))
    func whatItCreatesReadsBackAndIsJournaled() async throws {
        let (created, status) = try await send("POST", "/pets", body: #"{"name": "Kit"}"#)
        #expect(status == 201)
        #expect(created?["id"] == 3)
        let (read, readStatus) = try await send("GET", "/pets/3")
        #expect(readStatus == 200)
        #expect(read?["name"] == "Kit")
        try await MockServer.current.expectations.expect(.post("/pets"), .exactly(1))
        #expect(MockServer.current.journal.entries().map { $0.answeredBy ?? "" } == ["pets.create", "pets.read"])
    }

    /// Its requests are checked against its own document, as the built-ins' are.
    @Test(.mockServer(checksRequests: false, apis: [PetsAPI()]))
    func requestsAreCheckedAgainstItsDocument() async throws {
        let (_, status) = try await send("POST", "/pets", body: "{}")
        #expect(status == 400)
        let violations = try #require(MockServer.current.journal.entries().last).violations
        #expect(violations.contains { $0.description.contains("name") }, "\(violations)")
    }

    @Test(.mockServer(variants: ["pets-v2"], apis: [PetsAPI()]))
    func itsVariantIsChosenByName() async throws {
        let (pets, _) = try await send("GET", "/pets")
        #expect(pets?["data"]?.arrayValue?.count == 2)
        #expect(pets?["pets"] == nil)
    }

    @Test func anUnknownVariantNamesTheThirdAPIsToo() async throws {
        let error = await #expect(throws: VariantError.self) {
            _ = try await TestMockServer.start(variants: ["v3"], apis: [PetsAPI()])
        }
        #expect(error?.known.contains("v2") == true)
    }

    @Test(.mockServer(apis: [PetsAPI()]))
    func itsDocumentIsServedAndListed() async throws {
        let (list, _) = try await send("GET", "/__admin/openapi")
        #expect(list?["apis"]?.arrayValue?.compactMap { $0["api"]?.stringValue } == ["restaurant", "openmarket", "pets"])
        let (document, status) = try await send("GET", "/__admin/openapi/pets")
        #expect(status == 200)
        #expect(document?["info"]?["title"] == "Pets")
        #expect(document?["info"]?["version"] == "v1")
        let (v2, _) = try await send("GET", "/__admin/openapi/pets?variant=v2")
        #expect(v2?["info"]?["version"] == "v2")
        let (reason, unknown) = try await send("GET", "/__admin/openapi/pets?variant=v9")
        #expect(unknown == 400)
        #expect(reason?["reason"]?.stringValue?.contains("v1, v2") == true)
        let (_, missing) = try await send("GET", "/__admin/openapi/cats")
        #expect(missing == 404)
    }

    /// The dashboard's overview names it and lists its routes.
    @Test(.mockServer(apis: [PetsAPI()]))
    func theDashboardShowsIt() async throws {
        _ = try await send("GET", "/pets")
        let (overview, _) = try await send("GET", "/__admin/overview")
        let apis = overview?["apis"]?.arrayValue ?? []
        #expect(apis.contains { $0["name"] == "pets" && $0["variant"] == "v1" && $0["hosts"] == ["api.pets.example"] })
        let routes = overview?["routes"]?.arrayValue ?? []
        #expect(routes.contains { $0["name"] == "pets.list" && $0["hits"] == 1 })
    }

    @Test func itsStateIsSnapshottedAndRestored() throws {
        let configuration = EngineConfiguration(fixturesDirectory: MockFixtures.directory, apis: BuiltInAPIs.all + [PetsAPI()])
        let engine = try MockEngine(configuration: configuration)
        _ = engine.respond(to: MockRequest(method: "POST", uri: "/pets", body: Data(#"{"name": "Kit"}"#.utf8)))
        let snapshot = engine.snapshot()
        #expect(JSONValue(parsing: snapshot)?["pets"]?.arrayValue?.count == 3)
        #expect(JSONValue(parsing: snapshot)?["openMarket"] != nil)

        let fresh = try MockEngine(configuration: configuration)
        try fresh.restore(snapshot: snapshot)
        #expect(JSONValue(parsing: fresh.respond(to: MockRequest(method: "GET", uri: "/pets/3")).body)?["name"] == "Kit")
    }

    /// A snapshot whose pets do not read is refused with the JSON path, and nothing of it
    /// is applied: not the Open Market catalogue before it either.
    @Test func aBadSnapshotNamesThePathAndChangesNothing() throws {
        let configuration = EngineConfiguration(fixturesDirectory: MockFixtures.directory, apis: BuiltInAPIs.all + [PetsAPI()])
        let engine = try MockEngine(configuration: configuration)
        _ = engine.respond(to: MockRequest(method: "POST", uri: "/pets", body: Data(#"{"name": "Kit"}"#.utf8)))
        guard case .object(var members)? = JSONValue(parsing: engine.snapshot()) else { Issue.record("not an object"); return }
        members["pets"] = "many"
        let fresh = try MockEngine(configuration: configuration)
        let before = fresh.snapshot()
        let error = #expect(throws: FixtureError.self) { try fresh.restore(snapshot: JSONCoding.encode(JSONValue.object(members))) }
        #expect(error?.problems.first?.jsonPath.hasPrefix("$.pets") == true, "\(String(describing: error))")
        #expect(fresh.snapshot() == before)
    }

    /// A request to an API's own host is answered by that API alone; the mock's own
    /// address keeps every API's paths.
    @Test func theHostChoosesTheAPI() throws {
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory,
                                                                       apis: BuiltInAPIs.all + [PetsAPI()]))
        func status(_ uri: String, _ base: String) -> Int { engine.respond(to: MockRequest(method: "GET", uri: uri, baseURL: base)).status }
        #expect(status("/pets", "http://API.Pets.example:8080") == 200)
        #expect(status("/menu", "https://api.pets.example") == 404)
        #expect(status("/api/products?page_no=1&items_per_page=2", "https://market-training.yagom-academy.kr") == 200)
        #expect(status("/pets", "https://market-training.yagom-academy.kr") == 404)
        #expect(status("/menu", "https://openmarket.yagom-academy.kr") == 404)
        #expect(status("/pets", "http://127.0.0.1:8080") == 200)
        #expect(status("/menu", "http://localhost:8080") == 200)
        #expect(status("/api/products?page_no=1&items_per_page=2", "http://localhost:8080") == 200)
    }

    /// `hostMap` (`--map HOST=API`) gives an API more hosts.
    @Test func aMappedHostIsAnsweredByItsAPI() throws {
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory,
                                                                       hostMap: ["orders.example.com": "restaurant"]))
        func status(_ uri: String) -> Int {
            engine.respond(to: MockRequest(method: "GET", uri: uri, baseURL: "https://orders.example.com")).status
        }
        #expect(status("/menu") == 200)
        #expect(status("/api/products?page_no=1&items_per_page=2") == 404)
    }
}

import Foundation
import MockCore
import MockRecording
import Testing

/// How exchanges become a replay scenario (pure logic; the socket round trip is in
/// RecordReplayTests).
@Suite struct RecordingBookTests {
    static func exchange(_ uri: String, method: String = "GET", status: Int = 200, headers: HeaderFields = ["Content-Type": "application/json"],
                         body: String = "{}", requestHeaders: HeaderFields = [:], requestBody: String = "") -> RecordedExchange {
        let request = MockRequest(method: method, uri: uri)
        return RecordedExchange(method: method, path: request.path, query: request.query, requestHeaders: requestHeaders,
                                requestBody: Data(requestBody.utf8), status: status, headers: headers, body: Data(body.utf8))
    }

    /// Writes the book's files the way `Recorder` does and loads the scenario back.
    static func load(_ book: RecordingBook, files: [(path: String, data: Data)]) throws -> Scenario {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("book-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(book.name), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for file in files { try file.data.write(to: folder.appendingPathComponent(file.path)) }
        let url = folder.appendingPathComponent("\(book.name).json")
        try JSONCoding.encode(book.scenario(recordedAt: Date(timeIntervalSince1970: 0))).write(to: url)
        return try ScenarioFile.load(url)
    }

    static func answer(_ scenario: Scenario, _ request: MockRequest) -> ResponsePlan {
        let engine = try! MockEngine(scenarios: [scenario], current: scenario.name, source: ClosureResponder { _ in .error(404, "not recorded") })
        return engine.respond(to: request)
    }

    @Test func varyingHeadersAreLeftOut() {
        let exchange = Self.exchange("/menu", headers: [
            "Content-Type": "application/json", "Date": "Sun, 22 Nov 2026 10:00:00 GMT", "X-Request-Id": "abc",
            "CF-Ray": "1", "Transfer-Encoding": "chunked", "Content-Length": "2", "Cache-Control": "no-cache", "traceparent": "00-1",
        ])
        #expect(exchange.headers.map { $0.name } == ["Content-Type", "Cache-Control"])
    }

    @Test func repeatedRequestsBecomeOneRuleWithTheirResponsesInOrder() throws {
        var book = RecordingBook(name: "rec", upstream: "http://up")
        var files: [(path: String, data: Data)] = []
        for (count, uri) in [(1, "/api/products?page_no=1"), (2, "/api/products?page_no=1"), (3, "/api/products")] {
            if let file = book.add(Self.exchange(uri, body: #"{"total_count":\#(count)}"#)) { files.append(file) }
        }
        // Bodies are shared when identical.
        if let file = book.add(Self.exchange("/api/products", body: #"{"total_count":3}"#)) { files.append(file) }
        #expect(files.map(\.path) == ["rec/0001-get-api-products.json", "rec/0002-get-api-products.json", "rec/0003-get-api-products.json"])

        let scenario = try Self.load(book, files: files)
        #expect(scenario.rules.map(\.name) == ["GET /api/products?page_no=1", "GET /api/products"])
        let page = MockRequest(method: "GET", uri: "/api/products?page_no=1")
        let engine = try MockEngine(scenarios: [scenario], current: "rec", source: ClosureResponder { _ in .error(404, "not recorded") })
        let bodies = (0..<3).map { _ in String(decoding: engine.respond(to: page).body, as: UTF8.self) }
        #expect(bodies == [#"{"total_count":1}"#, #"{"total_count":2}"#, #"{"total_count":2}"#])
        // Without the query the other rule answers; the first rule insists the query is absent.
        #expect(String(decoding: engine.respond(to: MockRequest(method: "GET", uri: "/api/products")).body, as: UTF8.self) == #"{"total_count":3}"#)
        #expect(engine.respond(to: MockRequest(method: "GET", uri: "/api/products?page_no=9")).status == 404)
    }

    @Test func jsonBodiesAndChosenHeadersTellRequestsApart() throws {
        var book = RecordingBook(name: "rec", upstream: "http://up", matchHeaders: ["identifier"])
        var files: [(path: String, data: Data)] = []
        let calls: [(String, HeaderFields, Int, String)] = [
            (#"{"menuIds":[1]}"#, [:], 200, #"{"preparation_time":10}"#),
            (#"{"menuIds":[]}"#, [:], 400, #"{"error":true}"#),
            ("--multipart--", ["identifier": "vendor-1"], 201, #"{"id":1}"#),
            ("--multipart--", [:], 401, #"{"error":"no identifier"}"#),
        ]
        for (body, headers, status, answer) in calls {
            let path = body.hasPrefix("{") ? "/order" : "/api/products"
            if let file = book.add(Self.exchange(path, method: "POST", status: status, body: answer, requestHeaders: headers, requestBody: body)) { files.append(file) }
        }
        let scenario = try Self.load(book, files: files)
        #expect(scenario.rules.count == 4)
        func status(_ path: String, _ body: String, _ headers: HeaderFields = [:]) -> Int {
            Self.answer(scenario, MockRequest(method: "POST", uri: path, headers: headers, body: Data(body.utf8))).status
        }
        #expect(status("/order", #"{"menuIds": [1]}"#) == 200)
        #expect(status("/order", #"{"menuIds":[]}"#) == 400)
        #expect(status("/order", #"{"menuIds":[2]}"#) == 404)
        #expect(status("/api/products", "other bytes", ["identifier": "vendor-1"]) == 201)
        #expect(status("/api/products", "other bytes") == 401)
    }

    @Test func aRecorded304IsDerivedOnReplayNotPlayedInSequence() throws {
        var book = RecordingBook(name: "rec", upstream: "http://up")
        let png: HeaderFields = ["Content-Type": "image/png", "ETag": "\"v1\"", "Cache-Control": "max-age=60"]
        var files: [(path: String, data: Data)] = []
        if let file = book.add(Self.exchange("/images/1.png", headers: png, body: "PNGDATA")) { files.append(file) }
        _ = book.add(Self.exchange("/images/1.png", status: 304, headers: ["ETag": "\"v1\""], body: "", requestHeaders: ["If-None-Match": "\"v1\""]))
        let scenario = try Self.load(book, files: files)
        guard case .sequence(let outcomes, _) = scenario.rules.first?.responses else {
            Issue.record("expected one rule with a sequence")
            return
        }
        #expect(outcomes.count == 1)
        let plain = Self.answer(scenario, MockRequest(method: "GET", uri: "/images/1.png"))
        #expect(plain.status == 200 && plain.body == Data("PNGDATA".utf8) && plain.headers["Content-Type"] == "image/png")
        let cached = Self.answer(scenario, MockRequest(method: "GET", uri: "/images/1.png", headers: ["If-None-Match": "\"v1\""]))
        #expect(cached.status == 304 && cached.body.isEmpty && cached.headers["ETag"] == "\"v1\"")
        let stale = Self.answer(scenario, MockRequest(method: "GET", uri: "/images/1.png", headers: ["If-None-Match": "\"v0\""]))
        #expect(stale.status == 200)
    }

    @Test func theUpstreamAddressBecomesTheReplayServersOwn() throws {
        var book = RecordingBook(name: "rec", upstream: "http://up")
        var files: [(path: String, data: Data)] = []
        var menu = Self.exchange("/menu", body: #"{"image_url":"{{baseURL}}/images/1.png"}"#)
        menu.templated = true
        if let file = book.add(menu) { files.append(file) }
        var redirect = Self.exchange("/old", status: 301, headers: ["Location": "{{baseURL}}/new"], body: "")
        redirect.templated = true
        _ = book.add(redirect)
        let scenario = try Self.load(book, files: files)
        let answer = Self.answer(scenario, MockRequest(method: "GET", uri: "/menu", baseURL: "http://127.0.0.1:4321"))
        #expect(String(decoding: answer.body, as: UTF8.self) == #"{"image_url":"http://127.0.0.1:4321/images/1.png"}"#)
        let moved = Self.answer(scenario, MockRequest(method: "GET", uri: "/old", baseURL: "http://127.0.0.1:4321"))
        #expect(moved.status == 301 && moved.headers["Location"] == "http://127.0.0.1:4321/new")
    }
}

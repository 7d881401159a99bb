import Foundation
import NIOCore
import BuiltInMockAPIs
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct AdminAPITests {
    func json(_ server: TestServer, _ method: String, _ path: String, _ body: String? = nil) async throws -> (JSONValue, Int) {
        var request = URLRequest(url: server.url(path))
        request.httpMethod = method
        if let body { request.httpBody = Data(body.utf8) }
        let (data, response) = try await HTTP.send(request)
        return (JSONValue(parsing: data) ?? .null, response.statusCode)
    }

    @Test func healthAndInfo() async throws {
        try await withServer(scenario: "flaky") { server in
            #expect(try await json(server, "GET", "/__admin/health").0 == ["status": "ok"])
            let (info, status) = try await json(server, "GET", "/__admin/info")
            #expect(status == 200)
            #expect(info["apis"] == ["restaurant", "openmarket"])
            #expect(info["scenario"] == "flaky")
            #expect(info["variants"]?["restaurant"] == "original")
            #expect(info["journal"]?["capacity"] == 10_000)
            #expect(info["uptimeSeconds"]?.doubleValue != nil)
        }
    }

    @Test func journalListFiltersDetailCountAndClear() async throws {
        try await withServer { server in
            _ = try await HTTP.get(server.url("/menu?category=soups"), headers: [ScenarioEngine.sessionHeader: "s1"])
            _ = try await HTTP.post(server.url("/order"), json: #"{"menuIds":[5]}"#)
            _ = try await HTTP.get(server.url("/nope"))
            let (all, _) = try await json(server, "GET", "/__admin/requests?limit=100")
            #expect(all["requests"]?.arrayValue?.count == 3)
            #expect(try await json(server, "GET", "/__admin/requests?method=POST").0["requests"]?.arrayValue?.first?["path"] == "/order")
            #expect(try await json(server, "GET", "/__admin/requests?path=/menu").0["matching"] == 1)
            #expect(try await json(server, "GET", "/__admin/requests?status=404").0["requests"]?.arrayValue?.first?["path"] == "/nope")
            #expect(try await json(server, "GET", "/__admin/requests?session=s1").0["matching"] == 1)
            #expect(try await json(server, "GET", "/__admin/requests?since=2").0["matching"]?.intValue ?? 0 >= 1)
            #expect(try await json(server, "GET", "/__admin/requests?status=abc").1 == 400)

            let (detail, _) = try await json(server, "GET", "/__admin/requests/2")
            #expect(detail["body"]?["text"] == #"{"menuIds":[5]}"#)
            #expect(detail["answeredBy"] == "restaurant.order")
            #expect(detail["requestHeaders"]?.arrayValue?.contains(["Content-Type", "application/json"]) == true)
            #expect(try await json(server, "GET", "/__admin/requests/999").1 == 404)

            let (count, _) = try await json(server, "POST", "/__admin/requests/count", #"{"request": {"method": "GET", "path": "/menu", "query": {"category": "soups"}}}"#)
            #expect(count["count"] == 1)
            #expect(count["complete"] == true)
            let (bad, badStatus) = try await json(server, "POST", "/__admin/requests/count", #"{"request": {"path": "menu"}}"#)
            #expect(badStatus == 400)
            #expect(bad["problems"]?.arrayValue?.first?["jsonPath"] == "$.request.path")

            let (unmatched, _) = try await json(server, "GET", "/__admin/requests/unmatched")
            let miss = unmatched["requests"]?.arrayValue?.first
            #expect(miss?["path"] == "/nope")
            #expect(miss?["nearMisses"]?.arrayValue?.count == 3)

            #expect(try await json(server, "DELETE", "/__admin/requests").0["cleared"] == true)
            #expect(server.engine.journal.entries().count == 1)   // the clear call itself
        }
    }

    /// A request that breaks its API's document is answered as the lenient real server
    /// answered it, and its journal entry carries each violation with its path; the
    /// journal lists them with `violations=true` (#23).
    @Test func violationsAreKeptOnTheEntryAndListed() async throws {
        try await withServer { server in
            let (data, response) = try await HTTP.get(server.url("/menu?categroy=soups"))
            #expect(response.statusCode == 200)
            #expect(JSONValue(parsing: data)?["items"]?.arrayValue?.count == 6, "the server ignores the name, as the real one did")
            _ = try await HTTP.get(server.url("/menu?category=soups"))
            _ = try await HTTP.post(server.url("/order"), json: #"{"menuIds":"5"}"#)
            let (listed, status) = try await json(server, "GET", "/__admin/requests?violations=true")
            #expect(status == 200)
            let entries = listed["requests"]?.arrayValue ?? []
            #expect(entries.map { $0["uri"] } == ["/menu?categroy=soups", "/order"])
            #expect(entries.first?["violations"] == [["path": "$.query.categroy", "reason": "a query parameter the document does not have (it has category)"]])
            #expect(entries.last?["violations"]?.arrayValue?.first?["path"] == "$.body.menuIds")
            #expect(try await json(server, "GET", "/__admin/requests?violations=false").0["requests"]?.arrayValue?.map { $0["uri"] }
                    == ["/menu?category=soups", "/__admin/requests?violations=true"])
            #expect(try await json(server, "GET", "/__admin/requests?violations=yes").1 == 400)
            #expect(server.engine.journal.entries().first?.violations.map(\.path) == ["$.query.categroy"])
        }
    }

    @Test func verificationSaysWhatItSaw() async throws {
        try await withServer { server in
            _ = try await HTTP.get(server.url("/categories"))
            _ = try await HTTP.get(server.url("/menu?category=soups"))
            let ok = try await json(server, "POST", "/__admin/verify", #"{"request": {"method": "GET", "path": "/menu"}, "count": {"exactly": 1}}"#)
            #expect(ok.1 == 200)
            #expect(ok.0["ok"] == true)
            let (miss, status) = try await json(server, "POST", "/__admin/verify", #"{"request": {"method": "GET", "path": "/menu", "query": {"category": "salads"}}, "count": {"atLeast": 1}}"#)
            #expect(status == 409)
            #expect(miss["message"]?.stringValue?.contains("Expected at least 1 request matching GET /menu?category == \"salads\", but the server saw 0") == true)
            #expect(miss["nearMisses"]?.arrayValue?.first == "GET /menu?category=soups → 200")
            #expect(try await json(server, "POST", "/__admin/verify", #"{"request": {"path": "/order"}, "count": "never"}"#).1 == 200)
            #expect(try await json(server, "POST", "/__admin/verify", #"{"request": {"path": "/order"}, "count": {"sometimes": 1}}"#).1 == 400)

            let inOrder = try await json(server, "POST", "/__admin/verify/sequence", #"{"requests": [{"path": "/categories"}, {"path": "/menu"}]}"#)
            #expect(inOrder.0["ok"] == true)
            let (wrong, wrongStatus) = try await json(server, "POST", "/__admin/verify/sequence", #"{"requests": [{"path": "/menu"}, {"path": "/categories"}]}"#)
            #expect(wrongStatus == 409)
            #expect(wrong["message"] == "Only the first 1 of 2 arrived in that order; missing ANY /categories")
        }
    }

    /// N concurrent requests with a journal cap below N: the total is exactly N, and a
    /// verification that eviction could change says it cannot answer.
    @Test func journalCountsExactlyUnderConcurrencyAndEviction() async throws {
        try await withServer(journalCapacity: 50) { server in
            let results = try await ManyConnections.send("GET /categories HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", count: 300, port: server.port)
            #expect(results.count == 300)
            #expect(server.engine.journal.totalCount == 300)
            #expect(server.engine.journal.entries().count == 50)
            let (info, _) = try await json(server, "GET", "/__admin/info")
            #expect(info["journal"]?["total"] == 300)   // the info call is journaled once answered
            #expect(server.engine.journal.totalCount == 301)
            let (verdict, status) = try await json(server, "POST", "/__admin/verify", #"{"request": {"path": "/categories"}, "count": {"exactly": 300}}"#)
            #expect(status == 409)
            #expect(verdict["incomplete"] == true)
            #expect(verdict["message"]?.stringValue?.contains("the journal kept 50 of the 30") == true)
            #expect(try await json(server, "POST", "/__admin/verify", #"{"request": {"path": "/categories"}, "count": {"atLeast": 10}}"#).1 == 200)
        }
    }

    @Test func stateResetAndFixtureReload() async throws {
        try await withServer { server in
            _ = try await OpenMarketClient(base: server.address.url).send("DELETE", "/api/products/16/secret-0016")
            #expect(try await HTTP.get(server.url("/api/products/16")).1.statusCode == 404)
            #expect(try await json(server, "POST", "/__admin/state/reset").1 == 200)
            #expect(try await HTTP.get(server.url("/api/products/16")).1.statusCode == 200)
            let (reloaded, status) = try await json(server, "POST", "/__admin/fixtures/reload")
            #expect(status == 200, "\(reloaded)")
            #expect(try await HTTP.get(server.url("/menu")).1.statusCode == 200)
        }
    }

    @Test func snapshotSavesAndRestoresState() async throws {
        try await withServer { server in
            let client = OpenMarketClient(base: server.address.url)
            let (created, _) = try await client.create()
            let id = try #require(try object(created)["id"] as? Int)
            try server.engine.scenarios.select("order-fails-then-succeeds")
            _ = try await HTTP.post(server.url("/order"), json: #"{"menuIds":[1]}"#)   // machine: failed-once
            let (snapshot, _) = try await HTTP.get(server.url("/__admin/snapshot"))

            try await withServer { other in
                var restore = URLRequest(url: other.url("/__admin/snapshot"))
                restore.httpMethod = "PUT"
                restore.httpBody = snapshot
                #expect(try await HTTP.send(restore).1.statusCode == 200)
                #expect(try await HTTP.get(other.url("/api/products/\(id)")).1.statusCode == 200)
                let detail = try object(try await HTTP.get(other.url("/api/products/\(id)")).0)
                let imageText = (detail["images"] as? [[String: Any]])?.first?["url"] as? String
                let image = try #require(imageText.flatMap { URL(string: $0) })
                let (bytes, imageResponse) = try await HTTP.get(other.url(image.path))
                #expect(imageResponse.statusCode == 200)
                #expect(bytes == OpenMarketClient.image("1.png"))
                #expect(other.engine.scenarios.currentScenario == "order-fails-then-succeeds")
                #expect(try await HTTP.post(other.url("/order"), json: #"{"menuIds":[1]}"#).1.statusCode == 503)   // carries on
                var bad = URLRequest(url: other.url("/__admin/snapshot"))
                bad.httpMethod = "PUT"
                bad.httpBody = Data(#"{"version": 1}"#.utf8)
                #expect(try await HTTP.send(bad).1.statusCode == 400)
            }
        }
    }

    @Test func eventStreamCarriesRequestsAndStateChanges() async throws {
        try await withServer { server in
            let connection = try RawConnection(port: server.port)
            connection.send("GET /__admin/events HTTP/1.1\r\nHost: a\r\nAccept: text/event-stream\r\n\r\n")
            let opened = await connection.read(timeout: 30) { String(decoding: $0, as: UTF8.self).contains(": connected") }
            #expect(opened.text.contains("Content-Type: text/event-stream"))
            _ = try await HTTP.get(server.url("/menu?category=soups"))
            _ = try await HTTP.post(server.url("/__admin/scenario"), json: #"{"name":"flaky"}"#, method: "PUT")
            let events = await connection.read(timeout: 30) { String(decoding: $0, as: UTF8.self).contains("\"change\":\"scenario\"") }
            #expect(events.text.contains("event: request"))
            #expect(events.text.contains("\"uri\":\"/menu?category=soups\""))
            #expect(events.text.contains("event: state"))
            #expect(server.engine.events.subscriberCount == 1)
        }
    }
}

/// #12: a wrong method on an admin path is a 405 naming the right ones; patterns in
/// messages read as JSON, never as Swift debug values.
@Suite struct AdminMessagesTests {
    @Test(arguments: [("DELETE", "/__admin/info", "GET, HEAD"), ("GET", "/__admin/verify", "POST"), ("PUT", "/__admin/state/reset", "POST")])
    func aWrongMethodIs405WithAllow(method: String, path: String, allow: String) async throws {
        try await withServer { server in
            var request = URLRequest(url: server.url(path))
            request.httpMethod = method
            let (data, response) = try await HTTP.send(request)
            #expect(response.statusCode == 405, "\(method) \(path)")
            #expect(response.value(forHTTPHeaderField: "Allow") == allow)
            #expect(String(decoding: data, as: UTF8.self).contains("does not answer \(method)"))
            #expect(try await HTTP.get(server.url("/__admin/no-such-thing")).1.statusCode == 404)
        }
    }

    @Test func verifyMessagesShowJSONPatternsAsJSON() async throws {
        try await withServer { server in
            let (data, response) = try await HTTP.post(server.url("/__admin/verify"),
                json: #"{"request": {"method": "POST", "path": "/order", "body": {"jsonEqualTo": {"menuIds": [1, 1, 5]}}}, "count": {"exactly": 1}}"#)
            #expect(response.statusCode == 409)
            let text = String(decoding: data, as: UTF8.self)
            #expect(!text.contains("JSONValue"), "\(text)")
            #expect(!text.contains(".number("), "\(text)")
            #expect(text.contains(#"{\"menuIds\":[1,1,5]}"#), "\(text)")
        }
    }

    @Test func nearestRulesShowJSONPatternsAsJSON() async throws {
        let rule = Rule("order-115", RequestPattern(method: "POST", path: "/order", body: .jsonEqualTo(["menuIds": [1, 1, 5]])),
                        always: .status(201))
        let replay = Scenario(name: "replay", rules: [rule])
        try await withServer(scenarios: [replay], scenario: "replay") { server in
            let (data, response) = try await HTTP.get(server.url("/no-such-route"))
            #expect(response.statusCode == 404)
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.contains("nearestRules"), "\(text)")
            #expect(!text.contains("JSONValue"), "\(text)")
            #expect(text.contains(#"equals JSON {\"menuIds\":[1,1,5]}"#), "\(text)")
        }
    }
}

/// `GET /__admin/overview`: what the dashboard shows at a glance.
@Suite struct AdminOverviewTests {
    static func overview(_ server: TestServer, session: String? = nil) async throws -> [String: Any] {
        let (data, response) = try await HTTP.get(server.url("/__admin/overview" + (session.map { "?session=\($0)" } ?? "")))
        #expect(response.statusCode == 200)
        return try #require(try HTTP.json(data) as? [String: Any])
    }

    static func hits(_ list: Any?, _ name: String) -> Int? {
        (list as? [[String: Any]])?.first { $0["name"] as? String == name }?["hits"] as? Int
    }

    @Test func routesCountTheirHitsBeyondTheJournalsCapacity() async throws {
        try await withServer(journalCapacity: 2) { server in
            for _ in 0..<3 { _ = try await HTTP.get(server.url("/menu?category=soups")) }
            _ = try await HTTP.get(server.url("/no-such-route"))
            let overview = try await Self.overview(server)
            #expect(Self.hits(overview["routes"], "restaurant.menu") == 3, "evicted entries still count")
            #expect(Self.hits(overview["routes"], "restaurant.categories") == 0)
            #expect((overview["other"] as? [String: Any])?["unmatched"] as? Int == 1)
        }
    }

    @Test func rulesCountTheirHitsAndMachinesShowTheirStatePerSession() async throws {
        try await withServer(scenario: "order-fails-then-succeeds") { server in
            var request = URLRequest(url: server.url("/order"))
            request.httpMethod = "POST"
            request.httpBody = Data(#"{"menuIds": [1]}"#.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("tester", forHTTPHeaderField: "X-Mock-Session")
            _ = try await HTTP.send(request)
            let mine = try await Self.overview(server, session: "tester")
            let scenario = try #require(mine["scenario"] as? [String: Any])
            #expect(scenario["name"] as? String == "order-fails-then-succeeds")
            #expect(Self.hits(scenario["rules"], "order-first-failure") == 1)
            #expect(Self.hits(scenario["rules"], "order-second-failure") == 0)
            #expect((scenario["machines"] as? [String: String]) == ["order": "failed-once"])
            let other = try #require(try await Self.overview(server)["scenario"] as? [String: Any])
            #expect((other["machines"] as? [String: String]) == ["order": "Started"], "another session is untouched")
            #expect(Self.hits(other["rules"], "order-first-failure") == 0)
        }
    }
}

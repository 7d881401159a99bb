import Foundation
import BuiltInMockAPIs
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each shipped scenario, selected with `--scenario` semantics (the server starts in it),
/// reproduces what its description says. Delays run at a time scale of 0.05.
@Suite struct ShippedScenarioTests {
    func with<T>(_ scenario: String, _ body: (TestServer) async throws -> T) async throws -> T {
        try await withServer(scenario: scenario, timeScale: 0.05, body)
    }

    func statuses(_ server: TestServer, _ path: String, count: Int, headers: [String: String] = [:]) async throws -> [Int] {
        var result: [Int] = []
        for _ in 0..<count { result.append(try await HTTP.get(server.url(path), headers: headers).1.statusCode) }
        return result
    }

    @Test func happyPath() async throws {
        try await with("happy-path") { server in
            let answers = try await statuses(server, "/menu", count: 3)
            #expect(answers == [200, 200, 200])
        }
    }

    @Test func slow3G() async throws {
        try await with("slow-3g") { server in
            let (data, _) = try await HTTP.get(server.url("/images/1.png"))
            _ = try PNGCheck.validate(data)
            let entry = try #require(server.engine.journal.entries().first)
            #expect(entry.delay > 0)
            #expect(entry.delay < 2 * 0.05)   // lognormal around 400 ms, scaled
        }
    }

    @Test func flakyIsSeededAndReproducible() async throws {
        let first = try await with("flaky") { try await statuses($0, "/menu", count: 60) }
        let second = try await with("flaky") { try await statuses($0, "/menu", count: 60) }
        #expect(first == second)
        #expect(first.contains(503))
        #expect(first.filter { $0 == 200 }.count > 30)
        #expect(Set(first).isSubset(of: [200, 500, 503]))
    }

    @Test func serverErrorsCycle() async throws {
        try await with("server-errors") { server in
            #expect(try await statuses(server, "/categories", count: 4) == [500, 502, 503, 500])
            // One rule for every path: the fifth call is the cycle's second step.
            let (_, bad) = try await HTTP.get(server.url("/api/products/16"))
            #expect(bad.statusCode == 502)
            #expect(bad.value(forHTTPHeaderField: "Content-Type") == "text/html")
            let (_, unavailable) = try await HTTP.get(server.url("/api/products/16"))
            #expect(unavailable.value(forHTTPHeaderField: "Retry-After") == "2")
        }
    }

    @Test func malformedJSON() async throws {
        try await with("malformed-json") { server in
            let (menu, response) = try await HTTP.get(server.url("/menu"))
            #expect(response.statusCode == 200)
            #expect((try? JSONSerialization.jsonObject(with: menu)) == nil)
            let (detail, _) = try await HTTP.get(server.url("/api/products/16"))
            let object = try #require(try HTTP.json(detail) as? [String: Any])
            #expect(object["id"] == nil)
            #expect(object["data"] != nil)
            let (image, _) = try await HTTP.get(server.url("/images/1.png"))
            _ = try PNGCheck.validate(image)
        }
    }

    @Test(arguments: ["truncated-body", "connection-reset", "malformed-http"])
    func transportFaultScenariosFailTheClient(name: String) async throws {
        try await with(name) { server in
            #expect(await HTTP.failure(server.url("/menu")) != nil)
            #expect(await HTTP.failure(server.url("/api/products?page_no=1&items_per_page=10")) != nil)
        }
    }

    @Test func hang() async throws {
        try await with("hang") { server in
            // Linux URLSession fails sub-second timeouts at once, so 1 s, and check it waited.
            let (error, elapsed) = await measure { await HTTP.failure(server.url("/categories"), timeout: 1) }
            #expect(error?.code == .timedOut)
            #expect(elapsed >= 0.9)
        }
    }

    @Test func rateLimited() async throws {
        try await with("rate-limited") { server in
            #expect(try await statuses(server, "/menu", count: 8) == [200, 200, 200, 429, 200, 200, 200, 429])
            let (_, response) = try await HTTP.get(server.url("/menu"), headers: [ScenarioEngine.sessionHeader: "other"])
            #expect(response.statusCode == 200)   // another session has its own quota
        }
    }

    @Test func emptyCatalog() async throws {
        try await with("empty-catalog") { server in
            let categories = try object(try await HTTP.get(server.url("/categories")).0)
            #expect((categories["categories"] as? [Any])?.isEmpty == true)
            let menu = try object(try await HTTP.get(server.url("/menu?category=soups")).0)
            #expect((menu["items"] as? [Any])?.isEmpty == true)
            let page = try object(try await HTTP.get(server.url("/api/products?page_no=1&items_per_page=20")).0)
            #expect(page["total_count"] as? Int == 0)
            #expect(try await HTTP.get(server.url("/api/products?page_no=2&items_per_page=20")).1.statusCode == 204)
            // The page says what was asked and agrees with itself (#12).
            let ten = try object(try await HTTP.get(server.url("/api/products?page_no=1&items_per_page=10")).0)
            #expect(ten["items_per_page"] as? Int == 10)
            #expect(ten["last_page"] as? Int == 0)
            #expect(ten["has_next"] as? Bool == false)
            #expect((ten["pages"] as? [Any])?.isEmpty == true)
            for bad in ["page_no=abc&items_per_page=10", "page_no=1&items_per_page=0", "page_no=1&items_per_page=-5"] {
                #expect(try await HTTP.get(server.url("/api/products?" + bad)).1.statusCode == 400, "\(bad)")
            }
        }
    }

    @Test func largeCatalog() async throws {
        try await with("large-catalog") { server in
            let items = try #require(try object(try await HTTP.get(server.url("/menu")).0)["items"] as? [[String: Any]])
            #expect(items.count == 300)
            #expect(Set(items.compactMap { $0["id"] as? Int }).count == 300)
            let categories = try #require(try object(try await HTTP.get(server.url("/categories")).0)["categories"] as? [Any])
            #expect(categories.count == 300)
            // Open Market pages agree with their counts and with detail (#12).
            let page = try object(try await HTTP.get(server.url("/api/products?page_no=1&items_per_page=20")).0)
            let products = try #require(page["pages"] as? [[String: Any]])
            #expect(products.count == 20)
            #expect(page["items_per_page"] as? Int == 20)
            let total = try #require(page["total_count"] as? Int)
            #expect(page["last_page"] as? Int == (total + 19) / 20)
            let id = try #require(products.last?["id"] as? Int)
            #expect(try await HTTP.get(server.url("/api/products/\(id)")).1.statusCode == 200)
        }
    }

    @Test func imageFailuresMixFaultsAndSuccessesButLeaveJSONAlone() async throws {
        try await with("image-failures") { server in
            var failures = 0, successes = 0
            for _ in 0..<30 {
                if await HTTP.failure(server.url("/images/1.png")) != nil {
                    failures += 1
                } else {
                    let (_, response) = try await HTTP.get(server.url("/images/1.png"), headers: [ScenarioEngine.scenarioHeader: "happy-path"])
                    #expect(response.statusCode == 200)
                    successes += 1
                }
            }
            #expect(failures > 5)
            let faults = Set(server.engine.journal.entries().compactMap(\.fault))
            #expect(faults.isSubset(of: [.connectionReset, .truncatedBody, .emptyResponse]))
            #expect(faults.count >= 2)
            #expect(try await statuses(server, "/menu", count: 5) == [200, 200, 200, 200, 200])
        }
    }

    @Test func orderFailsThenSucceeds() async throws {
        try await with("order-fails-then-succeeds") { server in
            var statuses: [Int] = []
            for _ in 0..<4 { statuses.append(try await HTTP.post(server.url("/order"), json: #"{"menuIds":[5]}"#).1.statusCode) }
            #expect(statuses == [500, 503, 200, 200])
            let steps = server.engine.journal.entries().compactMap(\.scenarioStep)
            #expect(steps == ["order-fails-then-succeeds/order-first-failure#1", "order-fails-then-succeeds/order-second-failure#1"])
            #expect(server.engine.scenarios.machineStates().states == ["order": "recovered"])
            let client = OpenMarketClient(base: server.address.url)
            var creates: [Int] = []
            for _ in 0..<3 { creates.append(try await client.create().1.statusCode) }
            #expect(creates == [500, 503, 201])
        }
    }

    @Test func slowImages() async throws {
        try await with("slow-images") { server in
            let (data, _) = try await HTTP.get(server.url("/images/4.png"))
            _ = try PNGCheck.validate(data)
            #expect(server.engine.journal.entries().first?.delay == 1.5 * 0.05)
            _ = try await HTTP.get(server.url("/menu"))
            #expect(server.engine.journal.entries().last?.delay == 0)
        }
    }
}

@Suite struct ScenarioSwitchingTests {
    @Test func headerPicksAScenarioPerRequest() async throws {
        try await withServer { server in
            let (_, failing) = try await HTTP.get(server.url("/menu"), headers: [ScenarioEngine.scenarioHeader: "server-errors"])
            #expect(failing.statusCode == 500)
            #expect(try await HTTP.get(server.url("/menu")).1.statusCode == 200)
            let (data, unknown) = try await HTTP.get(server.url("/menu"), headers: [ScenarioEngine.scenarioHeader: "nope"])
            #expect(unknown.statusCode == 400)
            #expect(reason(data).contains("Unknown scenario \"nope\""))
        }
    }

    @Test func adminSwitchesAndResetsAtRuntime() async throws {
        try await withServer { server in
            let list = try object(try await HTTP.get(server.url("/__admin/scenarios")).0)
            #expect(list["current"] as? String == "happy-path")
            #expect((list["scenarios"] as? [[String: Any]])?.count == 20)

            let (_, switched) = try await HTTP.post(server.url("/__admin/scenario"), json: #"{"name":"order-fails-then-succeeds"}"#, method: "PUT")
            #expect(switched.statusCode == 200)
            #expect(try await HTTP.post(server.url("/order"), json: #"{"menuIds":[1]}"#).1.statusCode == 500)
            let state = try object(try await HTTP.get(server.url("/__admin/scenario")).0)
            #expect(state["name"] as? String == "order-fails-then-succeeds")
            #expect((state["states"] as? [String: String])?["order"] == "failed-once")

            _ = try await HTTP.post(server.url("/__admin/scenario/reset"), json: "{}")
            #expect(try await HTTP.post(server.url("/order"), json: #"{"menuIds":[1]}"#).1.statusCode == 500)

            // A session can run its own scenario while the rest stay on the server's.
            _ = try await HTTP.post(server.url("/__admin/scenario"), json: #"{"name":"server-errors","session":"t1"}"#, method: "PUT")
            #expect(try await HTTP.get(server.url("/categories"), headers: [ScenarioEngine.sessionHeader: "t1"]).1.statusCode == 500)
            #expect(try await HTTP.get(server.url("/categories")).1.statusCode == 200)

            let (bad, badResponse) = try await HTTP.post(server.url("/__admin/scenario"), json: #"{"name":"nope"}"#, method: "PUT")
            #expect(badResponse.statusCode == 400)
            #expect(reason(bad).contains("known scenarios"))
        }
    }

    @Test func parallelSessionsOnOneServerDoNotShareState() async throws {
        try await withServer(scenario: "order-fails-then-succeeds") { server in
            try await withThrowingTaskGroup(of: [Int].self) { group in
                for index in 0..<8 {
                    group.addTask {
                        var statuses: [Int] = []
                        for _ in 0..<3 {
                            var request = URLRequest(url: server.url("/order"))
                            request.httpMethod = "POST"
                            request.httpBody = Data(#"{"menuIds":[2]}"#.utf8)
                            request.setValue("session-\(index)", forHTTPHeaderField: ScenarioEngine.sessionHeader)
                            statuses.append(try await HTTP.send(request).1.statusCode)
                        }
                        return statuses
                    }
                }
                for try await statuses in group { #expect(statuses == [500, 503, 200]) }
            }
            let sessions = Set(server.engine.journal.entries().compactMap(\.session))
            #expect(sessions.count == 8)
        }
    }
}

/// #12: under `flaky` (one `/**` rule), `/categories` gets the same outcome sequence
/// whether or not `/menu` calls come between, as the README and the file promise.
@Suite struct FlakyPerRouteTests {
    func categoryStatuses(interleaving: Bool) async throws -> [Int] {
        try await withServer(scenario: "flaky") { server in
            var statuses: [Int] = []
            for index in 0..<40 {
                if interleaving {
                    for _ in 0..<(index % 3) { _ = try await HTTP.get(server.url("/menu")) }
                }
                statuses.append(try await HTTP.get(server.url("/categories")).1.statusCode)
            }
            return statuses
        }
    }

    @Test func categoriesKeepTheirSequenceWhateverMenuDoes() async throws {
        let alone = try await categoryStatuses(interleaving: false)
        let mixed = try await categoryStatuses(interleaving: true)
        #expect(alone == mixed)
        #expect(Set(alone).count > 1, "the sequence should mix outcomes: \(alone)")
    }
}

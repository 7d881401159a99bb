import Foundation
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `mock-server proxy` in front of a second `mock-server` (#16): scenarios, faults and
/// network profiles over real answers, switched at run time, journaled, nothing recorded.
@Suite struct ChaosProxyCLITests {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        // Only bounds a failure (no exchange here waits on purpose): two minutes.
        configuration.timeoutIntervalForRequest = 120
        return URLSession(configuration: configuration)
    }()

    static func send(_ base: String, _ method: String, _ path: String, json: String? = nil,
                     headers: [String: String] = [:]) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if let json {
            request.httpBody = Data(json.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// The journal's entries as (method path, status, answeredBy, scenarioStep).
    static func journal(_ base: String) async throws -> [[String: Any]] {
        let (_, data) = try await send(base, "GET", "/__admin/requests?limit=1000")
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(json["requests"] as? [[String: Any]]).filter { !(($0["path"] as? String) ?? "").hasPrefix("/__admin") }
    }

    @Test func playsScenariosOverARealServersAnswers() async throws {
        try await proxyRun()
    }

    func proxyRun() async throws {
        // The upstream plays the late-2022 Open Market (camelCase pages): the proxy's own
        // fixtures do not, so a camelCase page can only have come from the upstream.
        let upstream = try MockServerProcess(["--port", "0", "--variant", "openmarket-2022-late"])
        let upstreamBase = String(try #require(await upstream.firstLine()).dropFirst("Listening on ".count))
        let proxy = try MockServerProcess(["proxy", "--upstream", upstreamBase, "--port", "0", "--scenario", "order-fails-then-succeeds"])
        let proxyLine = try #require(await proxy.firstLine(), "\(proxy.readAll(proxy.stderr))")
        let base = String(proxyLine.dropFirst("Listening on ".count))

        // A real answer passes through.
        let (pageStatus, page) = try await Self.send(base, "GET", "/api/products?page_no=1&items_per_page=2")
        #expect(pageStatus == 200)
        let pageJSON = try #require(try JSONSerialization.jsonObject(with: page) as? [String: Any])
        #expect(pageJSON["pageNo"] as? Int == 1, "the upstream's late-2022 page: \(String(decoding: page, as: UTF8.self))")

        // The scenario's state machine: two stubbed failures that never reach the upstream,
        // then the upstream's real answer.
        var statuses: [Int] = []
        var last = Data()
        for _ in 0..<3 {
            let (status, data) = try await Self.send(base, "POST", "/order", json: #"{"menuIds": [1, 2]}"#)
            statuses.append(status)
            last = data
        }
        #expect(statuses == [500, 503, 200])
        #expect(String(decoding: last, as: UTF8.self).contains("preparation_time"))
        let upstreamOrders = try await Self.journal(upstreamBase).filter { $0["path"] as? String == "/order" }
        #expect(upstreamOrders.count == 1, "stubs must not reach the upstream: \(upstreamOrders)")

        // A network profile for one request: the real answer, a round trip (Edge's 0.84 s)
        // and the connection's setup later.
        let start = Date()
        let (slowStatus, _) = try await Self.send(base, "GET", "/api/products/1", headers: ["X-Mock-Network": "Edge"])
        #expect(slowStatus == 200)
        #expect(Date().timeIntervalSince(start) >= 0.84)

        // Switched at run time: every real answer now loses half its body.
        let (switched, _) = try await Self.send(base, "PUT", "/__admin/scenario", json: #"{"name": "truncated-body"}"#)
        #expect(switched == 200)
        await #expect(throws: (any Error).self) {
            _ = try await Self.send(base, "GET", "/api/products?page_no=1&items_per_page=2")
        }

        // Every exchange is journaled, with who answered and the scenario step.
        let seen = try await Self.journal(base)
        let summary = seen.map { "\($0["method"] ?? "") \($0["path"] ?? "") \($0["status"] ?? "") \($0["answeredBy"] ?? "-") \($0["scenarioStep"] ?? "-")" }
        #expect(summary == [
            "GET /api/products 200 proxy -",
            "POST /order 500 scenario-stub order-fails-then-succeeds/order-first-failure#1",
            "POST /order 503 scenario-stub order-fails-then-succeeds/order-second-failure#1",
            "POST /order 200 proxy -",
            "GET /api/products/1 200 proxy -",
            "GET /api/products 200 proxy truncated-body/truncate-all#1",
        ], "\(summary)")
        #expect(seen.last?["fault"] as? String == "truncatedBody")
        #expect(seen.first { $0["path"] as? String == "/api/products/1" }?["network"] as? String == "Edge")

        proxy.signal(SIGTERM)
        #expect(await proxy.waitForExit() == 0)
        upstream.signal(SIGTERM)
        _ = await upstream.waitForExit()
    }

    /// `--help` is part of the interface: the proxy's, and `--network` in serve's.
    @Test func helpDescribesTheProxyAndTheNetworkFlag() async throws {
        let (status, help, _) = try await MockServerProcess.run(["proxy", "--help"])
        #expect(status == 0)
        for phrase in ["--upstream <url>", "--scenario <name|file>", "--network <profile>", "X-Mock-Session", "Nothing is recorded"] {
            #expect(help.contains(phrase), "\(phrase) missing from: \(help)")
        }
        let (serveStatus, serveHelp, _) = try await MockServerProcess.run(["serve", "--help"])
        #expect(serveStatus == 0)
        #expect(serveHelp.contains("--network <profile>") && serveHelp.contains("Very Bad Network"), "\(serveHelp)")
    }

    @Test func badArgumentsExitTwo() async throws {
        let (noScheme, _, message) = try await MockServerProcess.run(["proxy", "--upstream", "localhost:8080"])
        #expect(noScheme == 2)
        #expect(message.contains("--upstream must be an http:// or https:// URL"), "\(message)")
        let (badProfile, _, profileMessage) = try await MockServerProcess.run(["proxy", "--upstream", "http://127.0.0.1:1", "--network", "6G"])
        #expect(badProfile == 2)
        #expect(profileMessage.contains("Unknown network profile \"6G\""), "\(profileMessage)")
        let (badScenario, _, scenarioMessage) = try await MockServerProcess.run(["proxy", "--upstream", "http://127.0.0.1:1", "--port", "0", "--scenario", "no-such"])
        #expect(badScenario == 2)
        #expect(scenarioMessage.contains("Unknown scenario \"no-such\""), "\(scenarioMessage)")
    }
}

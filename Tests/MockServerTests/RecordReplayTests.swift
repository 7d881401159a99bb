import Foundation
import MockFixtures
import MockRecording
import MockServer
import BuiltInMockAPIs
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Record through a proxy to a real (mock) upstream, then replay the recording with a
/// server that has no API of its own: every answer must be the upstream's.
@Suite struct RecordReplayTests {
    /// One request of the script, the same bytes every time it is sent.
    struct Call {
        var method = "GET"
        var path: String
        var headers: [String: String] = [:]
        var body: Data?

        func request(_ base: String) -> URLRequest {
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = method
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            request.httpBody = body
            return request
        }
    }

    /// What a client can see of an answer, with the server's own address written `BASE`.
    struct Seen: Equatable, CustomStringConvertible {
        var status: Int
        var headers: [String: String]
        var body: String

        init(_ data: Data, _ response: HTTPURLResponse, base: String) {
            status = response.statusCode
            var headers: [String: String] = [:]
            for (name, value) in response.allHeaderFields {
                guard let name = name as? String, let value = value as? String else { continue }
                if ["connection", "content-length", "keep-alive", "date"].contains(name.lowercased()) { continue }
                headers[name.lowercased()] = value.replacingOccurrences(of: base, with: "BASE")
            }
            self.headers = headers
            let text = String(data: data, encoding: .utf8).map { $0.replacingOccurrences(of: base, with: "BASE") }
            body = text ?? "binary \(data.count) bytes, fnv \(StableHash.hex(StableHash.fnv1a64(bytes: data)))"
        }

        var description: String { "\(status) \(headers) \(body.prefix(200))" }
    }

    static let etagOfImage1: String = {
        let data = (try? Data(contentsOf: MockFixtures.restaurant.appendingPathComponent("images/1.png"))) ?? Data()
        return StaticAsset(name: "1.png", data: data, contentType: "image/png", lastModified: Date()).etag
    }()

    /// Both APIs, reads and writes, an image with and without its validator, errors.
    static func script() -> [Call] {
        let boundary = "Boundary-RecordReplay"
        let multipart = OpenMarketClient.multipart(
            boundary: boundary, params: OpenMarketClient.params(name: "Recorded product"),
            images: [("a.png", OpenMarketClient.image("1.png"), "image/png")])
        let page = "/api/products?page_no=1&items_per_page=3"
        return [
            Call(path: "/categories"),
            Call(path: "/menu"),
            Call(path: "/menu?category=entrees"),
            Call(path: "/images/1.png"),
            Call(path: "/images/1.png", headers: ["If-None-Match": etagOfImage1]),
            Call(method: "POST", path: "/order", headers: ["Content-Type": "application/json"], body: Data(#"{"menuIds":[1,2]}"#.utf8)),
            Call(method: "POST", path: "/order", headers: ["Content-Type": "application/json"], body: Data(#"{"menuIds":[]}"#.utf8)),
            Call(path: page),
            Call(method: "POST", path: "/api/products",
                 headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)", "identifier": OpenMarketClient.vendor1.identifier],
                 body: multipart),
            Call(method: "POST", path: "/api/products",
                 headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)", "identifier": "not-a-vendor"],
                 body: multipart),
            Call(path: page),
            Call(path: "/api/products/127"),
            Call(path: "/nowhere"),
        ]
    }

    func run(_ calls: [Call], against base: String) async throws -> [Seen] {
        var seen: [Seen] = []
        for call in calls {
            let (data, response) = try await HTTP.send(call.request(base))
            seen.append(Seen(data, response, base: base))
        }
        return seen
    }

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func recordThenReplayGivesTheUpstreamsResponses() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Two upstreams from the same fixtures, seed and clock: one asked directly, one behind
        // the recorder (a stopped clock, so creation dates agree too).
        let clock = ManualTimeSource()
        let direct = try await TestServer.start(timeSource: clock)
        let behind = try await TestServer.start(timeSource: clock)
        let recorder = try Recorder(directory: folder, upstream: behind.address.baseURL, matchHeaders: ["identifier"])
        let recording = MockHTTPServer(
            engine: try MockEngine(configuration: EngineConfiguration(fixturesDirectory: folder, scenarioDirectories: [], preloaded: .nothing)),
            proxy: UpstreamProxy(upstream: behind.address.url, recorder: recorder))
        let recordingAddress = try await recording.start()

        let script = Self.script()
        let expected = try await run(script, against: direct.address.baseURL)
        let proxied = try await run(script, against: recordingAddress.baseURL)
        await recording.stop()
        await direct.stop()
        await behind.stop()
        #expect(expected.map(\.status) == [200, 200, 200, 200, 304, 200, 400, 200, 201, 401, 200, 200, 404])
        for (index, (want, got)) in zip(expected, proxied).enumerated() {
            #expect(want == got, "call \(index) \(script[index].method) \(script[index].path) through the recorder")
        }
        // The recorder journaled what it forwarded, marked as answered by the proxy.
        #expect(recording.engine.journal.entries().count == script.count)
        #expect(recording.engine.journal.entries().allSatisfy { $0.answeredBy == "proxy" })
        #expect(await recorder.count == script.count)

        // Replay: a server with no API of its own, only the recording.
        let replayEngine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: folder, scenario: "recorded"))
        #expect(replayEngine.apis.isEmpty)
        let replay = MockHTTPServer(engine: replayEngine)
        let replayAddress = try await replay.start()
        let replayed = try await run(script, against: replayAddress.baseURL)
        for (index, (want, got)) in zip(expected, replayed).enumerated() {
            #expect(want == got, "call \(index) \(script[index].method) \(script[index].path) replayed")
        }
        // After the recorded sequence, a rule keeps giving its last answer.
        let again = try await run([script[10]], against: replayAddress.baseURL)
        #expect(again == [expected[10]])
        // A query the recording never saw is not answered with another query's response.
        let (unseenBody, unseen) = try await HTTP.get(URL(string: replayAddress.baseURL + "/menu?category=soups")!)
        #expect(unseen.statusCode == 404)
        // The 404 names what was recorded nearby.
        let nearest = try #require(try object(unseenBody)["nearestRules"] as? [[String: Any]])
        let named = Set(nearest.prefix(2).compactMap { $0["rule"] as? String })
        #expect(named == ["recorded/GET /menu", "recorded/GET /menu?category=entrees"], "\(nearest)")
        await replay.stop()

        let scenario = try String(contentsOf: recorder.scenarioFile, encoding: .utf8)
        #expect(scenario.contains("{{baseURL}}") == false, "the base URL hole lives in body files, not in the scenario")
        let menu = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("scenarios/recorded").path)
            .filter { $0.hasSuffix("-get-menu.json") }
        #expect(menu.count == 2)
        let allMenu = try String(contentsOf: folder.appendingPathComponent("scenarios/recorded").appendingPathComponent(menu.sorted()[0]), encoding: .utf8)
        #expect(allMenu.contains("\"image_url\":\"{{baseURL}}/images/"))
        #expect(!allMenu.contains(behind.address.baseURL))
    }

    @Test func anUpstreamThatFailsIsA502AndJournaled() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // An upstream that resets every connection (a stopped server's port could be taken
        // by another test's server meanwhile).
        let upstream = try await TestServer.start(scenario: "connection-reset")
        let deadURL = upstream.address.url
        let recorder = try Recorder(directory: folder, upstream: deadURL.absoluteString)
        let server = MockHTTPServer(
            engine: try MockEngine(configuration: EngineConfiguration(fixturesDirectory: folder, scenarioDirectories: [], preloaded: .nothing)),
            proxy: UpstreamProxy(upstream: deadURL, timeout: 5, recorder: recorder))
        let address = try await server.start()
        // The proxy gives up on the upstream after 5 s; the client waits longer than the
        // session's 15 s, which one loaded run outlasted before the proxy's request started.
        let (data, response) = try await HTTP.get(URL(string: address.baseURL + "/menu")!, timeout: 60)
        #expect(response.statusCode == 502)
        #expect(reason(data).contains(deadURL.absoluteString))
        // The admin API still answers on the recorder itself.
        let (_, health) = try await HTTP.get(URL(string: address.baseURL + "/__admin/health")!)
        #expect(health.statusCode == 200)
        #expect(server.engine.journal.entries().map(\.status) == [502, 200])
        #expect(await recorder.count == 0, "a failed forward is no upstream answer to replay")
        await server.stop()
        await upstream.stop()
    }
}

import Foundation
import HTTPTypes
import MockFixtures
import MockServer
import MockServerOpenAPI
import OpenAPIRuntime
import BuiltInMockAPIs
import MockCore
import TestSupport
import Testing

/// An engine on the built-in fixtures, playing `scenarios`' first (or the happy path).
func makeEngine(_ scenarios: [Scenario] = [], network: NetworkProfile? = nil) throws -> MockEngine {
    try MockEngine(configuration: EngineConfiguration(
        fixturesDirectory: MockFixtures.directory, scenarioDirectories: [], extraScenarios: scenarios,
        scenario: scenarios.first?.name ?? Scenario.happyPath.name, network: network))
}

/// An engine whose scenario answers every request to `pattern` with `outcome`.
func makeEngine(_ pattern: RequestPattern, always outcome: Outcome) throws -> MockEngine {
    try makeEngine([Scenario(name: "under-test", rules: [Rule("rule", pattern, always: outcome)])])
}

func makeRequest(_ path: String, method: HTTPRequest.Method = .get, headers: HTTPFields = [:]) -> HTTPRequest {
    HTTPRequest(method: method, scheme: nil, authority: nil, path: path, headerFields: headers)
}

let baseURL = URL(string: "http://mock.local")!

func collect(_ body: HTTPBody?) async throws -> Data {
    guard let body else { return Data() }
    return try await Data(ArraySlice(collecting: body, upTo: 16 << 20))
}

/// The URLError code `work` throws, or nil.
func urlErrorCode(_ work: () async throws -> Void) async -> URLError.Code? {
    do {
        try await work()
        return nil
    } catch let error as URLError {
        return error.code
    } catch {
        Issue.record("expected a URLError, got \(error)")
        return nil
    }
}

@Suite struct MockEngineTransportTests {
    @Test func answersFromTheEngineAndJournalsTheRequest() async throws {
        let engine = try makeEngine()
        let transport = MockEngineTransport(engine: engine)
        let (response, body) = try await transport.send(makeRequest("/api/products?page_no=1&items_per_page=2"), body: nil,
                                                        baseURL: baseURL, operationID: "getProducts")
        #expect(response.status.code == 200)
        #expect(response.headerFields[.contentType] == "application/json; charset=utf-8")
        let data = try await collect(body)
        #expect(response.headerFields[.contentLength] == String(data.count))
        let page = try #require(JSONValue(parsing: data))
        #expect(page["pages"]?.arrayValue?.count == 2)
        let entry = try #require(engine.journal.entries().last)
        #expect(entry.request.method == "GET" && entry.request.path == "/api/products")
        #expect(entry.request.query.map(\.name) == ["page_no", "items_per_page"])
        #expect(entry.answeredBy != nil)
        #expect(entry.duration != nil, "the exchange is completed in the journal")
    }

    @Test func sendsTheBodyAndHeadersAsASocketWould() async throws {
        let engine = try makeEngine()
        let transport = MockEngineTransport(engine: engine)
        let body = #"{"menuIds": [1, 2]}"#
        let (response, answer) = try await transport.send(
            makeRequest("/order", method: .post, headers: [.contentType: "application/json", HTTPField.Name("X-Trace")!: "t-1"]),
            body: HTTPBody(body), baseURL: baseURL, operationID: "submitOrder")
        #expect(response.status.code == 200)
        #expect(JSONValue(parsing: try await collect(answer))?["preparation_time"]?.intValue != nil)
        let entry = try #require(engine.journal.entries().last)
        #expect(entry.request.body.data == Data(body.utf8))
        #expect(entry.request.headers["Content-Length"] == String(body.utf8.count))
        #expect(entry.request.headers["x-trace"] == "t-1")
    }

    @Test func theBaseURLsPathPrefixesTheRequestAndAdminCallsWork() async throws {
        let transport = MockEngineTransport(engine: try makeEngine())
        let (response, body) = try await transport.send(makeRequest("/health"), body: nil,
                                                        baseURL: URL(string: "http://mock.local/__admin/")!, operationID: "health")
        #expect(response.status.code == 200)
        #expect(JSONValue(parsing: try await collect(body))?["status"] == "ok")
    }

    static let faults: [(Fault, URLError.Code)] = [
        (.connectionReset, .networkConnectionLost), (.emptyResponse, .networkConnectionLost),
        (.malformedChunk, .cannotParseResponse), (.randomDataThenClose, .cannotParseResponse),
    ]

    @Test(arguments: faults)
    func aFaultIsTheErrorURLSessionGives(fault: Fault, code: URLError.Code) async throws {
        let engine = try makeEngine(.get("/categories"), always: .fault(fault))
        let transport = MockEngineTransport(engine: engine)
        let thrown = await urlErrorCode { _ = try await transport.send(makeRequest("/categories"), body: nil, baseURL: baseURL, operationID: "c") }
        #expect(thrown == code)
        #expect(engine.journal.entries().last?.fault == fault)
    }

    @Test func aTruncatedBodyArrivesHalfThenTheConnectionIsLost() async throws {
        let transport = MockEngineTransport(engine: try makeEngine(.get("/menu"), always: .fault(.truncatedBody)))
        let (response, body) = try await transport.send(makeRequest("/menu"), body: nil, baseURL: baseURL, operationID: "menu")
        #expect(response.status.code == 200)
        let promised = try #require(response.headerFields[.contentLength].flatMap(Int.init))
        var received = 0
        let thrown = await urlErrorCode {
            for try await chunk in try #require(body) { received += chunk.count }
        }
        #expect(thrown == .networkConnectionLost)
        #expect(received == promised / 2)
    }

    @Test func aDelayIsWaitedOnTheClock() async throws {
        let clock = VirtualClock()
        let transport = MockEngineTransport(engine: try makeEngine(.get("/categories"), always: Outcome.simulator.delayed(.fixed(2.5))), clock: clock)
        let (response, _) = try await transport.send(makeRequest("/categories"), body: nil, baseURL: baseURL, operationID: "c")
        #expect(response.status.code == 200)
        #expect(clock.slept == .seconds(2.5))
    }

    @Test func aHangOrADelayPastTheTimeoutTimesOutAfterTheTimeout() async throws {
        for outcome in [Outcome.fault(.hang), Outcome.simulator.delayed(.fixed(90))] {
            let clock = VirtualClock()
            let transport = MockEngineTransport(engine: try makeEngine(.get("/menu"), always: outcome), timeout: .seconds(5), clock: clock)
            let thrown = await urlErrorCode { _ = try await transport.send(makeRequest("/menu"), body: nil, baseURL: baseURL, operationID: "menu") }
            #expect(thrown == .timedOut)
            #expect(clock.slept == .seconds(5))
        }
    }

    @Test func aThrottledBodyComesInPacedChunks() async throws {
        let clock = VirtualClock()
        let engine = try makeEngine(.get("/menu"), always: Outcome.simulator.throttled(.bytesPerSecond(1000, chunkSize: 500)))
        let transport = MockEngineTransport(engine: engine, clock: clock)
        let (_, body) = try await transport.send(makeRequest("/menu"), body: nil, baseURL: baseURL, operationID: "menu")
        #expect(clock.slept == .zero, "the head comes at once")
        var chunks: [Int] = []
        for try await chunk in try #require(body) { chunks.append(chunk.count) }
        let total = chunks.reduce(0, +)
        #expect(total > 1000)
        #expect(chunks.dropLast().allSatisfy { $0 == 500 })
        #expect(clock.slept == .seconds(0.5) * (chunks.count - 1))
        #expect(engine.journal.entries().last?.duration != nil)
    }

    /// A profile's upload time, round trip and downlink pace add up to the exchange's time.
    @Test func aNetworkProfileTakesItsTime() async throws {
        let profile = NetworkProfile(name: "slow", downlinkBitsPerSecond: 80_000, uplinkBitsPerSecond: 8_000, downlinkDelay: 0.1, uplinkDelay: 0.1)
        let clock = VirtualClock()
        let transport = MockEngineTransport(engine: try makeEngine(network: profile), clock: clock)
        let order = #"{"menuIds": [1], "note": ""# + String(repeating: "x", count: 500) + #""}"#
        let (_, body) = try await transport.send(makeRequest("/order", method: .post, headers: [.contentType: "application/json"]),
                                                 body: HTTPBody(order), baseURL: baseURL, operationID: "submitOrder")
        let size = try await collect(body).count
        let requestSize = order.utf8.count
        // 0.2 s round trip, the upload at 1 KB/s, the body at 10 KB/s.
        let expected = 0.2 + Double(requestSize) / 1000 + Double(size) / 10_000
        let slept = clock.slept.components
        let seconds = Double(slept.seconds) + Double(slept.attoseconds) / 1e18
        #expect(abs(seconds - expected) < 0.001, "slept \(seconds) s, expected \(expected) s")
    }

    /// On a clock the test moves: a delay of an hour, under a timeout of a minute. The
    /// transport is waiting (the clock says so) when the task is cancelled; the clock never
    /// moves, so neither the delay nor the timeout can end the wait: the cancel does, as
    /// URLSession's does (`.cancelled`, not `.timedOut`).
    @Test(.timeLimit(.minutes(5))) func cancellingTheTaskEndsADelayAsURLSessionDoes() async throws {
        let clock = TestClock()
        let transport = MockEngineTransport(engine: try makeEngine(.get("/menu"), always: Outcome.simulator.delayed(.fixed(3600))),
                                            timeout: .seconds(60), clock: clock)
        let sending = Task {
            await urlErrorCode { _ = try await transport.send(makeRequest("/menu"), body: nil, baseURL: baseURL, operationID: "menu") }
        }
        await clock.sleepers(atLeast: 1)
        sending.cancel()
        #expect(await sending.value == .cancelled)
        #expect(clock.elapsedSeconds == 0, "no time passed: the cancel ended the wait")
        #expect(clock.sleeperCount == 0, "the wait is over")
    }

    @Test func redirectsAreFollowedAsURLSessionFollowsThem() async throws {
        let engine = try makeEngine([Scenario(name: "moves", rules: [
            Rule("see-other", .post("/go"), always: .status(303, headers: ["Location": "/categories"])),
            Rule("loop", .get("/loop"), always: .status(302, headers: ["Location": "/loop"])),
            Rule("away", .get("/away"), always: .status(301, headers: ["Location": "http://elsewhere.example/menu"])),
        ])])
        let transport = MockEngineTransport(engine: engine)
        let (response, _) = try await transport.send(makeRequest("/go", method: .post), body: HTTPBody("x"), baseURL: baseURL, operationID: "go")
        #expect(response.status.code == 200)
        let seen = engine.journal.entries().suffix(2).map { "\($0.request.method) \($0.request.path) \($0.request.body.size)" }
        #expect(seen == ["POST /go 1", "GET /categories 0"])
        #expect(await urlErrorCode { _ = try await transport.send(makeRequest("/loop"), body: nil, baseURL: baseURL, operationID: "l") } == .httpTooManyRedirects)
        #expect(await urlErrorCode { _ = try await transport.send(makeRequest("/away"), body: nil, baseURL: baseURL, operationID: "a") } == .cannotConnectToHost)
    }
}

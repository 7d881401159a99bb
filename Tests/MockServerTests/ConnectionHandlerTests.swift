import Foundation
import Logging
import MockFixtures
import NIOCore
import NIOEmbedded
import NIOHTTP1
import MockCore
import Testing
@_spi(Fuzzing) @testable import MockServer

/// The connection's handlers on an `EmbeddedChannel`: bytes in, bytes out, time on the
/// loop's own clock (`advanceTime`), no socket. Each test drives one transition the server
/// carries out and reads what a client would see.
@Suite struct ConnectionHandlerTests {
    typealias Connection = EmbeddedConnection

    static func get(_ path: String, _ extra: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\(extra)\r\n"
    }

    static func statuses(_ text: String) -> [Int] {
        text.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
    }

    @Test func aRequestIsAnsweredAndJournaledOnceWithItsEnd() throws {
        let connection = try Connection()
        try connection.send(Self.get("/menu"))
        let answer = try connection.written()
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(answer.contains("\"items\""))
        let entries = connection.engine.journal.entries()
        #expect(entries.count == 1)
        #expect(entries.first?.answeredBy == "restaurant.menu")
        #expect(entries.first?.duration != nil, "the answer's end was reported through its exchange")
        #expect(connection.isOpen)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let connection = try Connection()
        try connection.send(Self.get("/menu") + Self.get("/categories") + Self.get("/nowhere"))
        let text = try connection.written()
        #expect(Self.statuses(text) == [200, 200, 404])
        let menu = try #require(text.range(of: "\"items\""))
        let categories = try #require(text.range(of: "\"categories\""))
        #expect(menu.lowerBound < categories.lowerBound)
        #expect(connection.engine.journal.entries().map(\.request.path) == ["/menu", "/categories", "/nowhere"])
    }

    @Test func aDelayedAnswerWaitsOnTheLoopsClockAndHoldsTheQueue() throws {
        let slow = Scenario(name: "slow", rules: [Rule("slow", .get("/menu"), always: Outcome.simulator.delayed(.fixed(2)))])
        let connection = try Connection(scenarios: [slow])
        try connection.send(Self.get("/menu") + Self.get("/categories"))
        #expect(try connection.written().isEmpty)
        let reads = connection.reads.reads
        connection.channel.read()
        #expect(connection.reads.reads == reads, "a queued request holds reads")
        connection.advance(1.9)
        #expect(try connection.written().isEmpty)
        connection.advance(0.2)
        #expect(Self.statuses(try connection.written()) == [200, 200], "the delayed answer, then the queued one")
        #expect(connection.reads.reads == reads + 1, "the withheld read once the queue drained")
    }

    @Test func aThrottledBodyArrivesInPartsOverTime() throws {
        let throttled = Scenario(name: "drip", rules: [
            Rule("drip", .get("/menu"), always: Outcome.simulator.throttled(.bytesPerSecond(1000, chunkSize: 500))),
        ])
        let connection = try Connection(scenarios: [throttled])
        try connection.send(Self.get("/menu"))
        let first = try connection.written()
        #expect(first.hasPrefix("HTTP/1.1 200 OK"))
        let length = try #require(first.components(separatedBy: "Content-Length: ").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) })
        let headEnd = try #require(first.range(of: "\r\n\r\n")).upperBound
        #expect(first[headEnd...].utf8.count == 500, "the first part at once")
        var received = 500
        for _ in 0..<100 where received < length {
            connection.advance(0.5)
            received += try connection.written().utf8.count
        }
        #expect(received == length)
        #expect(connection.engine.journal.entries().first?.duration != nil)
    }

    @Test func aSlowHeadGets408WhenTheHeadTimeoutPasses() throws {
        let connection = try Connection(limits: ConnectionLimits(headTimeout: .seconds(3)))
        try connection.send("GET /menu HTTP/1.1\r\nHost: x\r\n")
        connection.advance(2.9)
        #expect(try connection.written().isEmpty)
        connection.advance(0.2)
        let answer = try connection.written()
        #expect(Self.statuses(answer) == [408])
        #expect(answer.contains("did not arrive within 3 s"))
        #expect(answer.contains("Connection: close"))
        #expect(!connection.isOpen)
        #expect(connection.engine.journal.entries().map(\.request.method) == ["INCOMPLETE"])
    }

    @Test func anIdleConnectionClosesAfterTheIdleTimeout() throws {
        let connection = try Connection(limits: ConnectionLimits(idleTimeout: .seconds(5)))
        try connection.send(Self.get("/menu"))
        _ = try connection.written()
        connection.advance(4.9)
        #expect(connection.isOpen)
        connection.advance(0.2)
        #expect(!connection.isOpen)
        #expect(try connection.written().isEmpty, "an idle close writes nothing")
    }

    @Test func aStalledBodyGets408() throws {
        let connection = try Connection(limits: ConnectionLimits(idleTimeout: .seconds(5)))
        try connection.send("POST /order HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
        connection.advance(5.1)
        let answer = try connection.written()
        #expect(Self.statuses(answer) == [408])
        #expect(answer.contains("stopped arriving for 5 s"))
        #expect(connection.engine.journal.entries().map(\.request.path) == ["/order"], "journaled as the request it was")
        #expect(!connection.isOpen)
    }

    @Test func aHeadPastItsLimitGets431() throws {
        let connection = try Connection(limits: ConnectionLimits(maxHeadSize: 256))
        try? connection.send("GET /menu HTTP/1.1\r\nX-Big: \(String(repeating: "a", count: 400))\r\n\r\n")
        let answer = try connection.written()
        #expect(Self.statuses(answer) == [431])
        #expect(!connection.isOpen)
        #expect(connection.engine.journal.entries().count == 1)
    }

    @Test func aBodyPastTheLimitGets413AndTheConnectionCloses() throws {
        let connection = try Connection(maxBody: 8)
        try connection.send("POST /order HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\n\r\n01234567890123456789")
        let answer = try connection.written()
        #expect(Self.statuses(answer) == [413])
        #expect(answer.contains("\"limit\":8"))
        #expect(!connection.isOpen)
        #expect(connection.engine.journal.entries().first?.status == 413)
    }

    @Test func malformedHTTPGets400() throws {
        let connection = try Connection()
        try? connection.send("GARBAGE\r\n\r\n")
        let answer = try connection.written()
        #expect(Self.statuses(answer) == [400])
        #expect(answer.contains("Malformed HTTP request"))
        #expect(!connection.isOpen)
        #expect(connection.engine.journal.entries().map(\.request.method) == ["INVALID"])
    }

    @Test func aStoppingServerClosesAnIdleConnectionAndFinishesAnAnswerWithConnectionClose() throws {
        let idle = try Connection()
        idle.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(!idle.isOpen)

        let slow = Scenario(name: "slow", rules: [Rule("slow", .get("/menu"), always: Outcome.simulator.delayed(.fixed(1)))])
        let answering = try Connection(scenarios: [slow])
        try answering.send(Self.get("/menu"))
        answering.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(answering.isOpen, "the answer under way finishes")
        answering.advance(1.1)
        let answer = try answering.written()
        #expect(Self.statuses(answer) == [200])
        #expect(answer.contains("Connection: close"))
        #expect(!answering.isOpen)
    }

    @Test(arguments: [Fault.truncatedBody, .malformedChunk, .randomDataThenClose, .emptyResponse])
    func aFaultShowsOnTheWireAndClosesTheConnection(fault: Fault) throws {
        let faulty = Scenario(name: "faulty", rules: [Rule("f", .get("/menu"), always: Outcome(fault: fault))])
        let connection = try Connection(scenarios: [faulty])
        try connection.send(Self.get("/menu") + Self.get("/categories"))
        let raw = try connection.writtenBytes()
        let bytes = String(decoding: raw, as: UTF8.self)
        switch fault {
        case .truncatedBody:
            let length = try #require(bytes.components(separatedBy: "Content-Length: ").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) })
            let headEnd = try #require(bytes.range(of: "\r\n\r\n")).upperBound
            #expect(bytes[headEnd...].utf8.count < length, "less body than the head promised")
        case .malformedChunk:
            #expect(bytes.contains("Transfer-Encoding: chunked") && bytes.contains("ZZZ; not-a-size"))
        case .randomDataThenClose:
            #expect(raw.count == 256 && !bytes.hasPrefix("HTTP/"))
        case .emptyResponse:
            #expect(bytes.isEmpty)
        default:
            Issue.record("not a fault of this test")
        }
        #expect(!connection.isOpen)
        let entries = connection.engine.journal.entries()
        #expect(entries.first?.fault == fault)
        #expect(entries.count == 2, "the pipelined request is journaled as abandoned, never lost")
        #expect(entries.last?.status == 499)
    }

    @Test func aHangWritesNothingAndKeepsTheConnectionOpen() throws {
        let hanging = Scenario(name: "hang", rules: [Rule("h", .get("/menu"), always: Outcome(fault: .hang))])
        let connection = try Connection(scenarios: [hanging])
        try connection.send(Self.get("/menu"))
        connection.advance(3_600)
        #expect(try connection.written().isEmpty)
        #expect(connection.isOpen)
    }

    @Test func aClientThatLeavesMidRequestIsJournaledAs499() throws {
        let connection = try Connection()
        try connection.send("POST /order HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
        try connection.channel.close().wait()
        let entries = connection.engine.journal.entries()
        #expect(entries.map(\.status) == [499])
        #expect(entries.first?.request.path == "/order")
    }

    @Test func aHeadCutByTheCloseIsJournaledAsMalformed() throws {
        let connection = try Connection()
        try connection.send("GET /me")
        try connection.channel.close().wait()
        let entries = connection.engine.journal.entries()
        #expect(entries.map(\.status) == [400])
        #expect(entries.first?.request.method == "INVALID")
    }

    @Test func aHalfConnectLineCutByTheCloseIsJournaledAsMalformed() throws {
        let connection = try Connection(proxyToken: .some(nil))
        try connection.send("CONNECT api.exam")
        try connection.channel.close().wait()
        #expect(connection.engine.journal.entries().map(\.status) == [400])
    }

    @Test func aConnectionClosedWithNothingSentJournalsNothing() throws {
        let connection = try Connection()
        try connection.channel.close().wait()
        #expect(connection.engine.journal.entries().isEmpty)
    }

    @Test func anUnwritableChannelHoldsTheNextRequestUntilItDrains() throws {
        let connection = try Connection()
        connection.channel.isWritable = false
        try connection.send(Self.get("/menu") + Self.get("/categories"))
        #expect(Self.statuses(try connection.written()) == [200], "the second waits for writability")
        connection.channel.isWritable = true
        connection.channel.pipeline.fireChannelWritabilityChanged()
        #expect(Self.statuses(try connection.written()) == [200])
    }

    @Test func anUplinkProfileAnswersOnlyOnceItCarriedTheBody() throws {
        let connection = try Connection()
        // A 8 kbit/s uplink: 1,000 bytes take 1 s.
        connection.engine.network.set(NetworkProfile(name: "slow-up", uplinkBitsPerSecond: 8_000), session: "up")
        let body = String(repeating: "x", count: 1_000)
        try connection.send("POST /order HTTP/1.1\r\nHost: x\r\nX-Mock-Session: up\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n\(body)")
        #expect(try connection.written().isEmpty)
        connection.advance(0.9)
        #expect(try connection.written().isEmpty)
        connection.advance(0.2)
        #expect(!Self.statuses(try connection.written()).isEmpty)
    }

    @Test func headersThatCannotBeWrittenBecomeA500() throws {
        let connection = try Connection(source: ClosureResponder { _ in ResponsePlan(status: 200, headers: ["X-Bad": "a\r\nInjected: yes"], answeredBy: "bad") })
        try connection.send(Self.get("/anything"))
        let answer = try connection.written()
        #expect(Self.statuses(answer) == [500])
        #expect(!answer.contains("Injected: yes\r\n"))
    }

    @Test func anAbsoluteFormTargetIsAnsweredWithTheBaseURLItNames() throws {
        let connection = try Connection()
        try connection.send("GET http://market-training.yagom-academy.kr/api/products?page_no=1&items_per_page=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = try connection.written()
        #expect(Self.statuses(answer) == [200])
        let entry = try #require(connection.engine.journal.entries().first)
        #expect(entry.request.path == "/api/products")
        #expect(entry.request.baseURL == "http://market-training.yagom-academy.kr")
    }

    // MARK: The forward proxy's handler

    @Test func aConnectToAMappedHostBecomesATunnelAnsweredHere() throws {
        let connection = try Connection(proxyToken: .some(nil))
        try connection.send("CONNECT market-training.yagom-academy.kr:443 HTTP/1.1\r\nHost: market-training.yagom-academy.kr:443\r\n\r\n")
        #expect(try connection.written() == ForwardProxyHandler.connectionEstablished)
        connection.loop.run()
        let pipeline = connection.channel.pipeline.syncOperations
        #expect((try? pipeline.handler(type: TunnelStart.self)) != nil)
        #expect((try? pipeline.handler(type: HTTPConnectionHandler.self)) == nil)
        #expect((try? pipeline.handler(type: ForwardProxyHandler.self)) == nil)
        #expect((try? pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)) == nil)
        #expect(connection.engine.journal.entries().map(\.answeredBy) == ["proxy.connect"])
    }

    @Test func aConnectToAnotherHostIsRefusedWithAReason() throws {
        let connection = try Connection(proxyToken: .some(nil))
        try connection.send("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        let answer = try connection.written()
        #expect(Self.statuses(answer) == [403])
        #expect(answer.contains("example.com is not a host the mock answers to"))
        #expect(!connection.isOpen)
        #expect(connection.engine.journal.entries().map(\.status) == [403])
    }

    @Test func theProxyTokenIsAskedForAndNeverJournaled() throws {
        let refused = try Connection(proxyToken: "secret")
        try refused.send("CONNECT market-training.yagom-academy.kr:443 HTTP/1.1\r\n\r\n")
        let answer = try refused.written()
        #expect(Self.statuses(answer) == [407])
        #expect(answer.contains("Proxy-Authenticate: Basic realm=\"mock-server\""))

        let allowed = try Connection(proxyToken: "secret")
        try allowed.send("GET http://market-training.yagom-academy.kr/api/products/1 HTTP/1.1\r\nProxy-Authorization: Bearer secret\r\n\r\n")
        #expect(Self.statuses(try allowed.written()) == [200])
        let entry = try #require(allowed.engine.journal.entries().first)
        #expect(!entry.request.headers.contains("Proxy-Authorization"))
        #expect(entry.request.baseURL == "http://market-training.yagom-academy.kr")
    }

    @Test func aMalformedConnectTargetGets400() throws {
        let connection = try Connection(proxyToken: .some(nil))
        try connection.send("CONNECT no-port HTTP/1.1\r\n\r\n")
        let answer = try connection.written()
        #expect(Self.statuses(answer) == [400])
        #expect(answer.contains("Malformed CONNECT request"))
    }

    @Test func aConnectAfterAnAnswerUnderWayWaitsForIt() throws {
        let slow = Scenario(name: "slow", rules: [Rule("slow", .get("/menu"), always: Outcome.simulator.delayed(.fixed(1)))])
        let connection = try Connection(scenarios: [slow], proxyToken: .some(nil))
        try connection.send(Self.get("/menu") + "CONNECT market-training.yagom-academy.kr:443 HTTP/1.1\r\n\r\n")
        #expect(try connection.written().isEmpty, "the tunnel waits for the answer before it")
        connection.advance(1.1)
        let text = try connection.written()
        let answer = try #require(text.range(of: "HTTP/1.1 200 OK"))
        let tunnel = try #require(text.range(of: ForwardProxyHandler.connectionEstablished))
        #expect(answer.lowerBound < tunnel.lowerBound)
    }
}

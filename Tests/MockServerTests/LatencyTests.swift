import Foundation
import NIOCore
import MockCore
import Testing
@testable import MockServer

/// Delays and throttles as a client sees them, on the connection's event loop clock
/// (`EmbeddedConnection`): an answer is due at an exact moment of loop time, never a
/// millisecond early and never late, however busy the machine. The benchmark reports
/// real percentiles; `aDelayOverARealSocketIsNeverEarly` is the end-to-end check.
@Suite struct DelayAndThrottleTests {
    static let timing = Scenario(name: "timing", rules: [
        Rule("slow-categories", .get("/categories"), always: Outcome.simulator.delayed(.fixed(0.3))),
        Rule("rate-image", .get("/images/2.png"), always: Outcome.simulator.throttled(.bytesPerSecond(2000, chunkSize: 208))),
        Rule("dribble-image", .get("/images/3.png"), always: Outcome.simulator.throttled(.dribble(duration: 0.6, chunks: 6))),
        Rule("delayed-2s", .get("/menu"), always: Outcome.simulator.delayed(.fixed(2))),
    ])

    @Test func aFixedDelayIsMetToTheMillisecond() throws {
        let connection = try EmbeddedConnection(scenarios: [Self.timing])
        for _ in 0..<3 {
            try connection.send(getRequest("/categories"))
            let (response, milliseconds) = try #require(try connection.wholeAnswer(within: 1))
            #expect(response.status == 200)
            #expect(milliseconds == 300, "answered after \(milliseconds) ms of a 300 ms delay")
        }
        #expect(connection.engine.journal.entries().map(\.delay) == [0.3, 0.3, 0.3])
    }

    @Test func aBytesPerSecondThrottlePacesTheBody() throws {
        let connection = try EmbeddedConnection(scenarios: [Self.timing])
        for _ in 0..<3 {
            try connection.send(getRequest("/images/2.png"))
            let (response, milliseconds) = try #require(try connection.wholeAnswer(within: 2))
            // 832 bytes in 208-byte chunks at 2,000 B/s: 3 pauses of 104 ms.
            _ = try PNGCheck.validate(response.body)
            #expect(response.body.count == 832)
            #expect(milliseconds == 312, "the body was whole after \(milliseconds) ms")
        }
    }

    @Test func aDribbleSpreadsTheBodyOverTheDuration() throws {
        for _ in 0..<3 {
            let connection = try EmbeddedConnection(scenarios: [Self.timing])
            try connection.send(getRequest("/images/3.png", "Connection: close\r\n"))
            let (response, milliseconds) = try #require(try connection.wholeAnswer(within: 2))
            _ = try PNGCheck.validate(response.body)
            #expect(milliseconds == 500, "6 chunks, 5 pauses of 100 ms: whole after \(milliseconds) ms")
            #expect(!connection.isOpen)
        }
    }

    @Test func aTimeScaleShrinksEveryDelay() throws {
        let connection = try EmbeddedConnection(scenarios: [Self.timing], timeScale: 0.01)
        try connection.send(getRequest("/menu"))
        let (response, milliseconds) = try #require(try connection.wholeAnswer(within: 1))
        #expect(response.status == 200)
        #expect(milliseconds == 20, "2 s scaled by 0.01, answered after \(milliseconds) ms")
        #expect(connection.engine.journal.entries().last?.delay == 0.02)
    }

    /// 1,000 connections of one loop wait on a 2 s delay; an undelayed request on another
    /// connection of the same loop is answered at once, and every delayed one exactly on time.
    @Test func aThousandDelayedAnswersDoNotHoldUpAFastOne() throws {
        let server = try EmbeddedServer(scenarios: [Self.timing])
        let delayed = try (0..<1000).map { _ in try server.connect() }
        for connection in delayed { try connection.send(getRequest("/menu", "Connection: close\r\n")) }
        #expect(server.engine.journal.totalCount == 1000)
        #expect(server.delays.count == 1000, "every delayed answer waits in the loop's queue")

        let fast = try server.connect()
        try fast.send(getRequest("/healthChecker"))
        #expect(statuses(try fast.written()) == [200], "answered before the clock moved")

        server.advance(1.999)
        #expect(try delayed.allSatisfy { try $0.written().isEmpty }, "no delayed answer is early")
        server.advance(0.001)
        let answers = try delayed.map { try $0.written() }
        #expect(answers.allSatisfy { $0.hasPrefix("HTTP/1.1 200") }, "every delayed answer is out at 2 s")
        #expect(delayed.allSatisfy { !$0.isOpen })
        #expect(server.delays.count == 0)
    }

    /// End to end over a real socket: a 2 s delay is never early, measured by the client's
    /// own thread. The upper bound is a margin a loaded 2-core machine cannot eat: 60 s on
    /// top of the delay (the busiest full run seen here held an answer a few seconds).
    @Test func aDelayOverARealSocketIsNeverEarly() async throws {
        try await withServer(scenarios: [Self.timing], scenario: "timing") { server in
            let connection = try RawConnection(port: server.port)
            let (read, seconds) = await connection.exchange("GET /menu HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            #expect(read.responses.first?.status == 200)
            #expect(seconds >= 2, "answered after \(seconds) s of a 2 s delay")
            #expect(seconds < 62, "answered after \(seconds) s of a 2 s delay")
            #expect(server.engine.journal.entries().last?.delay == 2)
        }
    }
}

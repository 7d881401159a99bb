import Foundation
import Scenarios
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Delays and throttles measured from a real client. The tolerance: never early (every
/// attempt), and at most 0.5 s late on the best of three attempts — lateness from a
/// momentarily busy 2-core machine is transient, a late engine is late every time. The
/// benchmark reports real percentiles.
@Suite(.serialized) struct LatencyEndToEndTests {
    static let lateTolerance = 0.5

    static let timing = Scenario(name: "timing", rules: [
        Rule("slow-categories", .get("/categories"), always: Outcome.simulator.delayed(.fixed(0.3))),
        Rule("rate-image", .get("/images/2.png"), always: Outcome.simulator.throttled(.bytesPerSecond(2000, chunkSize: 208))),
        Rule("dribble-image", .get("/images/3.png"), always: Outcome.simulator.throttled(.dribble(duration: 0.6, chunks: 6))),
        Rule("delayed-2s", .get("/menu"), always: Outcome.simulator.delayed(.fixed(2))),
    ])

    @Test func fixedDelayIsMetWithinTolerance() async throws {
        try await withTestGate(exclusive: true) { try await withServer(scenarios: [Self.timing], scenario: "timing") { server in
            var times: [TimeInterval] = []
            for _ in 0..<3 {
                let ((_, response), elapsed) = try await measure { try await HTTP.get(server.url("/categories")) }
                #expect(response.statusCode == 200)
                #expect(elapsed >= 0.3)
                times.append(elapsed)
            }
            #expect(times.min()! < 0.3 + Self.lateTolerance, "\(times)")
            #expect(server.engine.journal.entries().allSatisfy { $0.delay == 0.3 })
        } }
    }

    @Test func bytesPerSecondThrottlePacesTheBody() async throws {
        try await withTestGate(exclusive: true) { try await withServer(scenarios: [Self.timing], scenario: "timing") { server in
            var times: [TimeInterval] = []
            for _ in 0..<3 {
                let ((data, _), elapsed) = try await measure { try await HTTP.get(server.url("/images/2.png")) }
                // 832 bytes in 208-byte chunks: 3 pauses of 0.104 s.
                _ = try PNGCheck.validate(data)
                #expect(elapsed >= 0.3)
                times.append(elapsed)
            }
            #expect(times.min()! < 0.312 + Self.lateTolerance, "\(times)")
        } }
    }

    @Test func dribbleSpreadsTheBodyOverTheDuration() async throws {
        try await withTestGate(exclusive: true) { try await withServer(scenarios: [Self.timing], scenario: "timing") { server in
            var times: [TimeInterval] = []
            for _ in 0..<3 {
                let connection = try RawConnection(port: server.port)
                let start = Date()
                connection.send("GET /images/3.png HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                let read = await connection.read()
                let elapsed = Date().timeIntervalSince(start)
                _ = try PNGCheck.validate(try #require(read.responses.first?.body))
                #expect(elapsed >= 0.5)   // 6 chunks, 5 pauses of 0.1 s
                times.append(elapsed)
            }
            #expect(times.min()! < 0.5 + Self.lateTolerance, "\(times)")
        } }
    }

    @Test func timeScaleShrinksEveryDelay() async throws {
        try await withTestGate(exclusive: true) { try await withServer(scenarios: [Self.timing], scenario: "timing", timeScale: 0.01) { server in
            // 20 ms scaled, 2 s not: judged on an attempt the shared pool answered within
            // 0.25 s each time (a request waits for it a few times).
            guard let elapsed = try await onAnsweringPool(margin: 0.25, {
                try await measure { try await HTTP.get(server.url("/menu")) }.1
            }) else { return }
            #expect(elapsed < 1)
            #expect(server.engine.journal.entries().last?.delay == 0.02)
        } }
    }

    /// 1,000 connections wait on a 2 s delay; an undelayed request on another connection
    /// is answered at once, and every delayed one arrives on time.
    @Test func thousandDelayedResponsesDoNotHoldUpAFastOne() async throws {
        try await withTestGate(exclusive: true) { try await withServer(scenarios: [Self.timing], scenario: "timing") { server in
            let delayed = Task {
                try await ManyConnections.send("GET /menu HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", count: 1000, port: server.port)
            }
            // Wait until all 1,000 are inside their delay.
            let deadline = Date().addingTimeInterval(30)
            while server.engine.journal.totalCount < 1000 && Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
            #expect(server.engine.journal.totalCount == 1000)
            let ((_, fast), elapsed) = try await measure { try await HTTP.get(server.url("/healthChecker")) }
            #expect(fast.statusCode == 200)
            // Half the 2 s a request held behind the delayed ones would take: room for a busy run.
            #expect(elapsed < 1, "the undelayed request took \(elapsed) s")

            let results = try await delayed.value
            #expect(results.count == 1000)
            #expect(results.allSatisfy { String(decoding: $0.0.prefix(12), as: UTF8.self) == "HTTP/1.1 200" })
            #expect(results.allSatisfy { $0.1 >= 2 })
        } }
    }
}

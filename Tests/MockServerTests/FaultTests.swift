import Foundation
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every transport fault, as a real client sees it: URLSession's error, and the bytes
/// on a raw socket where URLSession hides the difference.
@Suite struct FaultTests {
    static func scenario(_ fault: Fault) -> Scenario {
        Scenario(name: "fault-\(fault.rawValue)", rules: [Rule("all", RequestPattern(path: "/**"), always: Outcome(fault: fault))])
    }

    static let all = Fault.allCases.map(scenario)

    func raw(_ server: TestServer, _ fault: Fault, path: String = "/menu", timeout: TimeInterval = 5) async throws -> RawRead {
        let connection = try RawConnection(port: server.port)
        connection.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(ScenarioEngine.scenarioHeader): fault-\(fault.rawValue)\r\n\r\n")
        return await connection.read(timeout: timeout)
    }

    /// URLSession never succeeds: each fault is an error, never a crash or empty success.
    @Test(arguments: Fault.allCases)
    func urlSessionFailsOnEveryFault(fault: Fault) async throws {
        try await withServer(scenarios: Self.all) { server in
            let (error, elapsed) = await measure {
                await HTTP.failure(server.url("/menu"), headers: [ScenarioEngine.scenarioHeader: "fault-\(fault.rawValue)"],
                                   timeout: fault == .hang ? 1 : 60)
            }
            let code = try #require(error?.code, "\(fault) did not fail")
            switch fault {
            case .hang:
                #expect(code == .timedOut)
                #expect(elapsed >= 0.9, "the client must have waited for its timeout")
            case .connectionReset: #expect(code == .networkConnectionLost)
            default: #expect(code != .timedOut, "\(fault) must fail at once, not time out")
            }
            // The server still serves everyone else.
            #expect(try await HTTP.get(server.url("/categories")).1.statusCode == 200)
            #expect(server.engine.journal.entries().first?.fault == fault)
        }
    }

    @Test func connectionResetIsATCPReset() async throws {
        try await withServer(scenarios: Self.all) { server in
            let read = try await raw(server, .connectionReset)
            #expect(read.end == .reset)
            #expect(read.data.isEmpty)
        }
    }

    @Test func emptyResponseClosesWithoutABytes() async throws {
        try await withServer(scenarios: Self.all) { server in
            let read = try await raw(server, .emptyResponse)
            #expect(read.end == .closed)
            #expect(read.data.isEmpty)
        }
    }

    @Test func truncatedBodyPromisesMoreThanItSends() async throws {
        try await withServer(scenarios: Self.all) { server in
            let read = try await raw(server, .truncatedBody)
            #expect(read.end == .closed)
            let response = try #require(read.responses.first)
            #expect(response.status == 200)
            let promised = try #require(response.header("Content-Length").flatMap(Int.init))
            #expect(response.body.count < promised)
            #expect(response.body.count > 0)
        }
    }

    @Test func malformedChunkHasAnInvalidChunkSize() async throws {
        try await withServer(scenarios: Self.all) { server in
            let read = try await raw(server, .malformedChunk)
            #expect(read.end == .closed)
            #expect(read.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(read.text.contains("Transfer-Encoding: chunked\r\n"))
            let afterHead = try #require(read.text.components(separatedBy: "\r\n\r\n").dropFirst().first)
            let sizeLine = try #require(afterHead.components(separatedBy: "\r\n").first)
            #expect(Int(sizeLine.split(separator: ";").first ?? "", radix: 16) == nil, "chunk size line \(sizeLine) is valid hex")
        }
    }

    @Test func randomDataIsNotHTTPAndIsReproducible() async throws {
        try await withServer(scenarios: Self.all) { server in
            let first = try await raw(server, .randomDataThenClose)
            let second = try await raw(server, .randomDataThenClose)
            #expect(first.end == .closed)
            #expect(first.data.count == 256)
            #expect(!first.text.hasPrefix("HTTP/"))
            #expect(first.data == second.data)
        }
    }

    @Test func hangSendsNothingAndKeepsTheConnectionOpen() async throws {
        try await withServer(scenarios: Self.all) { server in
            let read = try await raw(server, .hang, timeout: 1)
            #expect(read.end == .timedOut)
            #expect(read.data.isEmpty)
        }
    }
}

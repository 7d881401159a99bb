import ContractTests
import Foundation
import MockFixtures
import MockServerTLS
import Testing

/// The WebSocket suite as the tests run it: over sockets, a 2 s timeout and a 2 s margin.
func webSocketConfiguration(transport: ContractTransport = .sockets) -> SuiteConfiguration {
    SuiteConfiguration(fixturesDirectory: MockFixtures.directory, timeout: 2, timeoutMargin: 2, transport: transport, parallelism: 4,
                       tls: TLSSettings())
}

@Suite(.serialized) struct WebSocketContractTests {
    @Test(arguments: [ContractTransport.sockets, .secureSockets])
    func theReferenceClientPassesEveryCheck(transport: ContractTransport) async throws {
        let tls = transport == .secureSockets ? try await NIOWebSocketProvider.trustingTestCA() : nil
        let report = await WebSocketContract.suite(webSocketConfiguration(transport: transport)).run { _ in NIOWebSocketProvider(tls: tls) }
        #expect(report.passed, "\(transport): \(report)")
        #expect(report.results.map(\.id) == ["ws.close", "ws.ping", "ws.after-close", "ws.messages"])
    }

    @Test(arguments: WebSocketDefect.allCases)
    func eachDefectFailsExactlyItsCheck(defect: WebSocketDefect) async throws {
        let report = await WebSocketContract.suite(webSocketConfiguration()).run { _ in NIOWebSocketProvider(defect: defect) }
        let (failing, phrase) = defect.expectation
        #expect(Set(report.failures.map(\.id)) == failing, "\(defect): \(report)")
        let messages = report.failures.compactMap(\.message).joined(separator: "\n")
        #expect(messages.contains(phrase), "\(defect): the failure does not say \"\(phrase)\":\n\(messages)")
    }

    @Test func everyCheckHasADefect() {
        let checks = Set(WebSocketContract.checks(webSocketConfiguration()).map(\.id))
        let covered = WebSocketDefect.allCases.reduce(into: Set<String>()) { $0.formUnion($1.expectation.failing) }
        #expect(checks == covered, "checks without a defect: \(checks.subtracting(covered).sorted())")
    }

    /// A failure names its check and what broke, with the socket's transcript.
    @Test func aFailureNamesTheCheckAndWhatBroke() async throws {
        let report = await WebSocketContract.suite(webSocketConfiguration()).only(["ws.ping"])
            .run { _ in NIOWebSocketProvider(defect: .ignoresPing) }
        let failure = try #require(report.failures.first)
        #expect(failure.id == "ws.ping")
        let message = try #require(failure.message)
        #expect(message.contains("GET /socket"), "\(message)")
        #expect(message.contains("sent ping \"heartbeat 1\""), "the transcript is shown: \(message)")
        #expect("\(report)".contains("ws.ping"), "\(report)")
    }

    /// In process each check says WebSockets need sockets.
    @Test func inProcessEachCheckSaysToUseSockets() async throws {
        let report = await WebSocketContract.suite(webSocketConfiguration(transport: .inProcess)).run { _ in NIOWebSocketProvider() }
        #expect(report.failures.count == 4)
        for failure in report.failures {
            guard case .error(let text) = failure.outcome else {
                Issue.record("\(failure.id) did not stop with an error: \(failure.outcome)")
                continue
            }
            #expect(text.contains("transport: .sockets"), "\(text)")
        }
    }
}

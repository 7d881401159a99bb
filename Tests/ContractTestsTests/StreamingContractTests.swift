import ContractTests
import Foundation
import MockFixtures
import MockServerTLS
import MockCore
import TestSupport
import Testing

/// The streaming suite as the tests run it: in process unless said, a 2 s timeout and a
/// 10 s margin over every transport (on 2 cores beside a build, an in-process timeout has
/// come over 4 s late, and libcurl's over sockets as late; a client that never gives up
/// still fails, after the margin).
func streamingConfiguration(transport: ContractTransport = .inProcess) -> SuiteConfiguration {
    SuiteConfiguration(fixturesDirectory: MockFixtures.directory, timeout: 2, timeoutMargin: 10,
                       transport: transport, parallelism: 4, tls: TLSSettings())
}

/// The checks play the same in process and over the server's sockets: the reference passes
/// and each defect fails exactly its check over each.
@Suite(.serialized) struct StreamingContractTests {
    @Test(arguments: [true, false], ContractTransport.allCases)
    func theReferenceClientPassesEveryCheck(resumes: Bool, transport: ContractTransport) async throws {
        try await TestCA.prepare(transport == .secureSockets)
        let report = await StreamingContract.suite(streamingConfiguration(transport: transport)).run { ReferenceEventStreamClient(context: $0, resumes: resumes) }
        #expect(report.passed, "\(transport): \(report)")
        #expect(report.results.count == 7)
    }

    @Test(arguments: StreamDefect.allCases, [ContractTransport.inProcess, .sockets])
    func eachDefectFailsExactlyItsCheck(defect: StreamDefect, transport: ContractTransport) async throws {
        let report = await StreamingContract.suite(streamingConfiguration(transport: transport)).run { FlawedEventStreamClient(defect: defect, context: $0) }
        let (failing, phrase) = defect.expectation
        let optional = defect.platformDependent(over: transport)
        #expect(Set(report.failures.map(\.id)).subtracting(optional) == failing.subtracting(optional), "\(defect) over \(transport): \(report)")
        let messages = report.failures.compactMap(\.message).joined(separator: "\n")
        #expect(messages.contains(phrase), "\(defect): the failure does not say \"\(phrase)\":\n\(messages)")
    }

    @Test func everyCheckHasADefect() {
        let checks = Set(StreamingContract.checks(streamingConfiguration()).map(\.id))
        let covered = StreamDefect.allCases.reduce(into: Set<String>()) { $0.formUnion($1.expectation.failing) }
        #expect(checks == covered, "checks without a defect: \(checks.subtracting(covered).sorted())")
    }

    /// A failure names its check and what broke, with what the server saw.
    @Test func aFailureNamesTheCheckAndWhatBroke() async throws {
        let report = await StreamingContract.suite(streamingConfiguration()).only(["stream.ending.drop"])
            .run { FlawedEventStreamClient(defect: .treatsDropAsSuccess, context: $0) }
        let failure = try #require(report.failures.first)
        #expect(failure.id == "stream.ending.drop")
        let message = try #require(failure.message)
        #expect(message.contains("the connection was reset after 2 of 4 events, and the client reported the stream finished"), "\(message)")
        #expect(message.contains("GET /events"), "\(message)")
        #expect("\(report)".contains("stream.ending.drop"), "\(report)")
    }
}

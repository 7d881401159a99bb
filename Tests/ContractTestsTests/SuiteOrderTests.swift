import ContractTests
import Foundation
import MockFixtures
import MockCore
import Testing

/// A suite starts the checks that wait on the clock (a hang, a delay) before the others,
/// so a long wait never starts in the last batch; its report keeps the suite's order.
@Suite struct SuiteOrderTests {
    struct NoProvider: Sendable {}
    typealias Check = ContractCheck<NoProvider>

    static func check(_ id: String, _ scenarios: [Scenario] = [], started: Locked<[String]>) -> Check {
        Check(id, .required, id, scenarios: scenarios) { _ in started.withLock { $0.append(id) } }
    }

    @Test func checksThatWaitStartFirst() async throws {
        let started = Locked<[String]>([])
        let hang = Scenario(name: "hang", rules: [Rule("hang", .get("/menu"), always: .fault(.hang))])
        let slow = Scenario(name: "slow", rules: [Rule("slow", .get("/menu"), always: Outcome.simulator.delayed(.fixed(0.5)))])
        let slowByDefault = Scenario(name: "slow-default", defaults: .init(latency: .fixed(0.5)), rules: [])
        let stub = Scenario(name: "stub", rules: [Rule("stub", .get("/menu"), always: .status(500, json: ["error": true]))])
        let throttled = Scenario(name: "throttled", defaults: .init(throttle: .bytesPerSecond(10_000, chunkSize: 512)), rules: [])
        let slowTLS = Scenario(name: "slow-tls", tls: TLSHandshake(fault: .slowHandshake))
        let resetTLS = Scenario(name: "reset-tls", tls: TLSHandshake(fault: .handshakeReset))
        var overEdge = Self.check("i", started: started)
        overEdge.network = .edge
        let checks = [
            Self.check("a", started: started),
            Self.check("b", [stub], started: started),
            Self.check("c", [hang], started: started),
            Self.check("d", started: started),
            Self.check("e", [stub, slow], started: started),
            Self.check("f", [slowByDefault], started: started),
            Self.check("g", [throttled], started: started),
            Self.check("h", [slowTLS], started: started),
            overEdge,
            Self.check("j", [resetTLS], started: started),
        ]
        let configuration = SuiteConfiguration(fixturesDirectory: MockFixtures.directory, parallelism: 1)
        let report = await ContractSuite(name: "order", checks: checks, configuration: configuration).run { _ in NoProvider() }
        #expect(report.passed, "\(report)")
        #expect(started.current == ["c", "e", "f", "g", "h", "i", "a", "b", "d", "j"])
        #expect(report.results.map(\.id) == ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"])
    }
}

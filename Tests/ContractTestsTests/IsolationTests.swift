import ContractTests
import Foundation
import Scenarios
import TestSupport
import Testing

/// A provider whose `categories()` blocks its thread for a while, as a synchronous
/// `Data(contentsOf:)` or a semaphore around a data task does; everything else is the
/// reference provider.
struct ThreadBlockingProvider: RestaurantProvider {
    let reference: ReferenceRestaurantProvider
    let seconds: TimeInterval

    func categories() async throws -> [String] {
        Self.block(seconds)
        return try await reference.categories()
    }

    /// Blocks the calling thread, as blocking I/O does.
    static func block(_ seconds: TimeInterval) {
        let until = Date().addingTimeInterval(seconds)
        while Date() < until { usleep(10_000) }
    }

    func menuItems(category: String) async throws -> [RestaurantItem] { try await reference.menuItems(category: category) }
    func submitOrder(menuIDs: [Int]) async throws -> Int { try await reference.submitOrder(menuIDs: menuIDs) }
    func imageData(from url: URL) async throws -> Data { try await reference.imageData(from: url) }
}

/// Timing checks judge their own provider: neighbours that block more threads than the
/// machine has cores do not make them fail (#13: `timedOut after 2.88 s` at a 1 s timeout).
@Suite struct IsolationTests {
    @Test(arguments: ContractTransport.allCases)
    func timingChecksIgnoreThreadBlockingNeighbours(transport: ContractTransport) async throws {
        try await TestCA.prepare(transport == .secureSockets)
        // More blocked threads than the cooperative pool has (one per core).
        let blockers = ProcessInfo.processInfo.activeProcessorCount + 1
        var configuration = configuration(transport: transport)
        configuration.timeout = 1
        configuration.timeoutMargin = 0.5
        configuration.parallelism = blockers + 2
        var suite = RestaurantContract.suite(configuration).only(["restaurant.timeout.hang", "restaurant.timeout.slow-in-time"])
        for index in 0..<blockers {
            suite = suite.adding(ContractCheck("neighbour.\(index)", .required, "blocks its thread for 4 s") { run in
                _ = try await run.call("categories()") { try await run.provider.categories() }
            })
        }
        let report = await withTestGate(exclusive: true) {
            await suite.run { ThreadBlockingProvider(reference: ReferenceRestaurantProvider(context: $0), seconds: 4) }
        }
        #expect(report.passed, "\(report)")
        // The neighbours really blocked for their 4 s, while the timing checks took their own time.
        #expect(report.results.filter { $0.id.hasPrefix("neighbour.") }.allSatisfy { $0.duration >= 4 }, "\(report)")
    }
}

import ContractTests
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Scenarios
import Testing

/// `CheckRun.inParallel`: the parts of a check run at once, each on a fresh server of its
/// own with a provider of its own (#24: the no-retry checks' three waits overlap).
@Suite struct ParallelPartsTests {
    /// Waits until `count` parts have arrived: parts run one after another never all arrive.
    actor Barrier {
        let count: Int
        private var arrived = 0
        private var waiting: [CheckedContinuation<Void, Never>] = []
        init(count: Int) { self.count = count }

        /// Whether every part arrived before `seconds` passed.
        func arrive(within seconds: Double) async -> Bool {
            arrived += 1
            if arrived == count {
                waiting.forEach { $0.resume() }
                waiting.removeAll()
                return true
            }
            let deadline = Task { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                await self?.releaseAll()
            }
            await withCheckedContinuation { waiting.append($0) }
            deadline.cancel()
            return arrived == count
        }

        private func releaseAll() {
            waiting.forEach { $0.resume() }
            waiting.removeAll()
        }
    }

    struct PartSeen: Sendable {
        let baseURL: URL
        let allArrived: Bool
        let ownRequests: Int
        let scenario: String
    }

    @Test func partsRunAtOnceEachOnAServerOfItsOwn() async throws {
        let parts = 3
        let barrier = Barrier(count: parts)
        let seen = Locked<[PartSeen]>([])
        let check = ContractCheck<any RestaurantProvider>("parts", .required, "three parts",
                                                              scenarios: (0..<parts).map { Scenario(name: "part-\($0)", rules: []) }) { run in
            let results = try await run.inParallel(parts) { run, index -> PartSeen in
                try run.use("part-\(index)")
                // Part i asks i + 1 times: each server's journal holds its own part's requests only.
                for _ in 0...index { _ = try await run.provider.categories() }
                let allArrived = await barrier.arrive(within: 20)
                return PartSeen(baseURL: run.baseURL, allArrived: allArrived,
                                ownRequests: run.expectations.requests(matching: .get("/categories")).count,
                                scenario: run.engine.scenarios.currentScenario)
            }
            seen.withLock { $0 = results }
        }
        // The provider's timeout is beside the point here: 10 s, not the default 1 s, which
        // a loaded CI machine once passed on one of these requests.
        let report = await RestaurantContract.suite(SuiteConfiguration(timeout: 10)).only([]).adding(check)
            .run { ReferenceRestaurantProvider(context: $0) }
        #expect(report.passed, "\(report)")
        let results = seen.withLock { $0 }
        try #require(results.count == parts)
        #expect(Set(results.map(\.baseURL)).count == parts, "a server per part: \(results.map(\.baseURL))")
        #expect(results.allSatisfy { $0.allArrived }, "the parts ran at once")
        #expect(results.map(\.ownRequests) == [1, 2, 3], "each journal holds its part's requests only")
        #expect(results.map(\.scenario) == ["part-0", "part-1", "part-2"])
    }

    /// A part that fails fails the check, with its own words, once every part has ended.
    @Test func aFailingPartFailsTheCheck() async throws {
        let ended = Locked(0)
        let check = ContractCheck<any RestaurantProvider>("parts", .required, "one part fails") { run in
            _ = try await run.inParallel(3) { run, index -> Int in
                defer { ended.withLock { $0 += 1 } }
                if index == 1 { try run.require(false, "part 1 to pass", actual: "part 1 failed on purpose") }
                return index
            }
        }
        // The provider's timeout is beside the point here: 10 s, not the default 1 s, which
        // a loaded CI machine once passed on one of these requests.
        let report = await RestaurantContract.suite(SuiteConfiguration(timeout: 10)).only([]).adding(check)
            .run { ReferenceRestaurantProvider(context: $0) }
        #expect(!report.passed)
        #expect("\(report)".contains("part 1 failed on purpose"), "\(report)")
        #expect(ended.withLock { $0 } == 3, "every part ran to its end")
    }

    /// A check stopped at its time limit stops its parts' servers too, while a part is
    /// still waiting (a provider that never gives up).
    @Test func aCheckPastItsTimeLimitStopsEveryPartsServer() async throws {
        let addresses = Locked<[URL]>([])
        let check = ContractCheck<any RestaurantProvider>("parts", .required, "a part never ends") { run in
            _ = try await run.inParallel(2) { run, index -> Int in
                addresses.withLock { $0.append(run.baseURL) }
                if index == 1 { try? await Task.sleep(nanoseconds: 8_000_000_000) }
                return index
            }
        }
        var configuration = SuiteConfiguration()
        configuration.checkTimeLimit = 1
        let report = await RestaurantContract.suite(configuration).only([]).adding(check).run { ReferenceRestaurantProvider(context: $0) }
        #expect(!report.passed && "\(report)".contains("did not finish within"), "\(report)")
        let urls = addresses.withLock { $0 }
        try #require(urls.count == 2)
        for url in urls {
            var request = URLRequest(url: url.appendingPathComponent("categories"))
            request.timeoutInterval = 2
            let answered = (try? await URLSession.shared.data(for: request)) != nil
            #expect(!answered, "\(url) still answers after the check ended")
        }
    }
}

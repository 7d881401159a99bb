import ContractTests
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import BuiltInMockAPIs
import MockCore
import TestSupport
import Testing

/// `CheckRun.inParallel`: the parts of a check run at once, each on a fresh server of its
/// own with a provider of its own (#24: the no-retry checks' three waits overlap).
@Suite(.timeLimit(.minutes(10))) struct ParallelPartsTests {
    /// Waits until `count` parts have arrived: parts run one after another never all arrive.
    actor Barrier {
        let count: Int
        private var arrived = 0
        private var waiting: [CheckedContinuation<Void, Never>] = []
        init(count: Int) { self.count = count }

        /// Whether every part arrived before `seconds` passed. The bound only decides how
        /// long a failure takes: parts that run at once arrive together and cancel it.
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
                // 300 s: parts run at once meet in well under a second, also on a loaded
                // 2-core machine that once stretched a whole suite from 1.5 s to 23 s.
                let allArrived = await barrier.arrive(within: 300)
                return PartSeen(baseURL: run.baseURL, allArrived: allArrived,
                                ownRequests: run.expectations.requests(matching: .get("/categories")).count,
                                scenario: run.engine.scenarios.currentScenario)
            }
            seen.withLock { $0 = results }
        }
        // The provider's timeout and the check's time limit are beside the point here: 60 s
        // and 600 s, not the defaults (1 s and 30 s), which a loaded machine can use up
        // (a full run on 2 cores once held a 1 s request past its timeout).
        let report = await RestaurantContract.suite(SuiteConfiguration(timeout: 60, checkTimeLimit: 600)).only([]).adding(check)
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
        // The check's time limit is beside the point here: 600 s, not the default 30 s.
        let report = await RestaurantContract.suite(SuiteConfiguration(timeout: 60, checkTimeLimit: 600)).only([]).adding(check)
            .run { ReferenceRestaurantProvider(context: $0) }
        #expect(!report.passed)
        #expect("\(report)".contains("part 1 failed on purpose"), "\(report)")
        #expect(ended.withLock { $0 } == 3, "every part ran to its end")
    }

    /// A check stopped at its time limit stops its parts' servers too, while a part is
    /// still waiting (a provider that never gives up). The limit runs on a clock the test
    /// moves, once both parts are under way.
    @Test func aCheckPastItsTimeLimitStopsEveryPartsServer() async throws {
        let addresses = Locked<[URL]>([])
        let clock = TestClock()
        let check = ContractCheck<any RestaurantProvider>("parts", .required, "a part never ends") { run in
            _ = try await run.inParallel(2) { run, index -> Int in
                addresses.withLock { $0.append(run.baseURL) }
                // Part 0 ends before the limit, part 1 only after it.
                try? await clock.sleep(for: .seconds(index == 1 ? 8 : 0.5))
                return index
            }
        }
        var configuration = SuiteConfiguration()
        configuration.checkTimeLimit = 1
        configuration.clock = clock
        async let running = RestaurantContract.suite(configuration).only([]).adding(check).run { ReferenceRestaurantProvider(context: $0) }
        // The limit's timer and both parts' waits: each part has its server.
        await clock.sleepers(atLeast: 3)
        clock.advance(by: .seconds(1))
        let report = await running
        #expect(!report.passed && "\(report)".contains("did not finish within"), "\(report)")
        let urls = addresses.withLock { $0 }
        try #require(urls.count == 2)
        for url in urls {
            var request = URLRequest(url: url.appendingPathComponent("categories"))
            // A stopped server refuses at once; 60 s lets a server that still runs answer
            // however loaded the machine, so the check cannot pass by timing out.
            request.timeoutInterval = 60
            let answered = (try? await URLSession.shared.data(for: request)) != nil
            #expect(!answered, "\(url) still answers after the check ended")
        }
        clock.advance(by: .seconds(8))   // ends the abandoned part
    }
}

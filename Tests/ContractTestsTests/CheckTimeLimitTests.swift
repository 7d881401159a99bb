import ContractTests
import Foundation
import TestSupport
import Testing

/// A check still running at `SuiteConfiguration.checkTimeLimit` is stopped, and its failure
/// names the step it last marked (`CheckRun.mark(_:)`). The limit runs on a clock the test
/// moves (`SuiteConfiguration.clock`): it passes when the test says, however busy the
/// machine, and nothing else can end the check first.
@Suite(.timeLimit(.minutes(5))) struct CheckTimeLimitTests {
    static func report(marking steps: [String]) async -> ContractReport {
        let clock = TestClock()
        let check = ContractCheck<any RestaurantProvider>("marked", .required, "a check that never ends") { run in
            for step in steps { run.mark(step) }
            // Past the limit, on the same clock: only the limit ends this check.
            try? await clock.sleep(for: .seconds(8))
        }
        var configuration = SuiteConfiguration()
        configuration.checkTimeLimit = 1
        configuration.clock = clock
        async let report = RestaurantContract.suite(configuration).only([]).adding(check).run { ReferenceRestaurantProvider(context: $0) }
        // The limit's timer and the check's own wait: the steps are marked.
        await clock.sleepers(atLeast: 2)
        clock.advance(by: .seconds(1))
        let result = await report
        clock.advance(by: .seconds(8))   // ends the abandoned check
        return result
    }

    @Test func aCheckPastItsTimeLimitNamesTheStepItWasAt() async throws {
        let message = try #require(await Self.report(marking: ["the first call", "the call given 404"]).result("marked")?.message)
        #expect(message.contains("did not finish within 1 s, stopped at the call given 404:"), "\(message)")
    }

    @Test func aCheckThatMarkedNothingSaysOnlyItsTimeLimit() async throws {
        let message = try #require(await Self.report(marking: []).result("marked")?.message)
        #expect(message.contains("did not finish within 1 s: does the provider use its timeout?"), "\(message)")
    }

    /// A check that ends before its limit passes, and leaves no timer behind: the limit's
    /// sleep is cancelled, so the clock has nothing left to wake.
    @Test func aCheckThatEndsInTimeCancelsItsLimit() async throws {
        let clock = TestClock()
        let check = ContractCheck<any RestaurantProvider>("quick", .required, "a check that ends at once") { _ in }
        var configuration = SuiteConfiguration()
        configuration.checkTimeLimit = 1
        configuration.clock = clock
        let report = await RestaurantContract.suite(configuration).only([]).adding(check).run { ReferenceRestaurantProvider(context: $0) }
        #expect(report.passed, "\(report)")
        #expect(clock.sleeperCount == 0)
    }
}

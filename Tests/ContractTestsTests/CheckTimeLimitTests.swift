import ContractTests
import Foundation
import Testing

/// A check still running at `SuiteConfiguration.checkTimeLimit` is stopped, and its failure
/// names the step it last marked (`CheckRun.mark(_:)`).
@Suite struct CheckTimeLimitTests {
    static func report(marking steps: [String]) async -> ContractReport {
        let check = ContractCheck<any RestaurantProvider>("marked", .required, "a check that never ends") { run in
            for step in steps { run.mark(step) }
            try? await Task.sleep(nanoseconds: 8_000_000_000)
        }
        var configuration = SuiteConfiguration()
        configuration.checkTimeLimit = 1
        return await RestaurantContract.suite(configuration).only([]).adding(check).run { ReferenceRestaurantProvider(context: $0) }
    }

    @Test func aCheckPastItsTimeLimitNamesTheStepItWasAt() async throws {
        let message = try #require(await Self.report(marking: ["the first call", "the call given 404"]).result("marked")?.message)
        #expect(message.contains("did not finish within 1 s, stopped at the call given 404:"), "\(message)")
    }

    @Test func aCheckThatMarkedNothingSaysOnlyItsTimeLimit() async throws {
        let message = try #require(await Self.report(marking: []).result("marked")?.message)
        #expect(message.contains("did not finish within 1 s: does the provider use its timeout?"), "\(message)")
    }
}

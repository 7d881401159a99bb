import ContractTests
import Logging
import Testing

/// Swift Testing glue, kept out of the `ContractTests` core: records one issue per failing
/// check, each with the check's full report. A check that passed on a second run (see
/// `SuiteConfiguration.timingAttempts`) is a warning with its note (before Swift 6.3, a
/// notice on `logger`).
///
///     @Test func myProviderKeepsTheContract() async {
///         let report = await RestaurantContract.suite(configuration).run { MyAdapter(context: $0) }
///         expectContract(report)
///     }
public func expectContract(_ report: ContractReport, includingRecommended: Bool = true,
                           logger: Logger = Logger(label: "mock-server.contract"), sourceLocation: SourceLocation = #_sourceLocation) {
    for failure in report.failures where includingRecommended || failure.level == .required {
        Issue.record("\(failure.id) (\(failure.level.rawValue)): \(failure.summary)\n\(failure.details)", sourceLocation: sourceLocation)
    }
    for result in report.results where result.passed && !result.notes.isEmpty {
        #if compiler(>=6.3)
        // A warning shows in the test report without failing the test (Swift 6.3, Xcode 26.4).
        Issue.record("\(result.id) passed: \(result.details)", severity: .warning, sourceLocation: sourceLocation)
        #else
        logger.notice("\(result.id) passed: \(result.details)")
        #endif
    }
}

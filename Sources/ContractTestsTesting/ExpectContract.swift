import ContractTests
import Testing

/// Swift Testing glue, kept out of the `ContractTests` core: records one issue per failing
/// check, each with the check's full report. A check that passed on a second run (see
/// `SuiteConfiguration.timingAttempts`) is printed with its note.
///
///     @Test func myProviderKeepsTheContract() async {
///         let report = await RestaurantContract.suite(configuration).run { MyAdapter(context: $0) }
///         expectContract(report)
///     }
public func expectContract(_ report: ContractReport, includingRecommended: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) {
    for failure in report.failures where includingRecommended || failure.level == .required {
        Issue.record("\(failure.id) (\(failure.level.rawValue)): \(failure.summary)\n\(failure.details)", sourceLocation: sourceLocation)
    }
    for result in report.results where result.passed && !result.notes.isEmpty {
        print("\(result.id) passed: \(result.details)")
    }
}

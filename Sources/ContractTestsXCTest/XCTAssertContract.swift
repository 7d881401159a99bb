import ContractTests
import Logging
import XCTest

/// XCTest glue, kept out of the `ContractTests` core: one failure per failing check,
/// each with the check's full report (expected, provider, server saw). A check that
/// passed on a second run (see `SuiteConfiguration.timingAttempts`) is a notice on `logger`
/// with its note (XCTest has no warnings).
///
///     func testMyProvider() async {
///         let report = await RestaurantContract.suite(configuration).run { MyAdapter(context: $0) }
///         XCTAssertContract(report)
///     }
public func XCTAssertContract(_ report: ContractReport, includingRecommended: Bool = true,
                              logger: Logger = Logger(label: "mock-server.contract"),
                              file: StaticString = #filePath, line: UInt = #line) {
    for failure in report.failures where includingRecommended || failure.level == .required {
        XCTFail("\(failure.id) (\(failure.level.rawValue)): \(failure.summary)\n\(failure.details)", file: file, line: line)
    }
    for result in report.results where result.passed && !result.notes.isEmpty {
        logger.notice("\(result.id) passed: \(result.details)")
    }
}

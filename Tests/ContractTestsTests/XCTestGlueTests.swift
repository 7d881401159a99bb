import ContractTests
import ContractTestsXCTest
import Foundation
import XCTest

/// The XCTest glue from a real XCTestCase: a report with only passing checks adds no
/// failure. (XCTest on Linux has no XCTExpectFailure, so the failing side is shown
/// through the Swift Testing glue's twin, which records one issue per failing check.)
final class XCTestGlueTests: XCTestCase {
    func testAPassingSuiteAddsNoFailure() async {
        let report = await RestaurantContract.suite(configuration()).only(["restaurant.categories"]).run {
            ReferenceRestaurantProvider(context: $0)
        }
        XCTAssertEqual(report.results.count, 3)
        XCTAssertTrue(report.passed, "\(report)")
        XCTAssertContract(report)
    }
}

import ContractTests
import Foundation
import MockFixtures
import Scenarios
import TestSupport
import Testing

func configuration(restaurant: RestaurantVariant = .original, openMarket: OpenMarketVariant = .jan2022,
                   transport: ContractTransport = .sockets) -> SuiteConfiguration {
    SuiteConfiguration(fixturesDirectory: MockFixtures.directory, restaurantVariant: restaurant, openMarketVariant: openMarket,
                       timeout: 3, timeoutMargin: 1, transport: transport, parallelism: 4)
}

@Suite struct ReferenceRestaurantProviderTests {
    @Test(arguments: RestaurantVariant.allCases, ContractTransport.allCases)
    func passesEveryCheck(variant: RestaurantVariant, transport: ContractTransport) async throws {
        let report = await withTestGate(exclusive: false) { await RestaurantContract.suite(configuration(restaurant: variant, transport: transport)).run { context in
            ReferenceRestaurantProvider(context: context, variant: variant, imageCacheLimit: 4)
        } }
        #expect(report.passed, "\(report)")
        #expect(report.results.count == 20)
        print("suite run time: \(report.suite) over \(transport.rawValue): \(report.results.count) checks in \(String(format: "%.1f", report.duration)) s")
    }
}

@Suite struct ReferenceOpenMarketProviderTests {
    @Test(arguments: OpenMarketVariant.allCases, ContractTransport.allCases)
    func passesEveryCheck(variant: OpenMarketVariant, transport: ContractTransport) async throws {
        let report = await withTestGate(exclusive: false) { await OpenMarketContract.suite(configuration(openMarket: variant, transport: transport)).run { context in
            ReferenceOpenMarketProvider(context: context, variant: variant, imageCacheLimit: 4)
        } }
        #expect(report.passed, "\(report)")
        #expect(report.results.count == 27)
        print("suite run time: \(report.suite) over \(transport.rawValue): \(report.results.count) checks in \(String(format: "%.1f", report.duration)) s")
    }
}

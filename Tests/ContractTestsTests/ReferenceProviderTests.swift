import ContractTests
import Foundation
import MockFixtures
import MockServerTLS
import BuiltInMockAPIs
import MockCore
import TestSupport
import Testing

/// The suites as the tests run them: a 3 s timeout, and a 2 s margin for the hang checks,
/// as a full parallel run on 2 cores has delivered an in-process timeout 1.2 s late.
func configuration(restaurant: RestaurantVariant = .original, openMarket: OpenMarketVariant = .jan2022,
                   transport: ContractTransport = .sockets) -> SuiteConfiguration {
    SuiteConfiguration(fixturesDirectory: MockFixtures.directory, restaurantVariant: restaurant, openMarketVariant: openMarket,
                       timeout: 3, timeoutMargin: 2, transport: transport, parallelism: 4, tls: TLSSettings())
}

/// The variants and transports of each suite below run one after another
/// (`.serialized`): nine whole suites at once, beside the heavy tests, once stretched a
/// suite from its usual 1.5 s to 23 s on 2 cores, and a 3 s call timed out.
@Suite(.serialized) struct ReferenceRestaurantProviderTests {
    @Test(arguments: RestaurantVariant.allCases, ContractTransport.allCases)
    func passesEveryCheck(variant: RestaurantVariant, transport: ContractTransport) async throws {
        try await TestCA.prepare(transport == .secureSockets)
        let report = await RestaurantContract.suite(configuration(restaurant: variant, transport: transport)).run { context in
            ReferenceRestaurantProvider(context: context, variant: variant, imageCacheLimit: 4)
        }
        #expect(report.passed, "\(report)")
        #expect(report.results.count == 25)
        print("suite run time: \(report.suite) over \(transport.rawValue): \(report.results.count) checks in \(String(format: "%.1f", report.duration)) s")
    }
}

@Suite(.serialized) struct ReferenceOpenMarketProviderTests {
    @Test(arguments: OpenMarketVariant.allCases, ContractTransport.allCases)
    func passesEveryCheck(variant: OpenMarketVariant, transport: ContractTransport) async throws {
        try await TestCA.prepare(transport == .secureSockets)
        let report = await OpenMarketContract.suite(configuration(openMarket: variant, transport: transport)).run { context in
            ReferenceOpenMarketProvider(context: context, variant: variant, imageCacheLimit: 4)
        }
        #expect(report.passed, "\(report)")
        #expect(report.results.count == 32)
        print("suite run time: \(report.suite) over \(transport.rawValue): \(report.results.count) checks in \(String(format: "%.1f", report.duration)) s")
    }
}

/// Providers written in another style (completion handlers, `NSCache`, a
/// configuration-only timeout) pass every required check in every variant over both
/// transports: the checks judge behaviour, not the reference's way of writing a client.
/// (`NSCache` neither coalesces nor, on Linux, enforces its count limit: some
/// recommended checks may fail, which is what "recommended" is for.)
@Suite(.serialized) struct IndependentProviderTests {
    @Test(arguments: RestaurantVariant.allCases, ContractTransport.allCases)
    func restaurantPassesEveryRequiredCheck(variant: RestaurantVariant, transport: ContractTransport) async throws {
        try await TestCA.prepare(transport == .secureSockets)
        let report = await RestaurantContract.suite(configuration(restaurant: variant, transport: transport)).run { context in
            CompletionRestaurantProvider(context: context, variant: variant)
        }
        #expect(report.requiredPassed, "\(report)")
    }

    @Test(arguments: OpenMarketVariant.allCases, ContractTransport.allCases)
    func openMarketPassesEveryRequiredCheck(variant: OpenMarketVariant, transport: ContractTransport) async throws {
        try await TestCA.prepare(transport == .secureSockets)
        let report = await OpenMarketContract.suite(configuration(openMarket: variant, transport: transport)).run { context in
            CompletionOpenMarketProvider(context: context, variant: variant)
        }
        #expect(report.requiredPassed, "\(report)")
    }
}

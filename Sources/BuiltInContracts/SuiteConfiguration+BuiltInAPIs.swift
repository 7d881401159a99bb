import BuiltInMockAPIs
import ContractHarness
import Foundation
import MockCore
import MockFixtures
import MockServer

// The harness's `SuiteConfiguration` names no API: it keeps variants by API name. These
// give the built-in APIs' variants their types, as the Restaurant and Open Market suites
// read them.

extension SuiteConfiguration {
    /// The Restaurant variant the checks' servers play (`variants["restaurant"]`; the
    /// original when none is chosen, which is also the variant an engine plays for an API
    /// given none: its first).
    public var restaurantVariant: RestaurantVariant {
        get { variants[RestaurantAPI().name].flatMap(RestaurantVariant.init(rawValue:)) ?? .original }
        set { variants[RestaurantAPI().name] = newValue.rawValue }
    }

    /// The Open Market variant the checks' servers play (`variants["openmarket"]`; January
    /// 2022 when none is chosen, which is also the variant an engine plays for an API given
    /// none: its first).
    public var openMarketVariant: OpenMarketVariant {
        get { variants[OpenMarketAPI().name].flatMap(OpenMarketVariant.init(rawValue:)) ?? .jan2022 }
        set { variants[OpenMarketAPI().name] = newValue.rawValue }
    }

    /// Makes a configuration whose servers play `restaurantVariant` and `openMarketVariant`;
    /// every other setting, and its default, is as in `init(fixturesDirectory:variants:…)`.
    public init(fixturesDirectory: URL = MockFixtures.directory, restaurantVariant: RestaurantVariant, openMarketVariant: OpenMarketVariant = .jan2022,
                timeout: TimeInterval = 1, timeoutMargin: TimeInterval = 1, transport: ContractTransport = .sockets,
                parallelism: Int = SuiteConfiguration.defaultParallelism, checkTimeLimit: TimeInterval = 30, network: NetworkProfile? = nil,
                tls: (any SecureTransport)? = nil, timingAttempts: Int = 2, apis: [any MockAPI] = BuiltInAPIs.all,
                clock: any Clock<Duration> = ContinuousClock()) {
        self.init(fixturesDirectory: fixturesDirectory,
                  variants: [RestaurantAPI().name: restaurantVariant.rawValue, OpenMarketAPI().name: openMarketVariant.rawValue],
                  timeout: timeout, timeoutMargin: timeoutMargin, transport: transport, parallelism: parallelism,
                  checkTimeLimit: checkTimeLimit, network: network, tls: tls, timingAttempts: timingAttempts, apis: apis, clock: clock)
    }

    /// Makes a configuration whose servers play `openMarketVariant` (and the original
    /// Restaurant); every other setting, and its default, is as in `init(fixturesDirectory:variants:…)`.
    public init(fixturesDirectory: URL = MockFixtures.directory, openMarketVariant: OpenMarketVariant,
                timeout: TimeInterval = 1, timeoutMargin: TimeInterval = 1, transport: ContractTransport = .sockets,
                parallelism: Int = SuiteConfiguration.defaultParallelism, checkTimeLimit: TimeInterval = 30, network: NetworkProfile? = nil,
                tls: (any SecureTransport)? = nil, timingAttempts: Int = 2, apis: [any MockAPI] = BuiltInAPIs.all,
                clock: any Clock<Duration> = ContinuousClock()) {
        self.init(fixturesDirectory: fixturesDirectory, restaurantVariant: .original, openMarketVariant: openMarketVariant,
                  timeout: timeout, timeoutMargin: timeoutMargin, transport: transport, parallelism: parallelism,
                  checkTimeLimit: checkTimeLimit, network: network, tls: tls, timingAttempts: timingAttempts, apis: apis, clock: clock)
    }
}

import ContractTests
import ContractTestsTesting
import Foundation
import MockFixtures
import Scenarios
import Testing

/// The shipped contract suites, run against the app's own clients through the adapters in
/// `Adapters.swift`: request shapes, decoding, error handling, no retried writes, timeouts,
/// cancellation and image caching, each check against a fresh server. A failing check
/// records one issue that says what was expected, what the client did and what the server saw.
@Suite struct ContractSuiteTests {
    /// The timeout handed to the clients' sessions; the hang checks wait it out, so it sets
    /// the suites' run time. (Keep it at 1 s or more: FoundationNetworking on Linux rounds
    /// shorter timeouts down to zero.)
    static let timeout: TimeInterval = 2

    /// Real loopback sockets (the default), and the in-process transport (a `URLProtocol` in
    /// the session configuration; upload tasks, whose body Apple's loading system hides from
    /// a protocol, go over a loopback socket there). `.secureSockets` needs the MockServerTLS
    /// product (and `SuiteConfiguration.tls`), which this target leaves out so that it builds
    /// no TLS stack; on Linux it also needs the mock's CA in the system store
    /// (`mock-server ca --trust-system`).
    static let transports: [ContractTransport] = [.sockets, .inProcess]

    @Test(arguments: transports)
    func menuControllerKeepsTheRestaurantContract(transport: ContractTransport) async {
        let configuration = SuiteConfiguration(fixturesDirectory: MockFixtures.directory, restaurantVariant: .original,
                                               timeout: Self.timeout, transport: transport)
        let report = await RestaurantContract.suite(configuration).run { MenuControllerAdapter(context: $0) }
        expectContract(report)
    }

    @Test(arguments: transports)
    func openMarketClientKeepsTheOpenMarketContract(transport: ContractTransport) async {
        let configuration = SuiteConfiguration(fixturesDirectory: MockFixtures.directory, openMarketVariant: .jan2022,
                                               timeout: Self.timeout, transport: transport)
        let report = await OpenMarketContract.suite(configuration).run { OpenMarketClientAdapter(context: $0) }
        expectContract(report)
    }
}

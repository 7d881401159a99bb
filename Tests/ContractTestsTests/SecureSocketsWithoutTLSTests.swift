@testable import BuiltInContracts
@testable import ContractHarness
import MockFixtures
import BuiltInMockAPIs
import MockCore
import Testing

/// `.secureSockets` with no HTTPS to serve with (`SuiteConfiguration.tls` nil): the
/// endpoint does not start, and a suite's checks fail saying which product to add.
@Suite struct SecureSocketsWithoutTLSTests {
    @Test func theEndpointRefusesToStart() async throws {
        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory))
        await #expect {
            _ = try await CheckEndpoint.start(engine: engine, transport: .secureSockets, requestTimeout: 1)
        } throws: { error in
            guard case SecureSocketsError.noTLS = error else { return false }
            return "\(error)".contains("MockServerTLS")
        }
    }

    @Test func aSuiteSaysWhichProductToAdd() async {
        let configuration = SuiteConfiguration(fixturesDirectory: MockFixtures.directory, transport: .secureSockets, parallelism: 1)
        let report = await RestaurantContract.suite(configuration).only(["restaurant.categories.request"]).run { context in
            ReferenceRestaurantProvider(context: context)
        }
        #expect(!report.results.isEmpty)
        for result in report.results {
            guard case .error(let reason) = result.outcome else {
                Issue.record("\(result.id): \(result.outcome)")
                continue
            }
            #expect(reason.contains("MockServerTLS"))
        }
    }
}

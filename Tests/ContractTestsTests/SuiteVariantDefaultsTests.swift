import BuiltInMockAPIs
import ContractTests
import MockCore
import Testing

/// A suite given no variants plays each API's first variant (the engine's choice), and
/// `restaurantVariant`/`openMarketVariant` read the same when none is set: the two agree
/// only while those are the first cases, which this pins.
@Suite struct SuiteVariantDefaultsTests {
    @Test func theUnsetVariantsAreEachAPIsFirst() {
        let configuration = SuiteConfiguration()
        #expect(configuration.variants.isEmpty)
        #expect(configuration.restaurantVariant == RestaurantVariant.allCases.first)
        #expect(configuration.openMarketVariant == OpenMarketVariant.allCases.first)
        #expect(RestaurantAPI().variants.first == RestaurantVariant.original.rawValue)
        #expect(OpenMarketAPI().variants.first == OpenMarketVariant.jan2022.rawValue)
    }
}

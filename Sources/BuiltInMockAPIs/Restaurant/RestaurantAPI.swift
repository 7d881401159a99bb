import Foundation
import MockCore

/// The Restaurant API of Apple's OrderApp curriculum, served from `restaurant/` in the
/// fixtures folder. Its apps call `http://localhost:8080`, the mock's own address, so it
/// names no host of its own.
public struct RestaurantAPI: MockAPI {
    /// The Restaurant API; its fixtures are read from `restaurant/`.
    public init() {}

    /// `restaurant`: the fixtures folder and the prefix of its variants' names.
    public var name: String { "restaurant" }
    /// Every `RestaurantVariant`, the original first (the default).
    public var variants: [String] { RestaurantVariant.allCases.map(\.rawValue) }

    /// Reads `restaurant/` under `directory`; nil when there is no such folder.
    public func loadFixtures(from directory: URL) throws(FixtureError) -> RestaurantFixtures? {
        let folder = directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: folder.path) else { return nil }
        return try RestaurantFixtures.load(from: folder)
    }

    /// A simulator for `context.variant` (the original when the name is unknown).
    public func serve(_ fixtures: RestaurantFixtures, _ context: APIContext) -> RestaurantSimulator {
        RestaurantSimulator(fixtures: fixtures, variant: RestaurantVariant(rawValue: context.variant) ?? .original,
                            imageCacheControl: context.imageCacheControl, strict: context.strict, context: context)
    }
}

extension RestaurantSimulator: ServedAPI {
    /// The Restaurant document of the variant played, listing the fixture menu's ids.
    public var openAPI: OpenAPISource? {
        // The menu's ids alone: the document is kept by journal entries.
        let menuIDs = fixtures.items.map(\.id)
        return OpenAPISource { variant, strict in
            OpenAPIDocuments.restaurant(RestaurantVariant(rawValue: variant) ?? .original, strict: strict, menuIDs: menuIDs)
        }
    }
}

extension EngineConfiguration {
    /// The Restaurant variant played (`variants["restaurant"]`).
    public var restaurantVariant: RestaurantVariant {
        get { RestaurantVariant(rawValue: variant(of: RestaurantAPI())) ?? .original }
        set { variants[RestaurantAPI().name] = newValue.rawValue }
    }
}

extension VariantSelection {
    /// The Restaurant variant chosen (its first when none was).
    public var restaurant: RestaurantVariant {
        get { chosen[RestaurantAPI().name].flatMap(RestaurantVariant.init(rawValue:)) ?? .original }
        set { chosen[RestaurantAPI().name] = newValue.rawValue }
    }
}

extension FixtureSet {
    /// The Restaurant fixtures, if the folder has them.
    public var restaurant: RestaurantFixtures? {
        get { self[RestaurantAPI().name] as? RestaurantFixtures }
        set { self[RestaurantAPI().name] = newValue }
    }
}

extension MockEngine {
    /// The Restaurant simulator now serving, if any.
    public var restaurant: RestaurantSimulator? { served(RestaurantSimulator.self) }
}

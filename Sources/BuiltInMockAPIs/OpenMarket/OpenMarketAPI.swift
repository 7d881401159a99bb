import Foundation
import MockCore

/// The Open Market API (yagom academy's training server), served from `openmarket/` in the
/// fixtures folder. Its apps call the training server by name, so it answers to the
/// server's hosts, present and past.
public struct OpenMarketAPI: MockAPI {
    /// The Open Market API; its fixtures are read from `openmarket/`.
    public init() {}

    /// `openmarket`: the fixtures folder and the prefix of its variants' names.
    public var name: String { "openmarket" }
    /// Every `OpenMarketVariant`, January 2022 first (the default).
    public var variants: [String] { OpenMarketVariant.allCases.map(\.rawValue) }
    /// The training server's hosts, present and past.
    public var hosts: [String] { ["market-training.yagom-academy.kr", "openmarket.yagom-academy.kr"] }
    /// The key snapshot files have always used.
    public var snapshotKey: String { "openMarket" }

    /// Reads `openmarket/` under `directory`; nil when there is no such folder.
    public func loadFixtures(from directory: URL) throws(FixtureError) -> OpenMarketFixtures? {
        let folder = directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: folder.path) else { return nil }
        return try OpenMarketFixtures.load(from: folder)
    }

    /// A simulator for `context.variant` (January 2022 when the name is unknown), with state of its own.
    public func serve(_ fixtures: OpenMarketFixtures, _ context: APIContext) -> OpenMarketSimulator {
        OpenMarketSimulator(fixtures: fixtures, variant: OpenMarketVariant(rawValue: context.variant) ?? .jan2022, seed: context.seed,
                            timeSource: context.timeSource, imageCacheControl: context.imageCacheControl, strict: context.strict,
                            context: context)
    }
}

extension OpenMarketSimulator: ServedAPI {
    /// The Open Market document of the variant played, strict or not.
    public var openAPI: OpenAPISource? {
        OpenAPISource { variant, strict in OpenAPIDocuments.openMarket(OpenMarketVariant(rawValue: variant) ?? .jan2022, strict: strict) }
    }
}

extension EngineConfiguration {
    /// The Open Market variant played (`variants["openmarket"]`).
    public var openMarketVariant: OpenMarketVariant {
        get { OpenMarketVariant(rawValue: variant(of: OpenMarketAPI())) ?? .jan2022 }
        set { variants[OpenMarketAPI().name] = newValue.rawValue }
    }
}

extension VariantSelection {
    /// The Open Market variant chosen (its first when none was).
    public var openMarket: OpenMarketVariant {
        get { chosen[OpenMarketAPI().name].flatMap(OpenMarketVariant.init(rawValue:)) ?? .jan2022 }
        set { chosen[OpenMarketAPI().name] = newValue.rawValue }
    }
}

extension FixtureSet {
    /// The Open Market fixtures, if the folder has them.
    public var openMarket: OpenMarketFixtures? {
        get { self[OpenMarketAPI().name] as? OpenMarketFixtures }
        set { self[OpenMarketAPI().name] = newValue }
    }
}

extension MockEngine {
    /// The Open Market simulator now serving, if any.
    public var openMarket: OpenMarketSimulator? { served(OpenMarketSimulator.self) }
}

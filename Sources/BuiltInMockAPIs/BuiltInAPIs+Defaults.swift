import Foundation
import MockCore

// The engine core names no API: each of its entry points that picks APIs takes them. These
// overloads pick the built-in ones, so code that imports the built-in APIs (or `Scenarios`)
// reads as it did when the engine held them.

extension EngineConfiguration {
    /// Makes a configuration serving the built-in APIs (`BuiltInAPIs.all`); every other
    /// setting, and its default, is as in the core's `init(fixturesDirectory:apis:…)`.
    public init(
        fixturesDirectory: URL,
        variants: [String: String] = [:],
        hostMap: [String: String] = [:],
        journalCapacity: Int = 10_000,
        journalBodyLimit: Int = 64 * 1024,
        journalByteBudget: Int = 64 * 1024 * 1024,
        journalResponseBodyLimit: Int = 0,
        streamTranscriptCapacity: Int = StreamTranscript.defaultCapacity,
        imageCacheControl: String = "public, max-age=3600",
        seed: UInt64 = 0,
        timeSource: any TimeSource = SystemTimeSource(),
        scenarioDirectories: [URL]? = nil,
        extraScenarios: [Scenario] = [],
        scenario: String = Scenario.happyPath.name,
        timeScale: Double = 1,
        strict: Bool = false,
        preloaded: Preloaded? = nil,
        network: NetworkProfile? = nil
    ) {
        self.init(
            fixturesDirectory: fixturesDirectory, apis: BuiltInAPIs.all, variants: variants, hostMap: hostMap,
            journalCapacity: journalCapacity, journalBodyLimit: journalBodyLimit, journalByteBudget: journalByteBudget,
            journalResponseBodyLimit: journalResponseBodyLimit, streamTranscriptCapacity: streamTranscriptCapacity,
            imageCacheControl: imageCacheControl, seed: seed, timeSource: timeSource,
            scenarioDirectories: scenarioDirectories, extraScenarios: extraScenarios, scenario: scenario,
            timeScale: timeScale, strict: strict, preloaded: preloaded, network: network)
    }
}

extension VariantSelection {
    /// Every name `--variant` accepts for the built-in APIs.
    public static func names() -> [String] {
        names(BuiltInAPIs.all)
    }

    /// Parses `--variant` values against the built-in APIs; a later value for the same API wins.
    public static func parse(_ values: [String]) throws(VariantError) -> VariantSelection {
        try parse(values, apis: BuiltInAPIs.all)
    }
}

extension VariantError {
    /// Makes the error for `value`, listing the built-in APIs' variant names as the accepted ones.
    public init(value: String) {
        self.init(value: value, known: VariantSelection.names())
    }
}

extension FixtureSet {
    /// Loads the fixtures of every built-in API found in `directory`; problems in all of
    /// them are reported together.
    public static func load(from directory: URL) throws(FixtureError) -> FixtureSet {
        try load(from: directory, apis: BuiltInAPIs.all)
    }
}

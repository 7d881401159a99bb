import Foundation

/// The built-in fixture set shipped with MockServer: `restaurant/`, `openmarket/`,
/// `scenarios/`. Packages that depend on MockServer get the same files.
public enum MockFixtures {
    /// The folder holding `restaurant/`, `openmarket/` and `scenarios/`.
    /// Looked up once: finding the resource bundle is a measurable part of start-up (#7).
    public static let directory: URL =
        Bundle.module.url(forResource: "restaurant", withExtension: nil)?.deletingLastPathComponent()
            ?? Bundle.module.bundleURL

    public static var restaurant: URL { directory.appendingPathComponent("restaurant") }
    public static var openMarket: URL { directory.appendingPathComponent("openmarket") }
    public static var scenarios: URL { directory.appendingPathComponent("scenarios") }
}

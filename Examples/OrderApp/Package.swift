// swift-tools-version:6.1
// An app's networking layer and its tests, against MockServer. Copy it as a starting point:
// the library is what an iOS app would ship; the test target is what its tests would run.
import PackageDescription

let package = Package(
    name: "OrderApp",
    // The same minimums as MockServer.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16)],
    products: [
        .library(name: "OrderAppNetworking", targets: ["OrderAppNetworking"]),
    ],
    dependencies: [
        .package(name: "MockServer", path: "../.."),
    ],
    targets: [
        // What the app ships: no dependency on MockServer.
        .target(name: "OrderAppNetworking"),
        .testTarget(
            name: "OrderAppNetworkingTests",
            dependencies: [
                "OrderAppNetworking",
                .product(name: "ContractTests", package: "MockServer"),
                .product(name: "ContractTestsTesting", package: "MockServer"),
                // The built-in fixtures (`MockFixtures.directory`, which `SuiteConfiguration`
                // needs) and the types the tests name (`Scenario`, `Rule`, `RequestPattern`,
                // `JSONValue`, `MultipartForm`): ContractTests uses them but does not re-export them.
                .product(name: "MockFixtures", package: "MockServer"),
                .product(name: "Scenarios", package: "MockServer"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

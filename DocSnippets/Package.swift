// swift-tools-version:6.2
// Every Swift snippet of MockServer's DocC catalogs, type-checked: Scripts/portability/snippets.py
// writes each article's snippets as a file into both snippet targets, and `swift build` compiles
// them. They are built, never run: regular targets, not test targets, so no test runner lists
// (or, on Linux, looks for) the XCTest classes the snippets declare inside their namespaces.
// Tools 6.2 for `.defaultIsolation`: the second target compiles the same snippets with MainActor
// as the default actor isolation, as Xcode 26's new targets are. A package of its own, beside
// the root: the root stays at tools 6.1, and users never resolve this.
import PackageDescription

/// What a snippet's reader has in their test target.
let snippetDependencies: [Target.Dependency] = [
    "SnippetStandIns",
    "OpenMarketClient",
    .product(name: "ContractTests", package: "MockServer"),
    .product(name: "ContractTestsTesting", package: "MockServer"),
    .product(name: "ContractTestsXCTest", package: "MockServer"),
    .product(name: "MockServerClient", package: "MockServer"),
    .product(name: "MockServer", package: "MockServer"),
    .product(name: "MockServerTLS", package: "MockServer"),
    .product(name: "MockFixtures", package: "MockServer"),
    .product(name: "Scenarios", package: "MockServer"),
    .product(name: "MockCore", package: "MockServer"),
    .product(name: "BuiltInMockAPIs", package: "MockServer"),
    .product(name: "ContractHarness", package: "MockServer"),
    .product(name: "BuiltInContracts", package: "MockServer"),
    .product(name: "MockServerOpenAPI", package: "MockServer"),
    .product(name: "OpenAPIDocumentAPI", package: "MockServer"),
    .product(name: "OpenAPIDocumentAPITesting", package: "MockServer"),
    .product(name: "OpenAPIDocumentContract", package: "MockServer"),
    .product(name: "OrderAppNetworking", package: "OrderApp"),
    .product(name: "TodoNetworking", package: "TodoApp"),
    .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
    .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
]

let package = Package(
    name: "DocSnippets",
    // The same minimums as MockServer.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16)],
    dependencies: [
        .package(name: "MockServer", path: ".."),
        // The examples' clients are the `MenuController` and `TodoClient` the articles name.
        .package(name: "OrderApp", path: "../Examples/OrderApp"),
        .package(name: "TodoApp", path: "../Examples/TodoApp"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
    ],
    targets: [
        // The part of the generated `Client` an article uses, in the generator's shape.
        .target(
            name: "OpenMarketClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // What the articles' text supplies around a snippet: the reader's own types and values.
        .target(
            name: "SnippetStandIns",
            dependencies: [
                .product(name: "ContractTests", package: "MockServer"),
                .product(name: "MockServer", package: "MockServer"),
                .product(name: "MockFixtures", package: "MockServer"),
                .product(name: "MockServerClient", package: "MockServer"),
                .product(name: "Scenarios", package: "MockServer"),
                .product(name: "OrderAppNetworking", package: "OrderApp"),
            ]
        ),
        .target(name: "DocSnippets", dependencies: snippetDependencies, resources: [.copy("Resources")]),
        .target(
            name: "DocSnippetsMainActor",
            dependencies: snippetDependencies,
            resources: [.copy("Resources")],
            swiftSettings: [.defaultIsolation(MainActor.self)]
        ),
    ],
    swiftLanguageModes: [.v6]
)

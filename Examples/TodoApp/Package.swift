// swift-tools-version:6.1
// A client of an API of one's own, described by an OpenAPI document (`todos.yaml`), and its
// tests against MockServer: the `.mockServer(api:)` trait and the document's contract suite.
import PackageDescription

let package = Package(
    name: "TodoApp",
    // The same minimums as MockServer.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16)],
    products: [
        .library(name: "TodoNetworking", targets: ["TodoNetworking"]),
    ],
    dependencies: [
        .package(name: "MockServer", path: "../.."),
    ],
    targets: [
        // What the app ships: a hand-written URLSession client; no dependency on MockServer.
        .target(name: "TodoNetworking"),
        .testTarget(
            name: "TodoNetworkingTests",
            dependencies: [
                "TodoNetworking",
                .product(name: "ContractTests", package: "MockServer"),
                .product(name: "ContractTestsTesting", package: "MockServer"),
                // `.mockServer(api:)`: a server of its own per test, serving the document.
                .product(name: "OpenAPIDocumentAPITesting", package: "MockServer"),
                // `OpenAPIContract`: the contract suite made from the document.
                .product(name: "OpenAPIDocumentContract", package: "MockServer"),
                // `RequestPattern`, which the tests name.
                .product(name: "Scenarios", package: "MockServer"),
            ],
            resources: [.copy("Resources/todos.yaml")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

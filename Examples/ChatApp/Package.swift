// swift-tools-version:6.1
// A chat client of an API of one's own: a reply streamed token by token over Server-Sent
// Events, described by an OpenAPI document (`chat.yaml`), and a live room over a WebSocket,
// described by a scenario. Its tests run against MockServer: the `.mockServer(api:)` trait,
// the document's streaming contract checks, stream faults and, on Apple platforms, the room.
import PackageDescription

let package = Package(
    name: "ChatApp",
    // The same minimums as MockServer.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16)],
    products: [
        .library(name: "ChatNetworking", targets: ["ChatNetworking"]),
    ],
    dependencies: [
        .package(name: "MockServer", path: "../.."),
    ],
    targets: [
        // What the app ships: URLSession only; no dependency on MockServer.
        .target(name: "ChatNetworking"),
        .testTarget(
            name: "ChatNetworkingTests",
            dependencies: [
                "ChatNetworking",
                .product(name: "ContractTests", package: "MockServer"),
                .product(name: "ContractTestsTesting", package: "MockServer"),
                // `.mockServer(api:)`: a server of its own per test, serving the document.
                .product(name: "OpenAPIDocumentAPITesting", package: "MockServer"),
                // `OpenAPIContract.streamingSuite`: the streaming checks for the document's streams.
                .product(name: "OpenAPIDocumentContract", package: "MockServer"),
                // Scenarios, rules, event streams, WebSocket scripts and stream faults.
                .product(name: "Scenarios", package: "MockServer"),
            ],
            resources: [.copy("Resources/chat.yaml"), .copy("Resources/room.json")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

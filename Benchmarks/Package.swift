// swift-tools-version:6.1
import PackageDescription

// The benchmarks' executables, a package of their own (as the fuzzers are) so that the
// main package's products, targets and Xcode schemes are only what a user gets. Built in
// release mode by Benchmarks/run.sh into Benchmarks/.build; see Benchmarks/README.md.
let package = Package(
    name: "MockServerBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "MockServer", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
    ],
    targets: [
        // bench.py times the contract suites with this.
        .executableTarget(name: "contract-timing", dependencies: [
            .product(name: "ContractTests", package: "MockServer"), .product(name: "MockFixtures", package: "MockServer"),
            .product(name: "MockServer", package: "MockServer"), .product(name: "Scenarios", package: "MockServer"),
        ], path: "ContractTiming"),
        // The floor for bench.py and instructions.sh: the least a SwiftNIO server does to answer the same bytes.
        .executableTarget(name: "nio-floor", dependencies: [
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOTLS", package: "swift-nio"), .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            .product(name: "NIOHPACK", package: "swift-nio-http2"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ], path: "NIOFloor"),
        // instructions.sh --ws: the floor under the mock's WebSocket echo, from NIO's WebSocket server example.
        .executableTarget(name: "ws-floor", dependencies: [
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
        ], path: "WebSocketFloor"),
        // documents.py: the parse floor beside the mock's reading of OpenAPI documents.
        .executableTarget(name: "document-floor", dependencies: [
            .product(name: "OpenAPIDocumentAPI", package: "MockServer"), .product(name: "Scenarios", package: "MockServer"),
        ], path: "DocumentFloor"),
    ],
    swiftLanguageModes: [.v6]
)

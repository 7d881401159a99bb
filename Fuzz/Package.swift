// swift-tools-version:6.1
import PackageDescription

// The libFuzzer targets, a package of their own so that the main package's products and
// Xcode schemes are only what a user gets (Fuzz/README.md). Built with `-sanitize=fuzzer
// -DFUZZING` they are libFuzzer binaries (`bash Fuzz/run.sh`); in an ordinary build
// (`swift run --package-path Fuzz fuzz-json Fuzz/corpus/json`) they replay a corpus.
let package = Package(
    name: "MockServerFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "MockServer", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
    ],
    targets: [
        .target(name: "FuzzSupport", path: "Sources/FuzzSupport"),
        .executableTarget(name: "fuzz-json", dependencies: [.product(name: "Scenarios", package: "MockServer"), "FuzzSupport"],
                          path: "Sources/fuzz-json"),
        .executableTarget(name: "fuzz-multipart", dependencies: [.product(name: "Scenarios", package: "MockServer"), "FuzzSupport"],
                          path: "Sources/fuzz-multipart"),
        .executableTarget(name: "fuzz-scenario", dependencies: [.product(name: "Scenarios", package: "MockServer"), "FuzzSupport"],
                          path: "Sources/fuzz-scenario"),
        .executableTarget(name: "fuzz-request", dependencies: [
            .product(name: "MockServer", package: "MockServer"), .product(name: "Scenarios", package: "MockServer"),
            .product(name: "MockFixtures", package: "MockServer"), "FuzzSupport",
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/fuzz-request"),
        .executableTarget(name: "fuzz-proxy", dependencies: [
            .product(name: "MockServer", package: "MockServer"), .product(name: "Scenarios", package: "MockServer"),
            .product(name: "MockFixtures", package: "MockServer"), "FuzzSupport",
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/fuzz-proxy"),
        .executableTarget(name: "fuzz-websocket", dependencies: [
            .product(name: "MockServer", package: "MockServer"), .product(name: "Scenarios", package: "MockServer"), "FuzzSupport",
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/fuzz-websocket"),
        .executableTarget(name: "fuzz-sse", dependencies: [
            .product(name: "MockServer", package: "MockServer"), .product(name: "Scenarios", package: "MockServer"), "FuzzSupport",
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/fuzz-sse"),
    ],
    swiftLanguageModes: [.v6]
)

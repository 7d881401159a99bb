// swift-tools-version:6.1
// 6.1 (Xcode 16.3) is the oldest toolchain: the `.mockServer` trait wraps each test with
// Swift Testing's TestScoping, which 6.1 introduced. Swift 6.2 (Xcode 26) adds the
// journal on each issue and as an attachment (guarded by `#if compiler(>=6.2)`).
import PackageDescription

let package = Package(
    name: "MockServer",
    // watchOS is left out: the server and the harness listen on BSD sockets, which
    // ordinary watchOS apps may not open (README › Platforms).
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16)],
    products: [
        // The engine alone (requests, matching, plans, scenarios, the journal); no API in it.
        .library(name: "MockCore", targets: ["MockCore"]),
        // The built-in Restaurant and Open Market APIs: fixtures, simulators, documents.
        .library(name: "BuiltInMockAPIs", targets: ["BuiltInMockAPIs"]),
        // Kept for existing imports: re-exports MockCore and BuiltInMockAPIs.
        .library(name: "Scenarios", targets: ["Scenarios"]),
        .library(name: "MockServer", targets: ["MockServer"]),
        // The admin API and the dashboard alone, no NIO (MockServer re-exports it).
        .library(name: "MockAdmin", targets: ["MockAdmin"]),
        // HTTPS, HTTP/2 and the local CA: BoringSSL, X509 and Crypto come with this one only.
        .library(name: "MockServerTLS", targets: ["MockServerTLS"]),
        // The harness and the built-in APIs' suites: re-exports ContractHarness and BuiltInContracts.
        .library(name: "ContractTests", targets: ["ContractTests"]),
        // The generic contract-test harness alone: runner, reports, checks, the trait's servers.
        .library(name: "ContractHarness", targets: ["ContractHarness"]),
        // The Restaurant and Open Market suites, their provider protocols and reference providers.
        .library(name: "BuiltInContracts", targets: ["BuiltInContracts"]),
        .library(name: "ContractTestsTesting", targets: ["ContractTestsTesting"]),
        .library(name: "ContractTestsXCTest", targets: ["ContractTestsXCTest"]),
        // The app side of UI tests: reads the mock's base URL and session from the launch environment.
        .library(name: "MockServerClient", targets: ["MockServerClient"]),
        .library(name: "MockFixtures", targets: ["MockFixtures"]),
        // Recording, all of it: the record proxy (URLSession), the recording's scenario writer,
        // redaction and the HAR import. No NIO; `MockServer` does not re-export it.
        .library(name: "MockRecording", targets: ["MockRecording"]),
        // A swift-openapi-runtime `ClientTransport` answering from an engine in process.
        .library(name: "MockServerOpenAPI", targets: ["MockServerOpenAPI"]),
        // Any API from its OpenAPI document (OpenAPIKit, Yams), and its `.mockServer(api:)` trait.
        .library(name: "OpenAPIDocumentAPI", targets: ["OpenAPIDocumentAPI"]),
        .library(name: "OpenAPIDocumentAPITesting", targets: ["OpenAPIDocumentAPITesting"]),
        // A contract suite for a client of the API a document describes (`OpenAPIContract`).
        .library(name: "OpenAPIDocumentContract", targets: ["OpenAPIDocumentContract"]),
        .executable(name: "mock-server", targets: ["mock-server"]),
        .executable(name: "mock-server-record", targets: ["mock-server-record"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        // MockServerTLS only: TLS, HTTP/2 over ALPN, and the local CA that signs the server's certificate.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.0"),
        // Documentation only: `swift package generate-documentation` builds the DocC catalogs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // OpenAPIDocumentAPI reads users' documents with it; tests validate the shipped
        // documents with it.
        .package(url: "https://github.com/mattpolzin/OpenAPIKit.git", from: "6.4.0"),
        // OpenAPIDocumentAPI: YAML documents.
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.0.0"),
        // MockServerOpenAPI: the transport protocol of clients made by swift-openapi-generator.
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
    ],
    targets: [
        // The built-in fixture set, shipped as resources so `swift run mock-server`
        // and any package depending on MockServer find it with no flags.
        .target(
            name: "MockFixtures",
            path: "Fixtures",
            exclude: ["README.md"],
            resources: [.copy("restaurant"), .copy("openmarket"), .copy("scenarios")]
        ),
        // The engine core: pure, deterministic, no sockets, no dependencies, and no API of its
        // own: it serves the `MockAPI`s its configuration lists. (Multipart is parsed by our
        // own MultipartForm since MultipartKit 4.7 crashed on a fuzzed body.)
        .target(name: "MockCore"),
        // The built-in APIs, Restaurant and Open Market: their fixtures readers, simulators,
        // variants and OpenAPI documents, `BuiltInAPIs.all`, and the engine defaults that
        // serve them. No NIO.
        .target(name: "BuiltInMockAPIs", dependencies: ["MockCore"]),
        // Kept for existing imports: `Scenarios` held the engine and the built-in APIs before
        // they were cut into MockCore and BuiltInMockAPIs, and re-exports both. (Swift has no
        // attribute that deprecates a module; the README and the MockCore docs say so.)
        .target(name: "Scenarios", dependencies: ["MockCore", "BuiltInMockAPIs"]),
        // The admin API under `/__admin`, the dashboard and the CA's profiles: routes over an
        // engine, no sockets and no NIO. The server mounts it; in-process transports too.
        .target(name: "MockAdmin", dependencies: ["MockCore"]),
        // The SwiftNIO transport that executes response plans: plain HTTP/1.1, no TLS stack.
        // Re-exports MockAdmin.
        .target(
            name: "MockServer",
            dependencies: [
                "MockCore",
                "MockAdmin",
                "MockFixtures",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                // WebSockets: the frame codec and the opening handshake's accept key.
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // HTTPS for MockServer: TLS, HTTP/2 by ALPN, the local CA. Plugged into the server's
        // secure-listener hook, so a test target that never serves HTTPS compiles none of it.
        .target(
            name: "MockServerTLS",
            dependencies: [
                "MockServer",
                "MockCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // The contract-test harness users run in their own test targets: suites, checks,
        // reports, the per-test servers and the in-process transport, and the generic
        // suites (streams, WebSockets). Its defaults serve the built-in APIs' registry
        // (`BuiltInAPIs.all`); it names no built-in API's type.
        .target(
            name: "ContractHarness",
            dependencies: ["MockServer", "MockCore", "BuiltInMockAPIs", "MockFixtures", .product(name: "Logging", package: "swift-log")]
        ),
        // The built-in APIs' contract suites beside the harness: Restaurant and Open Market
        // checks, providers and reference providers.
        .target(
            name: "BuiltInContracts",
            dependencies: ["ContractHarness", "MockServer", "MockCore", "BuiltInMockAPIs", "MockFixtures", .product(name: "Logging", package: "swift-log")]
        ),
        // Kept for existing imports: `ContractTests` held the harness and the built-in suites
        // before they were cut into ContractHarness and BuiltInContracts, and re-exports both.
        .target(name: "ContractTests", dependencies: ["ContractHarness", "BuiltInContracts"]),
        // Test-framework glue lives in adapters of its own, never in the core.
        .target(name: "ContractTestsTesting", dependencies: ["ContractTests", "MockCore", .product(name: "Logging", package: "swift-log")]),
        .target(name: "ContractTestsXCTest", dependencies: ["ContractTests", "MockCore", "MockServerClient", .product(name: "Logging", package: "swift-log")]),
        .target(name: "MockServerClient"),
        // A generated OpenAPI client's transport, answered in process (no sockets).
        .target(
            name: "MockServerOpenAPI",
            dependencies: [
                "MockServer", "MockCore",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // An API served from a user's OpenAPI document. Only this target (with its testing
        // adapter, the CLI and tests) compiles OpenAPIKit and Yams.
        .target(
            name: "OpenAPIDocumentAPI",
            dependencies: [
                "MockCore",
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "OpenAPIKit30", package: "OpenAPIKit"),
                .product(name: "OpenAPIKitCompat", package: "OpenAPIKit"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // `.mockServer(api: URL)` for Swift Testing: the trait of ContractTestsTesting with a document's API.
        .target(name: "OpenAPIDocumentAPITesting", dependencies: ["OpenAPIDocumentAPI", "ContractTestsTesting", "ContractTests", "MockCore"]),
        // `OpenAPIContract`: the harness's checks for a client of a document's API. No test
        // framework: Swift Testing and XCTest targets both run its suites.
        .target(name: "OpenAPIDocumentContract", dependencies: ["OpenAPIDocumentAPI", "ContractHarness", "MockCore"]),
        // Recording in one place: the proxy that records (`UpstreamProxy`, URLSession), the
        // recording's scenario and fixtures (`Recorder`, `RecordingBook`, `RecordedExchange`),
        // `Redaction`, and the HAR import. No NIO: an `AsyncResponder` over MockCore, which
        // any server (MockServer's, an in-process one) plays.
        // URLSession is FoundationNetworking on Linux, which loads libcurl, so this module is
        // kept out of the serving binary: `mock-server record|proxy|import-har` run the
        // `mock-server-record` binary. For the same reason `MockServer` does not re-export it,
        // and code that used `Recorder`, `HARImport` and the rest through `import MockServer`
        // imports `MockRecording` as well.
        // Re-exports BuiltInDrift, where the drift probes moved.
        .target(name: "MockRecording", dependencies: ["MockCore", "BuiltInDrift", .product(name: "Logging", package: "swift-log")]),
        // `mock-server drift`'s probes: the built-in APIs' simulators against their real
        // servers, compared by shape (URLSession; no NIO).
        .target(name: "BuiltInDrift", dependencies: ["MockCore", "BuiltInMockAPIs", "MockFixtures"]),
        .target(
            name: "MockServerCLI",
            dependencies: [
                "MockServer",
                "MockCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "mock-server",
            dependencies: [
                "MockCore",
                "BuiltInMockAPIs",
                "MockServer",
                "MockServerTLS",
                "MockServerCLI",
                "OpenAPIDocumentAPI",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "mock-server-record",
            dependencies: [
                "MockCore",
                "BuiltInMockAPIs",
                "MockRecording",
                "MockServer",
                "BuiltInDrift",
                "MockFixtures",
                "MockServerCLI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Test-only support shared by the test targets (they run in one process).
        .target(name: "TestSupport", dependencies: ["MockServer", "MockServerTLS", "ContractTests"], path: "Tests/TestSupport"),
        .testTarget(name: "ScenariosTests", dependencies: ["MockCore", "BuiltInMockAPIs", "MockFixtures"]),
        // Recording without a server: the recording's scenario, redaction, the HAR import.
        // (Recording through a live server is `RecordReplayTests`, in MockServerTests.)
        .testTarget(name: "MockRecordingTests", dependencies: ["MockRecording", "MockCore"]),
        .testTarget(
            name: "MockServerTests",
            dependencies: [
                "MockServer", "MockAdmin", "MockServerTLS", "MockRecording", "MockCore", "BuiltInMockAPIs", "MockFixtures", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
            ]
        ),
        .testTarget(
            name: "ContractTestsTests",
            dependencies: ["ContractTests", "ContractHarness", "BuiltInContracts", "ContractTestsTesting", "ContractTestsXCTest", "MockCore", "BuiltInMockAPIs", "MockServer", "MockServerTLS", "MockServerClient", "MockFixtures", "TestSupport",
                           // The WebSocket checks' test clients (Linux's URLSession has no WebSockets).
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"),
                           .product(name: "NIOWebSocket", package: "swift-nio"),
                           .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                           .product(name: "NIOSSL", package: "swift-nio-ssl")]
        ),
        .testTarget(
            name: "MockServerOpenAPITests",
            dependencies: [
                "MockServerOpenAPI", "MockServer", "MockCore", "BuiltInMockAPIs", "MockFixtures", "TestSupport",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "OpenAPIDocumentAPITests",
            dependencies: ["OpenAPIDocumentAPI", "OpenAPIDocumentAPITesting", "OpenAPIDocumentContract", "ContractTestsTesting", "ContractTests",
                           "MockCore", "BuiltInMockAPIs", "MockFixtures", "TestSupport"],
            resources: [.copy("Documents")]
        ),
        // Runs the built `mock-server` binary as a user would (exit codes, signals, --help).
        .testTarget(name: "CLITests", dependencies: ["mock-server", "mock-server-record", "MockFixtures", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

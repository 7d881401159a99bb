import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `mock-server openapi`: the document a server serves, printed to commit and diff.
@Suite struct OpenAPICLITests {
    /// JSON re-encoded with sorted keys, so two documents compare by content.
    static func canonical(_ data: Data) throws -> Data {
        try JSONSerialization.data(withJSONObject: try JSONSerialization.jsonObject(with: data), options: [.sortedKeys])
    }

    static let cases: [(api: String, variant: String, strict: Bool)] = [
        ("openmarket", "openmarket-2022-01", false), ("openmarket", "openmarket-legacy-dates", true),
        ("openmarket", "openmarket-2022-late", false), ("restaurant", "original", true), ("restaurant", "community", false),
        ("restaurant", "vapor-8090", false),
    ]

    @Test func printsTheDocumentTheAdminEndpointServes() async throws {
        let server = try MockServerProcess(["--port", "0"])
        let line = try #require(await server.firstLine())
        let base = String(line.dropFirst("Listening on ".count))
        for (api, variant, strict) in Self.cases {
            let (status, printed, stderr) = try await MockServerProcess.run(["openapi", "--api", api, "--variant", variant] + (strict ? ["--strict"] : []))
            #expect(status == 0, "\(api) \(variant): \(stderr)")
            let url = URL(string: "\(base)/__admin/openapi/\(api)?variant=\(variant)&strict=\(strict)")!
            let (served, _) = try await URLSession.shared.data(from: url)
            #expect(try Self.canonical(Data(printed.utf8)) == Self.canonical(served), "\(api) \(variant) strict: \(strict)")
        }
        server.signal(SIGTERM)
        _ = await server.waitForExit()
    }

    /// One member per line, keys sorted, the same bytes every time: a committed copy diffs.
    @Test func printsSortedKeysOneMemberPerLine() async throws {
        let (status, first, _) = try await MockServerProcess.run(["openapi", "--api", "restaurant", "--variant", "community"])
        let (_, second, _) = try await MockServerProcess.run(["openapi", "--variant", "community", "--api", "restaurant"])
        #expect(status == 0)
        #expect(first == second)
        let topLevel = first.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map { $0.split(separator: "\"")[1] }
        #expect(topLevel == ["components", "info", "openapi", "paths", "servers"])
        #expect(first.hasSuffix("}\n"))
        #expect(first.contains(#""pattern": "^/images/""#), "slashes are not escaped")
    }

    /// Examples/OpenMarketGenerated generates its client from a committed copy of the
    /// default Open Market document; it must be what the command prints now.
    @Test func theGeneratedExamplesDocumentIsCurrent() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let committed = root.appendingPathComponent("Examples/OpenMarketGenerated/Sources/OpenMarketAPI/openapi.json")
        let (status, printed, stderr) = try await MockServerProcess.run(["openapi", "--api", "openmarket", "--variant", "openmarket-2022-01"])
        #expect(status == 0, "\(stderr)")
        #expect(try String(contentsOf: committed, encoding: .utf8) == printed, """
            \(committed.path) is not the document mock-server serves now; regenerate it:
            swift run mock-server openapi --api openmarket --variant openmarket-2022-01 > Examples/OpenMarketGenerated/Sources/OpenMarketAPI/openapi.json
            """)
    }
}

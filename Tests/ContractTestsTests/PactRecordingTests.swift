import ContractTests
import ContractTestsTesting
import Foundation
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each test's Pact, merged into one file per consumer and provider (#23).
@Suite struct PactRecordingTests {
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pacts-\(UUID().uuidString)")

    static func interactions(_ file: URL) throws -> [[String: Any]] {
        let pact = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        return pact["interactions"] as? [[String: Any]] ?? []
    }

    /// Two tests' interactions end up in one file; one both made is there once, and the
    /// first write of a run replaces what an earlier run left.
    @Test func testsMergeIntoOneFilePerConsumerAndProvider() async throws {
        let recording = PactRecording(consumer: "Merge App", provider: "Restaurant", directory: Self.folder)
        try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
        try Data(#"{"interactions": [{"description": "left by an earlier run", "key": "old"}]}"#.utf8).write(to: recording.file)
        #expect(recording.file.lastPathComponent == "Merge_App-Restaurant.json")
        for paths in [["/categories", "/menu?category=soups"], ["/categories", "/menu?category=salads"]] {
            let server = try await TestMockServer.start()
            for path in paths { _ = try await URLSession.shared.data(from: server.url(path)) }
            try recording.record(server.journal.entries())
            await server.stop()
        }
        let descriptions = try Self.interactions(recording.file).compactMap { $0["description"] as? String }
        #expect(descriptions == ["GET /categories → 200", "GET /menu?category=soups → 200", "GET /menu?category=salads → 200"])
    }

    #if compiler(>=6.2)
    /// The trait's opt-in: a passing test leaves its interactions in the file.
    @Test func theTraitWritesThePactOfAPassingTest() async throws {
        let test = try #require(Test.current)
        let recording = PactRecording(consumer: "Trait App", provider: "Restaurant", directory: Self.folder)
        try await MockServerTrait.mockServer(pact: recording).provideScope(for: test, testCase: Test.Case.current) {
            _ = try await URLSession.shared.data(from: MockServer.current.url("/categories"))
        }
        #expect(try Self.interactions(recording.file).compactMap { $0["description"] as? String } == ["GET /categories → 200"])
    }
    #endif
}

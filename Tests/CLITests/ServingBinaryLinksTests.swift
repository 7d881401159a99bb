import Foundation
import TestSupport
import Testing

#if os(Linux)
    /// The serving binary links no URLSession: on Linux that is FoundationNetworking, which
    /// loads libcurl and some 30 shared libraries. Recording (the `MockRecording` module) needs
    /// it, so it is linked into `mock-server-record` only, which `mock-server record`,
    /// `proxy`, `import-har`, `drift` and `pact` run. Read from the binaries' dynamic
    /// sections (`readelf -d`), as the loader reads them.
    @Suite struct ServingBinaryLinksTests {
        static let readelf = ExternalTool.command("readelf", name: "readelf (binutils)", linux: "apt-get install binutils", macOS: nil)

        /// The shared libraries `binary` names as needed (`DT_NEEDED`).
        static func needed(_ binary: URL) async throws -> [String] {
            let result = try await Tool.run("readelf", ["-d", binary.path])
            #expect(result.status == 0, "readelf -d \(binary.path): \(result.stderr)")
            return result.stdout.split(separator: "\n").compactMap { line in
                guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
                return String(line[line.index(after: open)..<close])
            }
        }

        @Test(.requires(readelf)) func mockServerNeedsNoFoundationNetworkingAndTheRecorderDoes() async throws {
            // FoundationNetworking, or libcurl itself where Foundation is linked statically.
            func networking(_ library: String) -> Bool { library.hasPrefix("libFoundationNetworking") || library.hasPrefix("libcurl") }
            let server = MockServerProcess.binary
            let serving = try await Self.needed(server)
            #expect(!serving.isEmpty, "readelf -d \(server.path) named no library")
            #expect(!serving.contains(where: networking), "mock-server links URLSession's libraries: \(serving)")

            // The same reading finds them where they are: the check can fail.
            let recorder = server.deletingLastPathComponent().appendingPathComponent("mock-server-record")
            let recording = try await Self.needed(recorder)
            #expect(recording.contains(where: networking), "mock-server-record needs \(recording)")
        }
    }
#endif

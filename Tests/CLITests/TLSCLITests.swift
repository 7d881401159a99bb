import Foundation
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `mock-server --tls` and `mock-server ca` as a user runs them (#15).
@Suite struct TLSCLITests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("cli-ca-\(UUID().uuidString)")
    }

    @Test(.requires(.openssl)) func caPrintsItsPathAndFingerprintAndMakesItOnce() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, stdout, stderr) = try await MockServerProcess.run(["ca", "--ca-dir", folder.path])
        #expect(status == 0, "\(stderr)")
        let lines = stdout.split(separator: "\n").map(String.init)
        let pem = folder.appendingPathComponent("ca.pem").path
        #expect(lines.first == "CA certificate: \(pem) (created now)")
        // The fingerprint is openssl's.
        let expected = try await Tool.run("openssl", ["x509", "-noout", "-fingerprint", "-sha256", "-in", pem]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "=", maxSplits: 1).last.map(String.init)
        #expect(lines.count > 1 && lines[1] == "SHA-256: \(expected ?? "?")")
        // A second run finds it.
        let (_, again, _) = try await MockServerProcess.run(["ca", "--ca-dir", folder.path])
        #expect(again.hasPrefix("CA certificate: \(pem)\n"))
        #expect(again.contains(lines[1]))
        let (_, printed, _) = try await MockServerProcess.run(["ca", "--ca-dir", folder.path, "--pem"])
        #expect(printed.trimmingCharacters(in: .newlines) == (try String(contentsOfFile: pem, encoding: .utf8)).trimmingCharacters(in: .newlines))
    }

    #if os(macOS)
    static let runsSimctl = true
    #else
    static let runsSimctl = false
    #endif

    /// Off macOS the command prints what to run on the Mac; on macOS it runs it, which a
    /// test must not do to the machine's simulators.
    @Test(.disabled(if: runsSimctl, "on macOS `ca --simulator` runs xcrun simctl against this Mac's simulators"))
    func caForTheSimulatorGivesTheSimctlCommand() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, stdout, stderr) = try await MockServerProcess.run(["ca", "--ca-dir", folder.path, "--simulator", "booted"])
        #expect(status == 0, "\(stderr)")
        #expect(stdout.contains("xcrun simctl keychain booted add-root-cert \(folder.appendingPathComponent("ca.pem").path)"), "\(stdout)")
    }

    /// Processes making the same CA at once (two servers started together on a fresh
    /// machine) end up with one CA: one of them creates it, the others load it, and the
    /// folder holds a key that belongs to its certificate. Also when the folder is there,
    /// empty (made by hand).
    @Test(arguments: [false, true])
    func processesMakingOneCAAtOnceShareIt(folderExists: Bool) async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        if folderExists { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        let runs = try await withThrowingTaskGroup(of: (Int32, String, String).self) { group in
            for _ in 0..<8 { group.addTask { try await MockServerProcess.run(["ca", "--ca-dir", folder.path]) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(runs.allSatisfy { $0.0 == 0 }, "\(runs.map(\.2))")
        #expect(runs.filter { $0.1.contains("(created now)") }.count == 1, "\(runs.map(\.1))")
        let fingerprints = Set(runs.map { $0.1.split(separator: "\n").dropFirst().first.map(String.init) ?? "" })
        #expect(fingerprints.count == 1, "\(fingerprints)")
        // And it loads again, key and certificate together.
        let (status, again, stderr) = try await MockServerProcess.run(["ca", "--ca-dir", folder.path])
        #expect(status == 0, "\(stderr)")
        #expect(again.split(separator: "\n").dropFirst().first.map(String.init) == fingerprints.first)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.deletingLastPathComponent().path)
            .filter { $0.hasPrefix(".\(folder.lastPathComponent).") }
        #expect(leftovers.isEmpty, "staging folders left behind: \(leftovers)")
    }

    @Test func anUnusableCAFolderExitsWith2AndSaysWhy() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("junk".utf8).write(to: folder.appendingPathComponent("ca.pem"))
        let (status, _, stderr) = try await MockServerProcess.run(["ca", "--ca-dir", folder.path])
        #expect(status == 2)
        #expect(stderr.contains(folder.appendingPathComponent("ca.pem").path) && stderr.contains("PEM"), "\(stderr)")
        #expect(!stderr.contains("Fatal error"))
        let (serveStatus, serveOut, serveErr) = try await MockServerProcess.run(["--tls", "--port", "0", "--ca-dir", folder.path])
        #expect(serveStatus == 2, "\(serveOut) \(serveErr)")
        #expect(serveErr.contains("cannot serve HTTPS") && serveErr.contains("ca.pem"), "\(serveErr)")
    }

    @Test func badTLSArgumentsExitWith2() async throws {
        for arguments in [["--tls", "--san", "bad name!"], ["--ca-dir", "/tmp/x"], ["--tls-port", "99999"]] {
            let (status, _, stderr) = try await MockServerProcess.run(["--port", "0"] + arguments)
            #expect(status == 2, "\(arguments): \(stderr)")
            #expect(stderr.contains("--"), "\(arguments): \(stderr)")
        }
    }

    /// `--tls-port` serves both schemes; the lines printed say where, and where the CA is.
    @Test(.requires(.curl)) func tlsPortServesBothSchemesAndPrintsTheCA() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let child = try MockServerProcess(["--port", "0", "--tls-port", "0", "--ca-dir", folder.path])
        let first = try #require(await child.firstLine())
        let second = try #require(await child.firstLine())
        let third = try #require(await child.firstLine())
        #expect(first.hasPrefix("Listening on http://127.0.0.1:"))
        #expect(second.hasPrefix("Listening on https://127.0.0.1:"))
        #expect(third.contains(folder.appendingPathComponent("ca.pem").path) && third.contains("SHA-256"), "\(third)")
        let secure = String(second.dropFirst("Listening on ".count)).replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let curl = try await Tool.run("curl", ["-sS", "--cacert", folder.appendingPathComponent("ca.pem").path, "--http2", "-o", "/dev/null",
                                              "-w", "%{http_version} %{http_code}", secure + "/menu"])
        #expect(curl.stdout == "2 200", "\(curl.stderr)")
        child.signal(SIGTERM)
        #expect(await child.waitForExit() == 0)
    }
}

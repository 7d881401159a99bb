import Foundation
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The built `mock-server` binary, run as a child process.
final class MockServerProcess: @unchecked Sendable {
    static var binary: URL {
        // The test bundle sits in the same products folder as the executable. On Linux the
        // test process is that bundle; on macOS it is Xcode's xctest (or Swift Testing's
        // helper), which loads the `.xctest` bundle from the products folder.
        var starts = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        #if canImport(Darwin)
        if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
            starts.insert(bundle.bundleURL.deletingLastPathComponent(), at: 0)
        }
        #endif
        for start in starts {
            var folder = start
            while folder.path != "/" {
                let candidate = folder.appendingPathComponent("mock-server")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                folder = folder.deletingLastPathComponent()
            }
        }
        return URL(fileURLWithPath: ".build/debug/mock-server")
    }

    let process = Process()
    let stdout = Pipe()
    let stderr = Pipe()

    init(_ arguments: [String], executable: URL? = nil) throws {
        process.executableURL = executable ?? Self.binary
        process.arguments = arguments
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
    }

    /// Runs to completion: (exit status, stdout, stderr).
    static func run(_ arguments: [String], timeout: TimeInterval = 60) async throws -> (Int32, String, String) {
        let child = try MockServerProcess(arguments)
        let status = await child.waitForExit(timeout: timeout)
        return (status, child.readAll(child.stdout), child.readAll(child.stderr))
    }

    /// The first line on stdout (the `Listening on` line), or on `pipe`, read on a thread
    /// of its own.
    func firstLine(of pipe: Pipe? = nil, timeout: TimeInterval = 60) async -> String? {
        let handle = (pipe ?? stdout).fileHandleForReading
        return try? await onOwnThread {
            var bytes = Data()
            while true {
                let chunk = handle.readData(ofLength: 1)
                if chunk.isEmpty || chunk == Data("\n".utf8) { break }
                bytes.append(chunk)
            }
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Waits for the process to exit, at most `timeout` seconds (then kills it): the bound only
    /// decides how long a failure takes, so it is generous for a loaded machine.
    func waitForExit(timeout: TimeInterval = 300) async -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline {
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        if process.isRunning {
            // SIGKILL: a server that missed a SIGTERM may miss another.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return -1
        }
        return process.terminationStatus
    }

    func readAll(_ pipe: Pipe) -> String {
        String(decoding: Pipe.readToEnd(pipe.fileHandleForReading), as: UTF8.self)
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    deinit { if process.isRunning { process.terminate() } }
}

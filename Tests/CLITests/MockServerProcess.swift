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

    let process: ChildProcess

    init(_ arguments: [String], executable: URL? = nil) throws {
        process = try ChildProcess((executable ?? Self.binary).path, arguments)
    }

    /// Runs to completion: (exit status, stdout, stderr).
    static func run(_ arguments: [String], timeout: TimeInterval = 60) async throws -> (Int32, String, String) {
        let child = try MockServerProcess(arguments)
        let status = await child.waitForExit(timeout: timeout)
        return (status, child.readAll(child.stdout), child.readAll(child.stderr))
    }

    /// The first line on stdout (the `Listening on` line), or on `pipe`, read on a thread
    /// of its own.
    func firstLine(of pipe: FileHandle? = nil, timeout: TimeInterval = 60) async -> String? {
        guard let handle = pipe ?? stdout else { return nil }
        return try? await onOwnThread {
            var bytes = Data()
            var byte: UInt8 = 0
            while true {
                let count = read(handle.fileDescriptor, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 || byte == UInt8(ascii: "\n") { break }
                bytes.append(byte)
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
            process.signal(SIGKILL)
            _ = try? await onOwnThread { [process] in process.wait() }
            return -1
        }
        return process.wait()
    }

    /// The child's standard output.
    var stdout: FileHandle? { process.standardOutput }
    /// The child's standard error.
    var stderr: FileHandle? { process.standardError }

    func readAll(_ handle: FileHandle?) -> String {
        String(decoding: handle.map(Pipe.readToEnd) ?? Data(), as: UTF8.self)
    }

    func signal(_ number: Int32) { process.signal(number) }

    deinit { if process.isRunning { process.signal(SIGTERM) } }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs blocking work (waiting for a child process, reading its pipes, a system command)
/// on a thread of its own, and suspends until it is done.
///
/// Blocking inside a task holds one of the cooperative pool's threads, of which there are
/// as many as cores: two such waits on a 2-core machine stall every other test in the
/// process, and the timing tests among them fail. `DispatchQueue.global()` is no way out
/// on Linux, where its threads are the same pool's width.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// Runs a command-line tool and collects what it printed, waiting on threads of its own.
public enum Tool {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// `tool` (found on the PATH) with `arguments`; `input`, if any, on its standard input.
    /// Throws `MissingTool` when the PATH has no `tool`: a test that runs one declares it
    /// with `.requires(...)`, which skips it (or fails it in CI) before it gets here.
    public static func run(_ tool: String, _ arguments: [String], input: String? = nil) async throws -> Result {
        guard ExternalTool.path(of: tool) != nil else {
            throw MissingTool("\(tool) is not on the PATH; give the test .requires(...) with it (see ExternalTool)")
        }
        return try await onOwnThread {
            let child = try ChildProcess(tool: tool, arguments, input: input == nil ? .null : .pipe)
            if let input, let handle = child.standardInput { ChildProcess.write(Data(input.utf8), to: handle) }
            try? child.standardInput?.close()
            // Both pipes at once: a tool that fills one while the other is read would block.
            let stderr = ErrorOutput()
            let errors = child.standardError
            Thread {
                stderr.finish(errors.map(Pipe.readToEnd) ?? Data())
            }.start()
            let stdout = child.standardOutput.map(Pipe.readToEnd) ?? Data()
            let errorBytes = stderr.wait()
            let status = child.wait()
            return Result(status: status, stdout: String(decoding: stdout, as: UTF8.self),
                          stderr: String(decoding: errorBytes, as: UTF8.self))
        }
    }
}

extension Pipe {
    /// The bytes `handle` has now, up to 64 KiB, waiting for at least one; empty at the
    /// end. A signal that interrupts the wait (a child's exit, say) is waited through:
    /// Foundation's `availableData` and `readDataToEndOfFile()` end the process on `EINTR`.
    public static func readSome(_ handle: FileHandle) -> Data {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return Data(buffer[..<count]) }
            if errno != EINTR { return Data() }
        }
    }

    /// Everything `handle` gives until its end (see ``readSome(_:)``).
    public static func readToEnd(_ handle: FileHandle) -> Data {
        var data = Data()
        while true {
            let some = readSome(handle)
            if some.isEmpty { return data }
            data.append(some)
        }
    }
}

/// What a tool wrote on its standard error, handed from the thread that read it.
private final class ErrorOutput: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    func finish(_ data: Data) {
        self.data = data
        done.signal()
    }

    /// Blocks until `finish` (the semaphore orders the write before this read).
    func wait() -> Data {
        done.wait()
        return data
    }
}

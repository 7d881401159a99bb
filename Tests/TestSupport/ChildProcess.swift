import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process for tests, started with `posix_spawn`.
///
/// Not Foundation's `Process`: on Linux, swift-corelibs-foundation's `Process.run()` reads
/// `/proc/self/fd` with a 256-byte copy of each directory entry and crashes the whole test
/// process now and then (swift-corelibs-foundation pull request 5472), and a test process
/// with many servers open has many entries there.
///
/// A child gets its three descriptors and no other. The pipes made here are close-on-exec,
/// so no child holds another child's pipe (which would keep that pipe open after its writer
/// ended). On Linux that is not enough: SwiftNIO accepts connections without close-on-exec,
/// and a child holding a server's accepted socket keeps the connection open after the
/// server closed it (its client sees no end until the child exits, as a WebSocket client
/// beside a 60-second `nghttp` did). So the child closes every descriptor past 2
/// (`closeTheRest`); Darwin's spawn flag does the same there.
public final class ChildProcess: @unchecked Sendable {
    /// Where a standard stream goes.
    public enum Stream {
        /// A pipe this object holds the other end of.
        case pipe
        /// `/dev/null`.
        case null
    }

    /// The child's process ID.
    public let pid: pid_t
    /// Where the test writes the child's standard input (with `.pipe`).
    public let standardInput: FileHandle?
    /// Where the test reads the child's standard output (with `.pipe`).
    public let standardOutput: FileHandle?
    /// Where the test reads the child's standard error (with `.pipe`).
    public let standardError: FileHandle?
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `executable` (a path) with `arguments`.
    public init(_ executable: String, _ arguments: [String], input: Stream = .null, output: Stream = .pipe, error: Stream = .pipe) throws {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        Self.ignoreSIGPIPE
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        #if canImport(Darwin)
        // Only the three descriptors below reach the child.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
        #endif
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [FileHandle?] = []
        var childEnds: [Int32] = []
        for (fd, stream) in [(Int32(0), input), (1, output), (2, error)] {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
                parentEnds.append(nil)
            case .pipe:
                let (read, write) = try Self.pipe()
                let (childEnd, parentEnd) = fd == 0 ? (read, write) : (write, read)
                posix_spawn_file_actions_adddup2(&actions, childEnd, fd)
                childEnds.append(childEnd)
                parentEnds.append(FileHandle(fileDescriptor: parentEnd, closeOnDealloc: true))
            }
        }
        #if canImport(Glibc)
        Self.closeTheRest(&actions)
        #endif
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child = pid_t()
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        childEnds.forEach { _ = close($0) }
        guard result == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO)
        }
        pid = child
        standardInput = parentEnds[0]
        standardOutput = parentEnds[1]
        standardError = parentEnds[2]
    }

    #if canImport(Glibc)
    /// Has the child close every descriptor past 2 once its three are in place: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34 and later; Swift's Glibc module does
    /// not declare it, so it is looked up once), else a close for every number from 3 to 256
    /// past the highest descriptor open now: one a server accepts between the listing and
    /// the spawn takes a low free number, and a close of a number not open is skipped
    /// there (glibc ignores EBADF for it).
    private static func closeTheRest(_ actions: inout posix_spawn_file_actions_t) {
        if let closeFrom, closeFrom(&actions, 3) == 0 { return }
        let open = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
        for fd in 3...((open.max() ?? 1024) + 256) { posix_spawn_file_actions_addclose(&actions, fd) }
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, when the C library has it.
    private static let closeFrom: CloseFrom? = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }
    #endif

    /// A write to a pipe whose reader is gone fails with `EPIPE` instead of ending the process.
    private static let ignoreSIGPIPE: Void = ignoreBrokenPipes()

    /// Starts `tool`, found on the PATH (through `/usr/bin/env`).
    public convenience init(tool: String, _ arguments: [String], input: Stream = .null, output: Stream = .pipe, error: Stream = .pipe) throws {
        try self.init("/usr/bin/env", [tool] + arguments, input: input, output: output, error: error)
    }

    /// A pipe whose two ends are closed on exec (a child gets its end through `dup2`,
    /// which clears the flag on the copy).
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard makePipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// Whether the child has not exited yet.
    public var isRunning: Bool {
        lock.withLock {
            if status != nil { return false }
            var raw: Int32 = 0
            let result = waitpid(pid, &raw, WNOHANG)
            guard result == pid else { return result == 0 }
            status = Self.decode(raw)
            return false
        }
    }

    /// Waits for the child to exit (blocking: call it on a thread of its own, see
    /// `onOwnThread`); its exit status, or the number of the signal that ended it.
    @discardableResult
    public func wait() -> Int32 {
        if let done = lock.withLock({ status }) { return done }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 {
            if errno != EINTR { return lock.withLock { status ?? -1 } }
        }
        let decoded = Self.decode(raw)
        lock.withLock { status = decoded }
        return decoded
    }

    /// Writes all of `data` to `handle` (a child's standard input), through `EINTR`; a
    /// child that is gone ends the write (`EPIPE`: SIGPIPE is ignored in a process that
    /// starts children with this type).
    public static func write(_ data: Data, to handle: FileHandle) {
        var rest = data[...]
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { systemWrite(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if written > 0 {
                rest = rest.dropFirst(written)
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    /// Sends `signal` to the child.
    public func signal(_ signal: Int32) {
        _ = kill(pid, signal)
    }

    /// The exit status in `raw` (waitpid's), or the signal that ended the process.
    private static func decode(_ raw: Int32) -> Int32 {
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : signal
    }
}

private func ignoreBrokenPipes() {
    _ = signal(SIGPIPE, SIG_IGN)
}

private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, bytes, count)
}

private func makePipe(_ fds: inout [Int32]) -> Int32 {
    fds.withUnsafeMutableBufferPointer { pipe($0.baseAddress!) }
}

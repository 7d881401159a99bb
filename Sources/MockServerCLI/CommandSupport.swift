import ArgumentParser
import Dispatch
import Foundation
import Logging
import MockCore
import MockServer

// What the `mock-server` and `mock-server-record` commands share.

/// `--log-level`: the least severe level logged.
public enum LogLevelOption: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// The swift-log levels, least severe first.
    case trace, debug, info, notice, warning, error, critical
    /// The swift-log level of the same name.
    public var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }

    /// Sends logs at this level and above to standard error.
    public func bootstrap() -> Logger {
        let level = self.level
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "mock-server")
    }
}

/// Starts a server and prints the one line tools wait for, `Listening on URL`; a port in
/// use is one line on standard error and exit status 1. Once bound, and before that line,
/// `stop` holds its signals for a graceful stop (`StopSignal.hold()`).
@discardableResult
public func listen(_ server: MockHTTPServer, stop: StopSignal) async throws -> BoundAddress {
    do {
        let address = try await server.start()
        stop.hold()
        var lines = "Listening on \(address.baseURL)\n"
        if let secure = address.secureBaseURL, !address.isSecure { lines += "Listening on \(secure)\n" }
        if let proxy = address.proxyURL { lines += "Proxying on \(proxy)\n" }
        if let ca = await server.caCertificate {
            // Where to trust it from, once per simulator, device or machine.
            lines += "HTTPS certificate from the local CA \(ca.file.path) (SHA-256 \(ca.fingerprint)); "
                + "trust it with `mock-server ca --simulator booted`, or on a device from \(address.baseURL)/__admin/ca.mobileconfig\n"
        }
        FileHandle.standardOutput.write(Data(lines.utf8))
        return address
    } catch ServerError.exposedProxy(let host) {
        // Refused like an exposed admin API: a setting to change, not a failure to retry.
        FileHandle.standardError.write(Data("error: \(ServerError.exposedProxy(host: host))\n".utf8))
        throw ExitCode(2)
    } catch ServerError.tls(let error) {
        // A CA folder that cannot be used is bad input, like a bad fixture file.
        FileHandle.standardError.write(Data("error: cannot serve HTTPS: \(error)\n".utf8))
        throw ExitCode(2)
    } catch let error as ServerError {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        throw ExitCode(1)
    }
}

/// The pipe the signal handler writes each caught signal's number to: made before the
/// handler is installed, never changed, and only read by it (`write(2)` is
/// async-signal-safe; a `let` needs no exclusivity check, which is not).
private let stopSignalPipe: (read: Int32, write: Int32) = {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { fatalError("cannot make the stop signal's pipe: errno \(errno)") }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    // A flood of signals must never block the handler.
    _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
    return (ends[0], ends[1])
}()

/// SIGINT and SIGTERM, caught from the moment `install()` returns (once per process).
/// Until `hold()`, a signal ends the process at once (status 128 + the signal), as with no
/// handler: start-up has nothing to stop gracefully, and Ctrl-C must end one that hangs.
/// After `hold()`, the first signal is kept for `next()`, which waits for it without
/// blocking a thread.
///
/// A plain handler writes the signal to a pipe that a thread of its own reads: nothing is
/// lost between installing and the first read. The usual `signal(_, SIG_IGN)` and a
/// Dispatch signal source lose a signal sent in the moment before the source is armed
/// (on Linux), and the server then stays up after SIGTERM; installed after listening, a
/// test that signals a server as soon as it listens hits that moment often. The reading
/// thread unblocks both signals for itself:
/// `install()` runs on a Swift concurrency worker thread, whose mask blocks them, and
/// every thread started from there (NIO's, this one) inherits it, so on a platform whose
/// main thread also has them blocked (a process exec'd from such a thread) no thread
/// would take them.
public final class StopSignal: Sendable {
    private struct State {
        var holding = false
        var signal: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }
    private let state = Locked(State())

    private init() {}

    /// Catches SIGINT and SIGTERM from now on; call it once per process.
    public static func install() -> StopSignal {
        let stop = StopSignal()
        let reader = stopSignalPipe.read
        for number in [SIGINT, SIGTERM] {
            signal(number) { caught in
                let saved = errno
                var byte = UInt8(truncatingIfNeeded: caught)
                _ = write(stopSignalPipe.write, &byte, 1)
                errno = saved
            }
        }
        let thread = Thread {
            var wanted = sigset_t()
            sigemptyset(&wanted)
            sigaddset(&wanted, SIGINT)
            sigaddset(&wanted, SIGTERM)
            pthread_sigmask(SIG_UNBLOCK, &wanted, nil)
            var byte: UInt8 = 0
            while true {
                let count = read(reader, &byte, 1)
                if count == 1 {
                    stop.deliver(Int32(byte))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    // Never expected; signals then act as if no handler were installed.
                    signal(SIGINT, SIG_DFL)
                    signal(SIGTERM, SIG_DFL)
                    return
                }
            }
        }
        thread.start()
        return stop
    }

    /// From now on a signal is kept for `next()` instead of ending the process.
    public func hold() {
        state.withLock { $0.holding = true }
    }

    private func deliver(_ number: Int32) {
        let waiters = state.withLock { state -> [CheckedContinuation<Int32, Never>] in
            // Inside the lock: once the exit is decided, `hold()` cannot return and let
            // `listen` print its line.
            guard state.holding else { _exit(128 + number) }
            guard state.signal == nil else { return [] }
            state.signal = number
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: number) }
    }

    /// The first signal kept, at once if it came already.
    public func next() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let caught = state.withLock { state -> Int32? in
                if let signal = state.signal { return signal }
                state.waiters.append(continuation)
                return nil
            }
            if let caught { continuation.resume(returning: caught) }
        }
    }
}

/// `--scenario NAME|FILE`: a file is loaded (and checked) and selected by its name.
public enum ScenarioOption {
    /// The scenario to select and the scenarios to add for a `--scenario` value: a name as
    /// it is, or a file (`.json`, or with a `/`) loaded and checked; a bad file is thrown with its problems.
    public static func resolve(_ value: String) throws(FixtureError) -> (name: String, extra: [Scenario]) {
        var isDirectory: ObjCBool = false
        let looksLikeFile = value.hasSuffix(".json") || value.contains("/")
        if looksLikeFile || (FileManager.default.fileExists(atPath: value, isDirectory: &isDirectory) && !isDirectory.boolValue) {
            let scenario = try ScenarioFile.load(URL(fileURLWithPath: value))
            return (scenario.name, [scenario])
        }
        return (value, [])
    }
}


/// Prints problems with fixture or scenario files, one per line, and exits with status 2.
public func failForFixtures(_ error: FixtureError) -> ExitCode {
    for problem in error.problems {
        FileHandle.standardError.write(Data("error: \(problem)\n".utf8))
    }
    return ExitCode(2)
}

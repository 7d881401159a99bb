import ArgumentParser
import Dispatch
import Foundation
import Logging
import MockServer
import Scenarios

// What the `mock-server` and `mock-server-record` commands share.

public enum LogLevelOption: String, ExpressibleByArgument, CaseIterable, Sendable {
    case trace, debug, info, notice, warning, error, critical
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
        if let ca = await server.certificateAuthority {
            // Where to trust it from, once per simulator, device or machine.
            lines += "HTTPS certificate from the local CA \(ca.certificateURL.path) (SHA-256 \(ca.fingerprint)); "
                + "trust it with `mock-server ca --simulator booted`, or on a device from \(address.baseURL)/__admin/ca.mobileconfig\n"
        }
        FileHandle.standardOutput.write(Data(lines.utf8))
        return address
    } catch ServerError.tls(let error) {
        // A CA folder that cannot be used is bad input, like a bad fixture file.
        FileHandle.standardError.write(Data("error: cannot serve HTTPS: \(error)\n".utf8))
        throw ExitCode(2)
    } catch let error as ServerError {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        throw ExitCode(1)
    }
}

/// SIGINT and SIGTERM, caught from the moment `install()` returns. Until `hold()`, a
/// signal ends the process at once (status 128 + the signal), as with no handler: start-up
/// has nothing to stop gracefully, and Ctrl-C must end one that hangs. After `hold()`, the
/// first signal is kept for `next()`, which waits for it without blocking a thread.
///
/// Install first thing; `listen` holds once the server is bound: a signal source is armed
/// a moment after it is resumed, and a signal sent between `signal(_, SIG_IGN)` and then
/// is lost, so a server that installed its handler only after listening stayed up when a
/// supervisor stopped it at once (7 of 15 starts in `CLITests`).
public final class StopSignal: Sendable {
    private struct State {
        var holding = false
        var signal: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }
    private let state = Locked(State())

    private init() {}

    public static func install() -> StopSignal {
        let stop = StopSignal()
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.deliver(number) }
            source.resume()
            sources.append(source)
        }
        // The sources live as long as the process; keep them from being released.
        SignalSources.keep(sources)
        return stop
    }

    /// From now on a signal is kept for `next()` instead of ending the process.
    public func hold() {
        state.withLock { $0.holding = true }
    }

    private func deliver(_ number: Int32) {
        let (holding, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Int32, Never>]) in
            guard state.holding else { return (false, []) }
            guard state.signal == nil else { return (true, []) }
            state.signal = number
            defer { state.waiters = [] }
            return (true, state.waiters)
        }
        guard holding else { _exit(128 + number) }
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

enum SignalSources {
    private static let kept = Locked([any DispatchSourceSignal]())
    static func keep(_ sources: [any DispatchSourceSignal]) { kept.withLock { $0 += sources } }
}

/// `--scenario NAME|FILE`: a file is loaded (and checked) and selected by its name.
public enum ScenarioOption {
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

import Foundation
import Logging
import MockCore

/// `--watch`: notices when fixture or scenario files change and reloads them. A broken
/// file is reported (file, JSON path, reason) and the last good version keeps serving.
/// Polls a fingerprint (paths, sizes, modification times) on a task — no thread sleeps.
///
/// The first fingerprint is the files as they were *before* the engine read them
/// (`Baseline.take`, then load, then `init(engine:folders:since:)`): an edit made while
/// the fixtures loaded or the server started listening is a change, reloaded at `start()`.
public actor FixtureWatcher {
    /// The watched files as they were at one moment.
    public struct Baseline: Sendable, Equatable {
        let prints: [String: String]

        /// The files in `folders` now; take it before the engine loads them.
        public static func take(_ folders: [URL]) -> Baseline { Baseline(prints: FixtureWatcher.fingerprint(of: folders)) }
    }

    /// What a change led to.
    public enum Outcome: Sendable, Equatable {
        /// The files were read and now serve.
        case reloaded
        /// The files were refused for these problems; the last good ones keep serving.
        case refused([FixtureProblem])
    }

    private let engine: MockEngine
    private let folders: [URL]
    private let interval: Duration
    private let clock: any Clock<Duration>
    private let logger: Logger
    private var fingerprint: [String: String]
    private var task: Task<Void, Never>?
    /// What the last change led to (for tests and the admin API).
    public private(set) var lastOutcome: Outcome?
    /// How many changes have been noticed and reloads tried, refused ones included.
    public private(set) var reloads = 0

    /// Watches `folders` for changes since `baseline` (the files as they are now when nil:
    /// then an edit made between loading the engine and this call goes unnoticed), looking
    /// every `interval` on `clock` (the real clock by default; a test passes one it moves).
    public init(engine: MockEngine, folders: [URL], since baseline: Baseline? = nil, interval: Duration = .milliseconds(500),
                clock: any Clock<Duration> = ContinuousClock(), logger: Logger) {
        self.engine = engine
        self.folders = folders
        self.interval = interval
        self.clock = clock
        self.logger = logger
        self.fingerprint = baseline?.prints ?? Self.fingerprint(of: folders)
    }

    /// Reloads at once what changed since the baseline, then polls.
    public func start() {
        guard task == nil else { return }
        check()
        task = Task { [interval, clock] in
            while !Task.isCancelled {
                try? await Self.sleep(interval, on: clock)
                self.check()
            }
        }
    }

    private static func sleep(_ interval: Duration, on clock: some Clock<Duration>) async throws {
        try await clock.sleep(for: interval)
    }

    /// Stops watching; a change after this is not reloaded.
    public func stop() {
        task?.cancel()
        task = nil
    }

    /// Compares the files with the last look and reloads when they changed.
    public func check() {
        let now = Self.fingerprint(of: folders)
        guard now != fingerprint else { return }
        fingerprint = now
        reloads += 1
        do {
            try engine.reloadFixtures()
            lastOutcome = .reloaded
            logger.info("fixtures reloaded", metadata: ["folders": "\(folders.map(\.path).joined(separator: ", "))"])
        } catch {
            lastOutcome = .refused(error.problems)
            for problem in error.problems {
                logger.error("not reloaded, the last good fixtures keep serving", metadata: ["problem": "\(problem)"])
            }
            engine.events.publish("state", ["change": "reload-refused", "problems": .array(error.problems.map { .string($0.description) })])
        }
    }

    static func fingerprint(of folders: [URL]) -> [String: String] {
        var prints: [String: String] = [:]
        for folder in folders {
            guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.contentModificationDateKey, .fileSizeKey]) else { continue }
            for case let url as URL in walker {
                let values = try? url.resourceValues(forKeys: [.contentModificationDateKey, .fileSizeKey])
                prints[url.path] = "\(values?.fileSize ?? -1)@\(values?.contentModificationDate?.timeIntervalSince1970 ?? 0)"
            }
        }
        return prints
    }
}

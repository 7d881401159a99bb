import Foundation
import Logging
import Scenarios

/// `--watch`: notices when fixture or scenario files change and reloads them. A broken
/// file is reported (file, JSON path, reason) and the last good version keeps serving.
/// Polls a fingerprint (paths, sizes, modification times) on a task — no thread sleeps.
public actor FixtureWatcher {
    public enum Outcome: Sendable, Equatable {
        case reloaded
        case refused([FixtureProblem])
    }

    private let engine: MockEngine
    private let folders: [URL]
    private let interval: Duration
    private let logger: Logger
    private var fingerprint: [String: String]
    private var task: Task<Void, Never>?
    /// What the last change led to (for tests and the admin API).
    public private(set) var lastOutcome: Outcome?
    public private(set) var reloads = 0

    public init(engine: MockEngine, folders: [URL], interval: Duration = .milliseconds(500), logger: Logger) {
        self.engine = engine
        self.folders = folders
        self.interval = interval
        self.logger = logger
        self.fingerprint = Self.fingerprint(of: folders)
    }

    public func start() {
        guard task == nil else { return }
        task = Task { [interval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                self.check()
            }
        }
    }

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

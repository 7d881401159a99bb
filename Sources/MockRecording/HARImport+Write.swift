import Foundation
import MockCore

extension HARImport {
    /// Writes `capture` as `record` writes a recording — `DIR/scenarios/NAME.json` and the
    /// bodies under `DIR/scenarios/NAME/`, through the same `RecordingBook` — but all at
    /// once or not at all. Everything goes first to a hidden staging folder inside
    /// `DIR/scenarios/` (the same file system as its final place, so the moves are renames),
    /// is loaded back as `serve` will load it, and only then replaces an earlier scenario of
    /// that name. On any failure nothing is left behind: not the staging folder, not the
    /// folders this call created, and the earlier scenario is untouched.
    ///
    /// `source` names the capture in the scenario's description. Returns the scenario file.
    @discardableResult
    public static func write(_ capture: Capture, to directory: URL, name: String, source: String) throws -> URL {
        var book = RecordingBook(name: name, upstream: "\(capture.origins.first ?? capture.host) (imported from \(source))")
        var files: [(path: String, data: Data)] = []
        for exchange in capture.exchanges {
            if let file = book.add(exchange) { files.append(file) }
        }
        let scenario = book.scenario(recordedAt: capture.capturedAt ?? Date())

        let manager = FileManager.default
        let scenarios = directory.appendingPathComponent("scenarios", isDirectory: true)
        let created = firstMissingFolder(scenarios)
        let staging = scenarios.appendingPathComponent(".\(name).import-\(UUID().uuidString)", isDirectory: true)
        let bodies = scenarios.appendingPathComponent(name, isDirectory: true)
        let file = scenarios.appendingPathComponent(name + ".json")
        let previous = staging.appendingPathComponent("previous", isDirectory: true)
        do {
            try manager.createDirectory(at: staging.appendingPathComponent(name, isDirectory: true), withIntermediateDirectories: true)
            for body in files { try body.data.write(to: staging.appendingPathComponent(body.path)) }
            let staged = staging.appendingPathComponent(name + ".json")
            try Recorder.write(scenario, to: staged)
            _ = try ScenarioFile.load(staged)

            // The swap: the earlier scenario moves into the staging folder, the new one into place.
            try manager.createDirectory(at: previous, withIntermediateDirectories: false)
            let hadBodies = manager.fileExists(atPath: bodies.path)
            let hadFile = manager.fileExists(atPath: file.path)
            if hadBodies { try manager.moveItem(at: bodies, to: previous.appendingPathComponent(name)) }
            do {
                if hadFile { try manager.moveItem(at: file, to: previous.appendingPathComponent(name + ".json")) }
                try manager.moveItem(at: staging.appendingPathComponent(name), to: bodies)
                try manager.moveItem(at: staged, to: file)
            } catch {
                // Put the earlier scenario back as it was.
                if manager.fileExists(atPath: previous.appendingPathComponent(name).path) {
                    try? manager.removeItem(at: bodies)
                    try? manager.moveItem(at: previous.appendingPathComponent(name), to: bodies)
                }
                if manager.fileExists(atPath: previous.appendingPathComponent(name + ".json").path) {
                    try? manager.removeItem(at: file)
                    try? manager.moveItem(at: previous.appendingPathComponent(name + ".json"), to: file)
                }
                throw error
            }
            try? manager.removeItem(at: staging)
            return file
        } catch {
            try? manager.removeItem(at: staging)
            if let created { try? manager.removeItem(at: created) }
            throw error
        }
    }

    /// The outermost folder of `folder`'s path that does not exist yet (what creating
    /// `folder` would add), or nil when it exists.
    static func firstMissingFolder(_ folder: URL) -> URL? {
        var missing: URL?
        var current = folder.standardizedFileURL
        while !FileManager.default.fileExists(atPath: current.path), current.pathComponents.count > 1 {
            missing = current
            current = current.deletingLastPathComponent()
        }
        return missing
    }
}

import Foundation
import MockCore

/// Writes a recording as it grows: `DIR/scenarios/NAME.json` (a scenario that replays
/// it) and the bodies under `DIR/scenarios/NAME/`. After every exchange both are on
/// disk, so a recording stopped any way is complete up to its last answer. Replay it with
/// `mock-server serve --fixtures DIR --scenario NAME`.
public actor Recorder {
    /// `DIR/scenarios/NAME.json`, the scenario file the recording writes.
    public nonisolated let scenarioFile: URL
    private let folder: URL
    private let recordedAt: Date
    private var book: RecordingBook

    /// Starts an empty recording, replacing an earlier one of the same name in `directory`.
    public init(directory: URL, name: String = "recorded", upstream: String, matchHeaders: [String] = [], now: Date = Date()) throws {
        folder = directory.appendingPathComponent("scenarios", isDirectory: true)
        scenarioFile = folder.appendingPathComponent(name + ".json")
        recordedAt = now
        book = RecordingBook(name: name, upstream: upstream, matchHeaders: matchHeaders)
        let bodies = folder.appendingPathComponent(name, isDirectory: true)
        if FileManager.default.fileExists(atPath: bodies.path) { try FileManager.default.removeItem(at: bodies) }
        try FileManager.default.createDirectory(at: bodies, withIntermediateDirectories: true)
        try Self.write(book.scenario(recordedAt: now), to: scenarioFile)
    }

    /// Adds one exchange and writes the recording.
    public func add(_ exchange: RecordedExchange) throws {
        if let file = book.add(exchange) {
            try file.data.write(to: folder.appendingPathComponent(file.path), options: .atomic)
        }
        try Self.write(book.scenario(recordedAt: recordedAt), to: scenarioFile)
    }

    /// How many exchanges have been recorded.
    public var count: Int { book.exchanges.count }

    static func write(_ scenario: JSONValue, to file: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(scenario)
        data.append(UInt8(ascii: "\n"))
        try data.write(to: file, options: .atomic)
    }
}

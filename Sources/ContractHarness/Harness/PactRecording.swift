import Foundation
import MockCore
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where each test's Pact goes, for the `.mockServer(pact:)` trait and
/// `MockServerTestCase.mockPact` (opt-in): the interactions every test of a run made with
/// the same consumer and provider are merged into one file,
/// `<directory>/<consumer>-<provider>.json`, ready to verify or publish to a broker.
///
///     // Next to this test file: on macOS and in the Simulator, tests can write there
///     // (the working directory of an Xcode test run is not the package's folder).
///     let pacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("pacts")
///     @Test(.mockServer(pact: PactRecording(consumer: "OrderApp", provider: "Restaurant", directory: pacts)))
///
/// On a device the app's sandbox allows only its own folders
/// (`FileManager.default.temporaryDirectory`).
///
/// A run is one process, unless `MOCK_SERVER_PACT_RUN` names it: set it to one value for
/// every process of a run (Xcode's parallel testing starts several; CI: the build
/// number), and their interactions merge into the same file instead of replacing it.
public struct PactRecording: Sendable {
    /// The consumer's name in the Pact file (the app under test).
    public var consumer: String
    /// The provider's name in the Pact file (the API it calls).
    public var provider: String
    /// The folder the Pact file goes in (created when missing).
    public var directory: URL
    /// The Pact specification version written; V4 by default.
    public var specification: PactExport.Specification

    /// Makes a recording to `<directory>/<consumer>-<provider>.json`.
    public init(consumer: String, provider: String, directory: URL, specification: PactExport.Specification = .v4) {
        self.consumer = consumer
        self.provider = provider
        self.directory = directory
        self.specification = specification
    }

    /// `<directory>/<consumer>-<provider>.json`.
    public var file: URL {
        directory.appendingPathComponent("\(Self.fileName(consumer))-\(Self.fileName(provider)).json")
    }

    static func fileName(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
    }

    /// Adds what `events` show to the file: the first write of a run replaces what an
    /// earlier run left, later ones merge in (interactions already there kept, new ones
    /// appended). Writers take turns, in this process and across processes (a file lock
    /// next to the file). Returns what was left out of this test's part (faults, …).
    @discardableResult
    public func record(_ events: [ServeEvent]) throws -> [String] {
        let (document, skipped) = PactExport(consumer: consumer, provider: provider, specification: specification).pact(from: events)
        try Self.turns.withLock { _ in
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let lock = open(file.path + ".lock", O_CREAT | O_RDWR, 0o644)
            guard lock >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: file.path + ".lock"]) }
            defer { close(lock) }
            _ = flock(lock, LOCK_EX)
            defer { _ = flock(lock, LOCK_UN) }
            var merged = Self.marked(document, run: Self.run)
            if let data = FileManager.default.contents(atPath: file.path), let existing = JSONValue(parsing: data),
               existing["metadata"]?["mockServer"]?["run"]?.stringValue == Self.run {
                merged = Self.merge(existing, merged)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(merged).write(to: file, options: .atomic)
        }
        return skipped
    }

    /// This run's name: `MOCK_SERVER_PACT_RUN`, else one per process.
    static let run = ProcessInfo.processInfo.environment["MOCK_SERVER_PACT_RUN"].flatMap { $0.isEmpty ? nil : $0 } ?? UUID().uuidString

    /// One writer at a time in this process (`flock` orders processes, not threads).
    private static let turns = Locked(())

    /// `document` with `metadata.mockServer.run` set.
    static func marked(_ document: JSONValue, run: String) -> JSONValue {
        guard case .object(var result) = document, case .object(var metadata)? = result["metadata"] else { return document }
        var mine = metadata["mockServer"]?.objectValue ?? [:]
        mine["run"] = .string(run)
        metadata["mockServer"] = .object(mine)
        result["metadata"] = .object(metadata)
        return .object(result)
    }

    /// `existing` with the interactions of `new` it does not have (by key, or by
    /// description and states in V3), descriptions kept unique, skipped lists joined.
    static func merge(_ existing: JSONValue, _ new: JSONValue) -> JSONValue {
        guard case .object(var result) = existing else { return new }
        var interactions = existing["interactions"]?.arrayValue ?? []
        func identity(_ interaction: JSONValue) -> String {
            interaction["key"]?.stringValue ?? "\(interaction["description"] ?? .null)|\(interaction["providerStates"] ?? .null)|\(interaction["request"] ?? .null)"
        }
        var known = Set(interactions.map(identity))
        var descriptions = Set(interactions.compactMap { $0["description"]?.stringValue })
        for interaction in new["interactions"]?.arrayValue ?? [] where known.insert(identity(interaction)).inserted {
            guard case .object(var object) = interaction, let description = object["description"]?.stringValue else { continue }
            var unique = description
            var count = 1
            while descriptions.contains(unique) {
                count += 1
                unique = "\(description) #\(count)"
            }
            descriptions.insert(unique)
            object["description"] = .string(unique)
            interactions.append(.object(object))
        }
        result["interactions"] = .array(interactions)
        let skipped = (existing["metadata"]?["mockServer"]?["skipped"]?.arrayValue ?? []) + (new["metadata"]?["mockServer"]?["skipped"]?.arrayValue ?? [])
        if case .object(var metadata)? = result["metadata"] {
            var mine = metadata["mockServer"]?.objectValue ?? [:]
            mine["skipped"] = .array(skipped)
            metadata["mockServer"] = .object(mine)
            result["metadata"] = .object(metadata)
        }
        return .object(result)
    }
}

import Foundation
import Scenarios

/// Where each test's Pact goes, for the `.mockServer(pact:)` trait and
/// `MockServerTestCase.mockPact` (opt-in): the interactions every test of a run made with
/// the same consumer and provider are merged into one file,
/// `<directory>/<consumer>-<provider>.json`, ready to verify or publish to a broker.
///
///     @Test(.mockServer(pact: PactRecording(consumer: "OrderApp", provider: "Restaurant",
///                                           directory: URL(fileURLWithPath: "pacts"))))
public struct PactRecording: Sendable {
    public var consumer: String
    public var provider: String
    public var directory: URL
    public var specification: PactExport.Specification

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

    /// Adds what `events` show to the file: the first test of this process to write it
    /// replaces what an earlier run left, later ones merge in (interactions already there
    /// kept, new ones appended; one at a time, as tests run in parallel). Returns what was
    /// left out of this test's part (faults, …).
    @discardableResult
    public func record(_ events: [ServeEvent]) throws -> [String] {
        let (document, skipped) = PactExport(consumer: consumer, provider: provider, specification: specification).pact(from: events)
        try Self.files.withLock { written in
            var merged = document
            if written.contains(file.path), let data = FileManager.default.contents(atPath: file.path), let existing = JSONValue(parsing: data) {
                merged = Self.merge(existing, document)
            }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(merged).write(to: file, options: .atomic)
            written.insert(file.path)
        }
        return skipped
    }

    /// The files this process has written, so the first write of a run starts afresh.
    private static let files = Locked(Set<String>())

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
            metadata["mockServer"] = ["skipped": .array(skipped)]
            result["metadata"] = .object(metadata)
        }
        return .object(result)
    }
}

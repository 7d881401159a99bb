import Foundation
import MockCore

/// The documents this process has read, by file and modification time, so a test target
/// whose every test serves the same document reads it once: each test's server after the
/// first costs what a built-in API's does.
///
/// An entry holds the modification times and sizes of every file the document was read
/// from (all of a split document's), and is read again when any of them changed. A
/// document that could not be read is kept too (the same problems, until its files
/// change). At most `capacity` documents are kept; the one used least recently goes first.
/// Reads of one document are one at a time, so tests starting together read it once, not
/// once each; reads of different documents do not wait for each other (a caller waiting
/// holds its thread, and a test run's task pool has one thread per core).
public final class DocumentCache: Sendable {
    /// The cache of `OpenAPIDocumentAPI(contentsOf:)` and `.mockServer(api:)`.
    public static let shared = DocumentCache(capacity: 8)

    /// The most documents kept.
    public let capacity: Int

    private struct Stamp: Equatable {
        let modified: Date?
        let size: Int?

        init(_ path: String) {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            modified = attributes?[.modificationDate] as? Date
            size = (attributes?[.size] as? NSNumber)?.intValue
        }
    }

    private struct Entry {
        let path: String
        let stamps: [(path: String, stamp: Stamp)]
        let result: Result<OpenAPIDocument, FixtureError>

        var isCurrent: Bool { stamps.allSatisfy { Stamp($0.path) == $0.stamp } }
    }

    private let entries = Locked<[Entry]>([])
    /// Held while a document is read, so one read serves every caller waiting for it: a
    /// lock per stripe of paths (a bounded set), so a long read of one document (a split one
    /// of thousands of files) holds up only the callers of documents in its stripe.
    private let reading = (0..<16).map { _ in NSLock() }
    private let reads = Locked(0)

    /// A cache of at most `capacity` documents (at least one).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many documents are kept now.
    public var count: Int { entries.withLock { $0.count } }

    /// How many times a document was read from its files (not found current in the cache).
    public var readCount: Int { reads.withLock { $0 } }

    /// The document at `url`, from the cache when its files have not changed since it was
    /// read, else read now (and kept).
    public func document(at url: URL) -> Result<OpenAPIDocument, FixtureError> {
        let path = url.standardizedFileURL.path
        if let hit = current(path) { return hit }
        let lock = reading[Int(UInt(bitPattern: path.hashValue) % UInt(reading.count))]
        lock.lock()
        defer { lock.unlock() }
        if let hit = current(path) { return hit }   // read by the caller that held the lock
        let result: Result<OpenAPIDocument, FixtureError>
        var stamps: [(path: String, stamp: Stamp)]
        // The stamps are taken before the files are read, so an edit made meanwhile is seen next time.
        let before = Stamp(path)
        do {
            let loaded = try DocumentLoader.load(url)
            result = .success(OpenAPIDocument(file: url.path, json: loaded.json, notes: loaded.notes, declaredVersion: loaded.declaredVersion,
                                              fileCount: loaded.files.count, byteCount: loaded.bytes))
            stamps = loaded.files.dropFirst().map { ($0.path, Stamp($0.path)) }
        } catch {
            result = .failure(error)
            stamps = []
        }
        stamps.insert((path, before), at: 0)
        reads.withLock { $0 += 1 }
        entries.withLock { entries in
            entries.removeAll { $0.path == path }
            entries.append(Entry(path: path, stamps: stamps, result: result))
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        }
        return result
    }

    /// Forgets every document.
    public func removeAll() { entries.withLock { $0.removeAll() } }

    /// The kept result for `path` when its files are unchanged, moved to most recently used.
    private func current(_ path: String) -> Result<OpenAPIDocument, FixtureError>? {
        guard let entry = entries.withLock({ entries in entries.last(where: { $0.path == path }) }), entry.isCurrent else { return nil }
        entries.withLock { entries in
            guard let index = entries.lastIndex(where: { $0.path == path }) else { return }
            entries.append(entries.remove(at: index))
        }
        return entry.result
    }
}

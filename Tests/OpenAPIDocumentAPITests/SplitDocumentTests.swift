import Foundation
@testable import OpenAPIDocumentAPI
import BuiltInMockAPIs
import MockCore
import Testing

/// A document split into thousands of files is read whole: bounded by the bytes it reads
/// and how deep its references nest, not by how many files it has.
@Suite struct SplitDocumentTests {
    @Test func aDocumentOfThousandsOfFilesIsServed() throws {
        let document = try Documents.api("generated/split/openapi.yaml").document()
        #expect(document.operationCount == 750)
        // Every file but the code samples: vendor extensions are not followed.
        let all = FileManager.default.enumerator(atPath: Documents.url("generated/split").path)?.allObjects.compactMap { $0 as? String } ?? []
        let files = all.filter { $0.hasSuffix(".yml") || $0.hasSuffix(".yaml") }
        let samples = files.filter { $0.contains("/examples/") }
        #expect(files.count > 2_000)
        #expect(document.fileCount == files.count - samples.count, "files read: \(document.fileCount) of \(files.count), \(samples.count) samples")
        #expect(document.notes.filter { $0.kind != .notServed }.isEmpty, "\(document.notes.prefix(5))")
        // A model used by many operations is one component.
        let single = document.json["paths"]?["/v2/block_agents/{block_agent_id}"]?["get"]?["responses"]?["200"]?["content"]?["application/json"]?["schema"]
        #expect(single?["properties"]?["block_agent"]?["$ref"] == "#/components/schemas/block_agent", "\(String(describing: single))")
        #expect(document.json["components"]?["schemas"]?["region"] != nil)

        let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: Documents.fixtures,
                                                                       apis: [Documents.api("generated/split/openapi.yaml")], strict: true))
        let headers = ["Authorization": "Bearer t"]
        let created = engine.send("POST", "/v2/block_agents", json: #"{"name": "a-1", "region": "fra1"}"#, headers: headers)
        #expect(created.status == 201, "\(String(describing: created.body))")
        let id = try #require(created.body?["block_agent"]?["id"]?.intValue, "\(String(describing: created.body))")
        let read = engine.send("GET", "/v2/block_agents/\(id)", headers: headers)
        #expect(read.body?["block_agent"]?["name"] == "a-1" && read.body?["block_agent"]?["region"] == "fra1", "\(String(describing: read.body))")
        let listed = engine.send("GET", "/v2/block_agents", headers: headers)
        #expect(listed.body?["block_agents"]?.arrayValue?.count == 1 && listed.body?["meta"]?["total"] == 1, "\(String(describing: listed.body))")
        #expect(engine.send("GET", "/v2/block_agents/\(id)").status == 401, "bearer_auth is read")
    }

    @Test func theBytesReadAreBoundedAndWhatIsPastTheBoundIsSkippedNamingIt() throws {
        let url = Documents.url("generated/split/openapi.yaml")
        let loaded = try DocumentLoader.load(url, limits: DocumentLoader.Limits(bytes: 120_000, depth: 64))
        #expect(loaded.bytes <= 120_000, "\(loaded.bytes)")
        let skipped = loaded.notes.filter { $0.kind == .skipped }
        #expect(!skipped.isEmpty)
        #expect(skipped.allSatisfy { $0.message.contains("more than") && $0.message.contains("is not read") }, "\(skipped.prefix(3))")
        let served = (loaded.json["paths"]?.objectValue ?? [:]).values.reduce(0) { $0 + ($1.objectValue?.count ?? 0) }
        #expect(served > 0 && served < 750, "the operations read within the bound are served: \(served)")
    }

    @Test func referencesNestedDeeperThanTheBoundAreSkippedNamingIt() throws {
        let folder = try Documents.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for index in 0..<70 {
            let next = index == 69 ? "{ type: string }" : "{ $ref: 'part\(index + 1).yaml' }"
            try Data("type: object\nproperties:\n  next: \(next)\n".utf8).write(to: folder.appendingPathComponent("part\(index).yaml"))
        }
        try Data("""
            openapi: 3.1.0
            info: { title: Deep, version: '1' }
            paths:
              /deep: { get: { responses: { '200': { description: x, content: { application/json: { schema: { $ref: 'part0.yaml' } } } } } } }
              /flat: { get: { responses: { '200': { description: x } } } }
            """.utf8).write(to: folder.appendingPathComponent("deep.yaml"))
        let loaded = try DocumentLoader.load(folder.appendingPathComponent("deep.yaml"), limits: DocumentLoader.Limits(bytes: 1 << 20, depth: 64))
        let skipped = loaded.notes.filter { $0.kind == .skipped }
        #expect(skipped.contains { $0.message.contains("GET /deep") && $0.message.contains("deeper than 64") }, "\(skipped)")
        #expect(loaded.json["paths"]?["/flat"]?["get"] != nil)
    }

    @Test func aBrokenFileOfASplitDocumentSkipsOnlyWhatUsesIt() throws {
        let folder = try Documents.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("type: object\nproperties: [oops\n".utf8).write(to: folder.appendingPathComponent("bad.yaml"))
        try Data("type: object\nproperties: { name: { type: string } }\n".utf8).write(to: folder.appendingPathComponent("good.yaml"))
        try Data("""
            openapi: 3.0.3
            info: { title: Split, version: '1' }
            paths:
              /bad: { get: { responses: { '200': { description: x, content: { application/json: { schema: { $ref: 'bad.yaml' } } } } } } }
              /good: { get: { responses: { '200': { description: x, content: { application/json: { schema: { $ref: 'good.yaml' } } } } } } }
            """.utf8).write(to: folder.appendingPathComponent("split.yaml"))
        let document = try OpenAPIDocumentAPI.read(folder.appendingPathComponent("split.yaml"))
        #expect(document.operations.map(\.path) == ["/good"])
        let note = try #require(document.notes.first { $0.kind == .skipped }, "\(document.notes)")
        #expect(note.message.contains("GET /bad") && note.message.contains("bad.yaml") && note.message.contains("line"), "\(note)")
    }
}

/// A document is read once per process (by file and modification time) however many
/// servers serve it.
@Suite struct DocumentCacheTests {
    private func copy(_ name: String, to folder: URL) throws -> URL {
        let target = folder.appendingPathComponent(URL(fileURLWithPath: name).lastPathComponent)
        try FileManager.default.copyItem(at: Documents.url(name), to: target)
        return target
    }

    @Test func serversOfOneDocumentReadItOnce() async throws {
        let cache = DocumentCache(capacity: 4)
        let url = Documents.url("petstore.yaml")
        let apis = (0..<40).map { _ in OpenAPIDocumentAPI.reading(url, cache: cache) }
        #expect(cache.readCount == 0, "made, not read")
        for api in apis {
            let engine = try MockEngine(configuration: EngineConfiguration(fixturesDirectory: Documents.fixtures, apis: [api]))
            #expect(engine.send("GET", "/api/pets").status == 200)
        }
        #expect(cache.readCount == 1)
        #expect(try apis[0].document() === apis[39].document())
    }

    @Test func aChangedFileIsReadAgain() throws {
        let folder = try Documents.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = DocumentCache(capacity: 4)
        let root = try copy("catalog.json", to: folder)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("schemas"), withIntermediateDirectories: true)
        let part = folder.appendingPathComponent("schemas/product.json")
        try FileManager.default.copyItem(at: Documents.url("schemas/product.json"), to: part)
        let first = try cache.document(at: root).get()
        #expect(try cache.document(at: root).get() === first)
        // A referenced file's change counts, as the root's does.
        var text = try String(contentsOf: part, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"maxLength\": 40", with: "\"maxLength\": 41")
        try Data(text.utf8).write(to: part)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 5)], ofItemAtPath: part.path)
        let second = try cache.document(at: root).get()
        #expect(second !== first)
        #expect("\(second.json)".contains("\"maxLength\":41"))
        #expect(cache.readCount == 2)
    }

    @Test func theCacheKeepsAtMostItsCapacity() throws {
        let cache = DocumentCache(capacity: 2)
        let names = ["petstore.yaml", "things.yaml", "catalog.json"]
        let first = try cache.document(at: Documents.url(names[0])).get()
        _ = try cache.document(at: Documents.url(names[1])).get()
        _ = try cache.document(at: Documents.url(names[2])).get()
        #expect(cache.count == 2)
        #expect(cache.readCount == 3)
        // The least recently used went: reading it again reads it.
        #expect(try cache.document(at: Documents.url(names[0])).get() !== first)
        #expect(cache.readCount == 4)
        _ = try cache.document(at: Documents.url(names[2])).get()
        #expect(cache.readCount == 4, "kept")
    }

    @Test func aDocumentThatCannotBeReadIsKeptWithItsProblems() {
        let cache = DocumentCache(capacity: 2)
        let url = Documents.url("broken.yaml")
        guard case .failure(let error) = cache.document(at: url) else { Issue.record("read"); return }
        #expect(error.problems.first?.file.hasSuffix("broken.yaml") == true)
        _ = cache.document(at: url)
        #expect(cache.readCount == 1)
    }
}

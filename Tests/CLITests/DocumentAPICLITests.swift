import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `mock-server --api FILE` as a user runs it: the document's API beside the built-ins,
/// its document at `/__admin/openapi/NAME`, `validate` reading documents, and exit status 2
/// for a bad one.
@Suite struct DocumentAPICLITests {
    static let document = """
        openapi: 3.0.3
        info: { title: Notes, version: "1" }
        servers: [{ url: /api }]
        paths:
          /notes:
            post:
              requestBody:
                required: true
                content:
                  application/json:
                    schema: { type: object, required: [text], properties: { text: { type: string } } }
              responses:
                '201':
                  description: Created
                  content:
                    application/json:
                      schema: { $ref: '#/components/schemas/Note' }
                '422':
                  description: Invalid
                  content:
                    application/json:
                      schema: { type: object, properties: { message: { type: string } } }
          /notes/{id}:
            get:
              parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]
              responses:
                '200':
                  description: A note
                  content:
                    application/json:
                      schema: { $ref: '#/components/schemas/Note' }
                '404': { description: Not found }
        components:
          schemas:
            Note:
              type: object
              required: [id, text]
              properties: { id: { type: integer }, text: { type: string } }
        """

    private func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.document.utf8).write(to: folder.appendingPathComponent("notes.yaml"))
        try Data("openapi: 3.1.0\ninfo: { title: Bad, version: '1' }\npaths:\n  /x:\n    get:\n      responses: 7\n".utf8)
            .write(to: folder.appendingPathComponent("bad.yaml"))
        return folder
    }

    private func send(_ method: String, _ url: String, body: String? = nil) async throws -> (JSONValueLite, Int) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return (JSONValueLite(data), (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    @Test func servesTheDocumentsAPIStatefullyAndStrictly() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let child = try MockServerProcess(["--port", "0", "--strict", "--api", folder.appendingPathComponent("notes.yaml").path])
        let line = try #require(await child.firstLine())
        let base = String(line.dropFirst("Listening on ".count))
        let (created, status) = try await send("POST", base + "/api/notes", body: #"{"text": "milk"}"#)
        #expect(status == 201)
        let id = try #require(created["id"] as? Int)
        let (read, readStatus) = try await send("GET", base + "/api/notes/\(id)")
        #expect(readStatus == 200)
        #expect(read["text"] as? String == "milk")
        let (refused, refusedStatus) = try await send("POST", base + "/api/notes", body: "{}")
        #expect(refusedStatus == 422)
        #expect((refused["message"] as? String)?.contains("text") == true)
        let (document, documentStatus) = try await send("GET", base + "/__admin/openapi/notes")
        #expect(documentStatus == 200)
        #expect((document["openapi"] as? String)?.hasPrefix("3.1") == true)
        let (_, menu) = try await send("GET", base + "/menu")
        #expect(menu == 200, "the built-in APIs are still served")
        child.signal(SIGINT)
        #expect(await child.waitForExit() == 0)
    }

    @Test func aBadDocumentExitsTwoNamingTheFileAndPointer() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = folder.appendingPathComponent("bad.yaml").path
        let (status, stdout, stderr) = try await MockServerProcess.run(["--port", "0", "--api", bad])
        #expect(status == 2)
        #expect(stdout.isEmpty)
        #expect(stderr.contains(bad) && stderr.contains("/paths/~1x/get"), "\(stderr)")
        let (validateStatus, _, validateErrors) = try await MockServerProcess.run(["validate", bad])
        #expect(validateStatus == 2)
        #expect(validateErrors.contains("/paths/~1x/get"), "\(validateErrors)")
        let (good, goodOut, _) = try await MockServerProcess.run(["validate", folder.appendingPathComponent("notes.yaml").path])
        #expect(good == 0)
        #expect(goodOut.contains("ok:"))
    }

    @Test func aNameTakenByABuiltInAPIIsRefused() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let restaurant = folder.appendingPathComponent("restaurant.yaml")
        try FileManager.default.copyItem(at: folder.appendingPathComponent("notes.yaml"), to: restaurant)
        let (status, _, stderr) = try await MockServerProcess.run(["--port", "0", "--api", restaurant.path])
        #expect(status == 2, "a usage error")
        #expect(stderr.contains("NAME=FILE"), "\(stderr)")
    }
}

/// A parsed JSON object's members, for reading a few fields.
struct JSONValueLite {
    let members: [String: Any]
    init(_ data: Data) { members = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:] }
    subscript(key: String) -> Any? { members[key] }
}

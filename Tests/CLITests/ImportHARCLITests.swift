import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `mock-server import-har` as a user runs it: exit statuses, messages, nothing written on
/// failure, and the written scenario served by `mock-server serve` over the wire.
@Suite struct ImportHARCLITests {
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0xFF, 0x00])

    static func entry(_ url: String, status: Int = 200, type: String = "application/json", text: String, base64: Bool = false,
                      headers: [String: String] = [:]) -> [String: Any] {
        var content: [String: Any] = ["size": text.utf8.count, "mimeType": type, "text": text]
        if base64 { content["encoding"] = "base64" }
        let responseHeaders = [["name": "Content-Type", "value": type]] + headers.map { ["name": $0.key, "value": $0.value] }
        return ["startedDateTime": "2026-11-23T10:00:00.123456+00:00", "time": 5,
                "request": ["method": "GET", "url": url, "headers": [["name": "Authorization", "value": "Bearer tok-cli"]]],
                "response": ["status": status, "headers": responseHeaders, "content": content, "redirectURL": ""],
                "timings": ["wait": 4, "receive": 1]]
    }

    static func har(_ entries: [[String: Any]]) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["log": ["version": "1.2", "creator": ["name": "Proxyman", "version": "5.0"], "entries": entries]])
    }

    static var session: [[String: Any]] { [
        entry("http://127.0.0.1:8080/menu", text: #"{"items":[{"id":1,"image_url":"http://127.0.0.1:8080/images/1.png"}]}"#),
        entry("http://127.0.0.1:8080/images/1.png", type: "image/png", text: png.base64EncodedString(), base64: true),
        entry("http://127.0.0.1:8080/old", status: 302, type: "text/plain", text: "", headers: ["Location": "http://127.0.0.1:8080/menu"]),
    ] }

    /// A fresh folder with the capture written as `capture.har`.
    static func folder(with har: Data) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("import-har-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try har.write(to: folder.appendingPathComponent("capture.har"))
        return folder
    }

    static func tree(_ folder: URL) -> [String: Data] {
        guard let walk = FileManager.default.enumerator(atPath: folder.path) else { return [:] }
        var found: [String: Data] = [:]
        for case let path as String in walk {
            var isFolder: ObjCBool = false
            let full = folder.appendingPathComponent(path).path
            if FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue {
                found[path] = FileManager.default.contents(atPath: full)
            } else if isFolder.boolValue {
                found[path + "/"] = Data()
            }
        }
        return found
    }

    @Test func helpListsEveryOptionAndTheRootListsTheCommand() async throws {
        let (status, wrapped, _) = try await MockServerProcess.run(["import-har", "--help"])
        #expect(status == 0)
        let help = wrapped.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for option in ["<file.har>", "--host", "--out", "--name", "--keep-secrets", "--keep-timing", "Exit status", "REDACTED",
                       "mock-server serve --fixtures DIR --scenario NAME"] {
            #expect(help.contains(option), "import-har --help does not mention \(option)")
        }
        let (_, root, _) = try await MockServerProcess.run(["--help"])
        #expect(root.contains("import-har"))
    }

    @Test func importsAndServesTheCaptureOverTheWire() async throws {
        let folder = try Self.folder(with: Self.har(Self.session))
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let (status, stdout, stderr) = try await MockServerProcess.run(["import-har", folder.appendingPathComponent("capture.har").path,
                                                                        "--out", out.path, "--keep-timing"])
        #expect(status == 0, "\(stderr)")
        #expect(stdout.contains("Imported 3 requests to 127.0.0.1:8080 into \(out.path)/scenarios/capture.json"), "\(stdout)")
        #expect(stdout.contains("Redacted (--keep-secrets keeps them): Authorization header ×3"), "\(stdout)")
        #expect(stdout.contains("Replay: mock-server serve --fixtures \(out.path) --scenario capture"), "\(stdout)")
        #expect(Self.tree(out).keys.sorted() == ["scenarios/", "scenarios/capture.json", "scenarios/capture/",
                                                 "scenarios/capture/0001-get-menu.json", "scenarios/capture/0002-get-images-1-png.png"])

        let server = try MockServerProcess(["serve", "--port", "0", "--fixtures", out.path, "--scenario", "capture"])
        let line = try #require(await server.firstLine())
        let base = String(line.dropFirst("Listening on ".count))
        let (menu, menuResponse) = try await URLSession.shared.data(from: URL(string: base + "/menu")!)
        #expect((menuResponse as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(String(decoding: menu, as: UTF8.self) == #"{"items":[{"id":1,"image_url":"\#(base)/images/1.png"}]}"#)
        let started = Date()
        let (image, imageResponse) = try await URLSession.shared.data(from: URL(string: base + "/images/1.png")!)
        #expect(Date().timeIntervalSince(started) >= 0.005, "--keep-timing: wait 4 + receive 1 ms")
        #expect(image == Self.png && (imageResponse as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "image/png")
        server.signal(SIGTERM)
        #expect(await server.waitForExit() == 0)
    }

    static let badCaptures: [(har: String, says: String)] = [
        ("not json", "$: not valid JSON: unexpected character at line 1, column 1"),
        (#"{"log": {}}"#, "$.log.entries: required key is missing"),
        (#"{"log":{"entries":[{"request":{"url":"http://h/"},"response":{"status":200}}]}}"#, "$.log.entries[0].request.method: required key is missing"),
        (#"{"log":{"entries":[{"request":{"method":"GET","url":"h/x"},"response":{"status":200}}]}}"#,
         #"$.log.entries[0].request.url: "h/x" is not an absolute URL (http://host/path)"#),
        (#"{"log":{"entries":[{"request":{"method":"GET","url":"http://h/"},"response":{"status":"OK"}}]}}"#,
         "$.log.entries[0].response.status: expected a number, found a string"),
        (#"{"log":{"entries":[{"request":{"method":"GET","url":"http://h/"},"response":{"status":200,"content":{"text":"%%%","encoding":"base64"}}}]}}"#,
         "$.log.entries[0].response.content.text: base64 that does not decode"),
        (#"{"log":{"entries":[{"request":{"method":"GET","url":"http://a/"},"response":{"status":200}},{"request":{"method":"GET","url":"http://b:81/"},"response":{"status":200}}]}}"#,
         "$.log.entries: requests to 2 hosts: a (1), b:81 (1); choose one with --host"),
    ]

    @Test(arguments: badCaptures)
    func badCaptureExits2AndWritesNothing(har: String, says: String) async throws {
        let folder = try Self.folder(with: Data(har.utf8))
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("capture.har").path
        let out = folder.appendingPathComponent("out")
        let (status, stdout, stderr) = try await MockServerProcess.run(["import-har", file, "--out", out.path])
        #expect(status == 2)
        #expect(stdout.isEmpty)
        #expect(stderr == "error: \(file): \(says)\n")
        #expect(!FileManager.default.fileExists(atPath: out.path), "nothing written")
    }

    @Test func anEarlierScenarioIsReplacedOnlyOnSuccess() async throws {
        let folder = try Self.folder(with: Self.har(Self.session))
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let capture = folder.appendingPathComponent("capture.har").path
        #expect(try await MockServerProcess.run(["import-har", capture, "--out", out.path, "--name", "app"]).0 == 0)
        let before = Self.tree(out)

        try Data(#"{"log":{"entries":[{"request":{"method":"GET","url":"http://127.0.0.1:8080/x"},"response":{"status":200,"content":{"text":"*","encoding":"base64"}}}]}}"#.utf8)
            .write(to: URL(fileURLWithPath: capture))
        #expect(try await MockServerProcess.run(["import-har", capture, "--out", out.path, "--name", "app"]).0 == 2)
        #expect(Self.tree(out) == before, "a failed import leaves the earlier scenario as it was")

        try Self.har([Self.entry("http://127.0.0.1:8080/categories", text: #"{"categories":[]}"#)]).write(to: URL(fileURLWithPath: capture))
        #expect(try await MockServerProcess.run(["import-har", capture, "--out", out.path, "--name", "app"]).0 == 0)
        #expect(Self.tree(out).keys.sorted() == ["scenarios/", "scenarios/app.json", "scenarios/app/", "scenarios/app/0001-get-categories.json"])
    }

    @Test func anUnwritableFolderExits2AndLeavesNothing() async throws {
        let folder = try Self.folder(with: Self.har(Self.session))
        defer { try? FileManager.default.removeItem(at: folder) }
        // A folder cannot be made inside a file, even by root.
        let out = folder.appendingPathComponent("capture.har/out")
        let (status, _, stderr) = try await MockServerProcess.run(["import-har", folder.appendingPathComponent("capture.har").path, "--out", out.path])
        #expect(status == 2)
        #expect(stderr.hasPrefix("error: cannot write the scenario in \(out.path): "), "\(stderr)")
        #expect(Self.tree(folder).keys.sorted() == ["capture.har"])
    }

    @Test func hostChoosesAmongSeveral() async throws {
        let folder = try Self.folder(with: Self.har(Self.session + [Self.entry("https://cdn.example/logo.png", type: "image/png", text: Self.png.base64EncodedString(), base64: true)]))
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("capture.har").path
        let (refused, _, message) = try await MockServerProcess.run(["import-har", file, "--out", folder.path])
        #expect(refused == 2)
        #expect(message == "error: \(file): $.log.entries: requests to 2 hosts: 127.0.0.1:8080 (3), cdn.example (1); choose one with --host\n")
        let (status, stdout, _) = try await MockServerProcess.run(["import-har", file, "--out", folder.path, "--host", "cdn.example", "--name", "cdn", "--keep-secrets"])
        #expect(status == 0)
        #expect(stdout.contains("Imported 1 request to cdn.example") && !stdout.contains("Redacted"), "\(stdout)")
        #expect(FileManager.default.contents(atPath: folder.appendingPathComponent("scenarios/cdn/0001-get-logo-png.png").path) == Self.png)
    }
}

import Foundation
import MockCore
import MockRecording
import Testing

/// HAR captures in the shapes Safari's Web Inspector and Proxyman export, imported and
/// replayed through the scenario engine (the CLI and a live replay are in CLITests).
@Suite struct HARImportTests {
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0xFF, 0x00, 0x80])

    /// One entry; `content` nil leaves the key out.
    static func entry(_ url: String, method: String = "GET", requestHeaders: [(String, String)] = [], post: JSONValue? = nil,
                      status: JSONValue = 200, headers: [(String, String)] = [("Content-Type", "application/json")],
                      content: JSONValue? = ["size": 2, "mimeType": "application/json", "text": "{}"], redirectURL: String = "",
                      timings: JSONValue = ["blocked": 0.2, "dns": -1, "connect": -1, "ssl": -1, "send": 0.1, "wait": 12.5, "receive": 1.5],
                      time: Double = 14.3, extra: [String: JSONValue] = [:]) -> JSONValue {
        func list(_ pairs: [(String, String)]) -> JSONValue { .array(pairs.map { ["name": .string($0.0), "value": .string($0.1)] }) }
        var request: [String: JSONValue] = ["method": .string(method), "url": .string(url), "httpVersion": "HTTP/1.1", "cookies": [],
                                            "headers": list(requestHeaders), "queryString": [], "headersSize": -1, "bodySize": 0]
        if let post { request["postData"] = post }
        var response: [String: JSONValue] = ["status": status, "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [],
                                             "headers": list(headers), "redirectURL": .string(redirectURL), "headersSize": -1, "bodySize": -1]
        if let content { response["content"] = content }
        var entry: [String: JSONValue] = ["startedDateTime": "2026-11-23T10:00:00.000Z", "time": .number(time), "request": .object(request),
                                          "response": .object(response), "cache": [:], "timings": timings]
        for (key, value) in extra { entry[key] = value }
        return .object(entry)
    }

    static func har(_ entries: [JSONValue], creator: String = "WebKit Web Inspector") -> Data {
        JSONCoding.encode(["log": ["version": "1.2", "creator": ["name": .string(creator), "version": "1.0"], "pages": [], "entries": .array(entries)]] as JSONValue)
    }

    static func text(_ body: String, mimeType: String = "application/json") -> JSONValue {
        ["size": .number(Double(body.utf8.count)), "mimeType": .string(mimeType), "text": .string(body)]
    }

    /// Imports into a fresh folder; returns the folder and the scenario as `serve` loads it.
    static func imported(_ data: Data, name: String = "captured", options: HARImport.Options = .init()) throws -> (URL, Scenario, HARImport.Capture) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("har-\(UUID().uuidString)")
        let capture = try HARImport.read(data, file: "capture.har", options: options)
        let file = try HARImport.write(capture, to: folder, name: name, source: "capture.har")
        return (folder, try ScenarioFile.load(file), capture)
    }

    static func engine(_ scenario: Scenario) -> MockEngine {
        // The scenario is the library's own: the engine cannot refuse it.
        try! MockEngine(scenarios: [scenario], current: scenario.name, source: ClosureResponder { _ in .error(404, "not captured") })
    }

    static func files(in folder: URL) -> [String: Data] {
        var found: [String: Data] = [:]
        let root = folder.standardizedFileURL.resolvingSymlinksInPath().path
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [:] }
        for case let url as URL in walk {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            found[String(url.standardizedFileURL.resolvingSymlinksInPath().path.dropFirst(root.count + 1))] = try? Data(contentsOf: url)
        }
        return found
    }

    /// Safari: plain and base64 bodies, a gzip'd response stored decoded, a missing
    /// mimeType, a body the capture left out, a redirect, an image, a repeated request.
    @Test func safariCaptureReplaysAsCaptured() throws {
        let base = "http://localhost:8080"
        let menu = #"{"items":[{"id":1,"image_url":"http:\/\/localhost:8080\/images\/1.png","price":9.0}]}"#
        let data = Self.har([
            Self.entry("\(base)/categories", headers: [("Content-Type", "application/json; charset=utf-8"), ("Content-Encoding", "gzip"), ("Date", "Mon, 23 Nov 2026 10:00:00 GMT")],
                       content: ["size": 54, "compression": 20, "mimeType": "application/json", "text": #"{"categories":["appetizers","entrees"]}"#],
                       extra: ["_fetchType": "Network Load"]),
            Self.entry("\(base)/menu?category=entrees", content: Self.text(menu)),
            Self.entry("\(base)/images/1.png", headers: [("Content-Type", "image/png"), ("ETag", "\"abc\"")],
                       content: ["size": .number(Double(Self.png.count)), "mimeType": "image/png", "text": .string(Self.png.base64EncodedString()), "encoding": "base64"]),
            Self.entry("\(base)/menu?category=soups", headers: [("Content-Type", "application/json")], content: ["size": 12, "text": #"{"items":[]}"#]),
            Self.entry("\(base)/old-menu", status: 301, headers: [("Location", "\(base)/menu")], content: ["size": 0, "mimeType": "x-unknown"]),
            Self.entry("\(base)/categories", headers: [("Content-Type", "application/json")], content: Self.text(#"{"categories":[]}"#)),
            Self.entry("\(base)/images/2.png", headers: [], content: ["size": 1009, "mimeType": "image/png"]),
            Self.entry("\(base)/menu?category=entrees", content: Self.text(menu), extra: ["_fetchType": "Memory Cache"]),
        ])
        let (folder, scenario, capture) = try Self.imported(data)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(capture.host == "localhost:8080")
        #expect(capture.notes.contains("$.log.entries[7]: left out: answered from the browser's cache (_fetchType Memory Cache), never sent"))
        #expect(capture.notes.contains("$.log.entries[6].response.content: no text in the capture; replayed with an empty body"))
        let engine = Self.engine(scenario)
        func answer(_ uri: String, base: String = "http://127.0.0.1:9999") -> ResponsePlan {
            engine.respond(to: MockRequest(method: "GET", uri: uri, baseURL: base))
        }

        // Repeated: the captured answers in order, then the last again.
        let first = answer("/categories")
        #expect(String(decoding: first.body, as: UTF8.self) == #"{"categories":["appetizers","entrees"]}"#)
        #expect(first.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(first.headers["Content-Encoding"] == nil && first.headers["Date"] == nil)
        #expect(String(decoding: answer("/categories").body, as: UTF8.self) == #"{"categories":[]}"#)
        #expect(String(decoding: answer("/categories").body, as: UTF8.self) == #"{"categories":[]}"#)
        // The capture's address (here JSON-escaped, `http:\/\/`) becomes the replay server's;
        // the rest of the text is kept byte for byte.
        #expect(String(decoding: answer("/menu?category=entrees").body, as: UTF8.self)
                    == #"{"items":[{"id":1,"image_url":"http://127.0.0.1:9999\/images\/1.png","price":9.0}]}"#)
        #expect(String(decoding: answer("/menu?category=entrees", base: base).body, as: UTF8.self)
                    == #"{"items":[{"id":1,"image_url":"http://localhost:8080\/images\/1.png","price":9.0}]}"#)
        // Missing mimeType: the header says it.
        #expect(answer("/menu?category=soups").headers["Content-Type"] == "application/json")
        // An image stays an image, in a .png file.
        let image = answer("/images/1.png")
        #expect(image.body == Self.png && image.headers["Content-Type"] == "image/png" && image.headers["ETag"] == "\"abc\"")
        let files = Self.files(in: folder)
        #expect(files["scenarios/captured/0003-get-images-1-png.png"] == Self.png, "\(files.keys.sorted())")
        // The redirect keeps its status and points at the replay server.
        let moved = answer("/old-menu")
        #expect(moved.status == 301 && moved.headers["Location"] == "http://127.0.0.1:9999/menu" && moved.body.isEmpty)
        // No text: an empty body, the captured type.
        let empty = answer("/images/2.png")
        #expect(empty.status == 200 && empty.body.isEmpty)
        // Exact on the query, as record is.
        #expect(answer("/menu?category=desserts").status == 404)
        #expect(Set(files.keys).isSuperset(of: ["scenarios/captured.json"]))
        #expect(!files.keys.contains { $0.contains(".import-") }, "the staging folder is gone")
    }

    /// Proxyman: an Open Market session with a vendor id, a multipart create whose `params`
    /// part carries the secret, a PATCH and a secret lookup with JSON secrets, a query
    /// with an identifier, cookies both ways.
    static func proxymanSession() -> Data {
        let base = "https://market.example"
        let boundary = "Boundary-7MA4YWxk"
        let multipart = "--\(boundary)\r\nContent-Disposition: form-data; name=\"params\"\r\nContent-Type: application/json\r\n\r\n"
            + #"{"name":"Pencil","descriptions":"A sharp pencil.","price":1200,"currency":"KRW","secret":"vendor-pw-1"}"#
            + "\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"images\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\nPNGBYTES\r\n--\(boundary)--\r\n"
        let vendor: [(String, String)] = [("identifier", "c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1"), ("Cookie", "session=s3cr3t-cookie"), ("Authorization", "Bearer tok-123")]
        return har([
            entry("\(base)/api/products", method: "POST", requestHeaders: vendor + [("Content-Type", "multipart/form-data; boundary=\(boundary)")],
                  post: ["mimeType": .string("multipart/form-data; boundary=\(boundary)"), "text": .string(multipart)],
                  status: 201, headers: [("Content-Type", "application/json"), ("Set-Cookie", "session=new-cookie; HttpOnly")],
                  content: text(#"{"id": 7, "vendor_id": 3, "name": "Pencil", "price": 1200.0}"#)),
            entry("\(base)/api/products/7", method: "PATCH", requestHeaders: vendor + [("Content-Type", "application/json")],
                  post: ["mimeType": "application/json", "text": #"{"name":"Pen","secret":"vendor-pw-1"}"#],
                  content: text(#"{"id": 7, "name": "Pen"}"#)),
            entry("\(base)/api/products/7/secret", method: "POST", requestHeaders: vendor,
                  post: ["mimeType": "application/json", "text": #"{"secret": "vendor-pw-1"}"#],
                  headers: [("Content-Type", "text/plain")], content: text("product-secret-9", mimeType: "text/plain")),
            entry("\(base)/api/vendor?identifier=c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1&page=1", method: "GET",
                  content: text(#"{"identifier" : "c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1", "password": null, "nested": [{"Password": "pw2"}]}"#)),
        ], creator: "Proxyman")
    }

    @Test func proxymanCaptureIsRedactedAndStillReplays() throws {
        let (folder, scenario, capture) = try Self.imported(Self.proxymanSession())
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(capture.host == "market.example")
        #expect(capture.redactions == ["secret": 3, "identifier": 1, "Password": 1, "identifier in the query": 1, "identifier header": 3,
                                       "Cookie header": 3, "Authorization header": 3, "Set-Cookie header": 1])
        // Nothing written holds a secret.
        for (path, data) in Self.files(in: folder) {
            let text = String(decoding: data, as: UTF8.self)
            for secret in ["vendor-pw-1", "c4dedb6a", "s3cr3t-cookie", "tok-123", "new-cookie", "pw2"] {
                #expect(!text.contains(secret), "\(path) holds \(secret)")
            }
        }
        // Redacted in place: the rest of the body is the server's bytes.
        let engine = Self.engine(scenario)
        let vendor = engine.respond(to: MockRequest(method: "GET", uri: "/api/vendor?identifier=another-vendor&page=1"))
        #expect(String(decoding: vendor.body, as: UTF8.self)
                    == #"{"identifier" : "REDACTED", "password": null, "nested": [{"Password": "REDACTED"}]}"#)
        // The client's real secrets still match the rules built from redacted requests.
        let patch = engine.respond(to: MockRequest(method: "PATCH", uri: "/api/products/7", body: Data(#"{"secret":"other","name":"Pen"}"#.utf8)))
        #expect(patch.status == 200 && String(decoding: patch.body, as: UTF8.self) == #"{"id": 7, "name": "Pen"}"#)
        #expect(engine.respond(to: MockRequest(method: "PATCH", uri: "/api/products/7", body: Data(#"{"name":"Other"}"#.utf8))).status == 404)
        let secret = engine.respond(to: MockRequest(method: "POST", uri: "/api/products/7/secret", body: Data(#"{"secret":"x"}"#.utf8)))
        #expect(String(decoding: secret.body, as: UTF8.self) == "product-secret-9")
        #expect(engine.respond(to: MockRequest(method: "GET", uri: "/api/vendor?page=1")).status == 404, "the identifier must be there")
        let created = engine.respond(to: MockRequest(method: "POST", uri: "/api/products", body: Data("other multipart".utf8)))
        #expect(created.status == 201 && created.headers["Set-Cookie"] == "REDACTED")
        // The exchange itself: the multipart params part and the headers are redacted too.
        let post = try #require(capture.exchanges.first)
        let body = String(decoding: post.requestBody, as: UTF8.self)
        #expect(body.contains(#""currency":"KRW","secret":"REDACTED"}"#) && body.contains("PNGBYTES") && !body.contains("vendor-pw-1"))
        #expect(post.requestHeaders["identifier"] == "REDACTED" && post.requestHeaders["Authorization"] == "REDACTED" && post.requestHeaders["Cookie"] == "REDACTED")
    }

    @Test func keepSecretsKeepsThemAndMatchesExactly() throws {
        let (folder, scenario, capture) = try Self.imported(Self.proxymanSession(), options: .init(keepSecrets: true))
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(capture.redactions.isEmpty)
        let engine = Self.engine(scenario)
        #expect(engine.respond(to: MockRequest(method: "PATCH", uri: "/api/products/7", body: Data(#"{"secret":"other","name":"Pen"}"#.utf8))).status == 404)
        #expect(engine.respond(to: MockRequest(method: "PATCH", uri: "/api/products/7", body: Data(#"{"name":"Pen","secret":"vendor-pw-1"}"#.utf8))).status == 200)
        let vendor = engine.respond(to: MockRequest(method: "GET", uri: "/api/vendor?identifier=c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1&page=1"))
        #expect(String(decoding: vendor.body, as: UTF8.self).contains("\"pw2\""))
        #expect(capture.exchanges.first?.requestHeaders["Authorization"] == "Bearer tok-123")
    }

    @Test func keepTimingUsesWaitPlusReceiveElseTime() throws {
        let data = Self.har([
            Self.entry("http://localhost:8080/a", content: Self.text(#"{"n":1}"#)),
            Self.entry("http://localhost:8080/b", content: Self.text(#"{"n":2}"#), timings: ["send": 1, "wait": -1, "receive": -1], time: 250),
            Self.entry("http://localhost:8080/a", content: Self.text(#"{"n":1}"#), timings: ["wait": 40, "receive": -1]),
        ])
        let (folder, scenario, _) = try Self.imported(data, options: .init(keepTiming: true))
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = Self.engine(scenario)
        #expect(engine.respond(to: MockRequest(method: "GET", uri: "/a")).delay == 0.014)
        #expect(engine.respond(to: MockRequest(method: "GET", uri: "/a")).delay == 0.040)
        #expect(engine.respond(to: MockRequest(method: "GET", uri: "/b")).delay == 0.250)
        let file = try String(contentsOf: folder.appendingPathComponent("scenarios/captured.json"), encoding: .utf8)
        #expect(file.contains(#""fixed" : 14"#) && file.contains(#""fixed" : 250"#), "\(file)")

        let (plainFolder, plain, _) = try Self.imported(data)
        defer { try? FileManager.default.removeItem(at: plainFolder) }
        #expect(Self.engine(plain).respond(to: MockRequest(method: "GET", uri: "/a")).delay == 0)
    }

    @Test func severalHostsNeedHost() throws {
        let data = Self.har([
            Self.entry("https://api.example/menu"), Self.entry("https://api.example/categories"),
            Self.entry("http://localhost:8080/menu"), Self.entry("data:image/png;base64,AAAA"),
        ])
        #expect(throws: FixtureError.self) { try HARImport.read(data, file: "c.har") }
        do {
            _ = try HARImport.read(data, file: "c.har")
        } catch {
            #expect(error.description == "c.har: $.log.entries: requests to 2 hosts: api.example (2), localhost:8080 (1); choose one with --host")
        }
        let api = try HARImport.read(data, file: "c.har", options: .init(host: "api.example"))
        #expect(api.exchanges.map(\.path) == ["/menu", "/categories"] && api.origins == ["https://api.example"])
        #expect(api.notes == ["$.log.entries[3]: left out: a data: URL, not HTTP"])
        #expect(try HARImport.read(data, file: "c.har", options: .init(host: "API.example:443")).exchanges.count == 2)
        #expect(try HARImport.read(data, file: "c.har", options: .init(host: "localhost:8080")).exchanges.count == 1)
        do {
            _ = try HARImport.read(data, file: "c.har", options: .init(host: "localhost"))
            Issue.record("localhost is not localhost:8080")
        } catch {
            #expect(error.description == "c.har: $.log.entries: no request to localhost; the capture's hosts (requests): api.example (2), localhost:8080 (1)")
        }
    }

    @Test func mitmproxySurrogateEscapesAreRead() throws {
        // mitmproxy writes undecodable bytes as lone surrogates; a valid pair stays.
        let text = #"{"log":{"entries":[{"request":{"method":"POST","url":"http://h/x","postData":{"text":"\udc89PNG \ud83d\ude00"}},"response":{"status":200,"content":{"text":"ok","mimeType":"text/plain"}}}]}}"#
        let capture = try HARImport.read(Data(text.utf8), file: "m.har")
        #expect(String(decoding: capture.exchanges[0].requestBody, as: UTF8.self) == "\u{FFFD}PNG 😀")
        #expect(capture.notes.contains { $0.hasPrefix("$: 1 lone UTF-16 surrogate escape") })
    }
}

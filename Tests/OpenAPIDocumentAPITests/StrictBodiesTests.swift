import Foundation
@testable import OpenAPIDocumentAPI
import MockCore
import Testing

/// With `--strict` every body media type an operation declares is checked (JSON, forms,
/// multipart, XML), with `format` bounds, and a request valid for the document is never
/// refused.
@Suite struct StrictBodiesTests {
    private func send(_ engine: MockEngine, _ method: String, _ uri: String, type: String, body: String) -> (status: Int, reason: String) {
        let plan = engine.respond(to: MockRequest(method: method, uri: uri, headers: HeaderFields([("Content-Type", type)]),
                                                  body: Data(body.utf8), baseURL: "http://127.0.0.1:8080"))
        return (plan.status, String(decoding: plan.body, as: UTF8.self))
    }

    private static func multipart(_ parts: [(name: String, value: String, type: String?)]) -> (type: String, body: String) {
        var body = ""
        for part in parts {
            body += "--b0undary\r\nContent-Disposition: form-data; name=\"\(part.name)\"" + (part.type == nil ? "" : "; filename=\"f.bin\"") + "\r\n"
            if let type = part.type { body += "Content-Type: \(type)\r\n" }
            body += "\r\n\(part.value)\r\n"
        }
        return ("multipart/form-data; boundary=b0undary", body + "--b0undary--\r\n")
    }

    @Test func formBodiesAreCheckedAgainstTheirSchema() throws {
        let engine = try Documents.engine("generated/imperfect.yaml", strict: true)
        let form = "application/x-www-form-urlencoded"
        #expect(send(engine, "PUT", "/imperfect/settings", type: form, body: "theme=dark&volume=3").status == 204)
        let badEnum = send(engine, "PUT", "/imperfect/settings", type: form, body: "theme=blue")
        #expect(badEnum.status == 400 && badEnum.reason.contains("$.body.theme"), "\(badEnum)")
        #expect(send(engine, "PUT", "/imperfect/settings", type: form, body: "theme=dark&volume=11").status == 400)
        #expect(send(engine, "PUT", "/imperfect/settings", type: form, body: "theme=dark&volume=loud").status == 400)
        #expect(send(engine, "PUT", "/imperfect/settings", type: form, body: "volume=3").status == 400, "theme is required")
    }

    @Test func xmlBodiesAreReadAsTheirSchemaSaysAndChecked() throws {
        let engine = try Documents.engine("generated/imperfect.yaml", strict: true)
        let xml = "application/xml"
        #expect(send(engine, "PUT", "/imperfect/settings", type: xml, body: "<?xml version=\"1.0\"?><settings><theme>dark</theme><volume>3</volume></settings>").status == 204)
        let bad = send(engine, "PUT", "/imperfect/settings", type: xml, body: "<settings><theme>blue</theme></settings>")
        #expect(bad.status == 400 && bad.reason.contains("$.body.theme"), "\(bad)")
        #expect(send(engine, "PUT", "/imperfect/settings", type: xml, body: "<settings><theme>dark</theme><volume>x</volume></settings>").status == 400)
        #expect(send(engine, "PUT", "/imperfect/settings", type: xml, body: "<settings><volume>3</volume></settings>").status == 400)
        let malformed = send(engine, "PUT", "/imperfect/settings", type: xml, body: "<settings><theme>dark</settings>")
        #expect(malformed.status == 400 && malformed.reason.contains("not XML"), "\(malformed)")
        let other = send(engine, "PUT", "/imperfect/settings", type: "text/xml", body: "<settings><theme>light</theme></settings>")
        #expect(other.status == 400 && other.reason.contains("Content-Type"), "a media type the operation does not take: \(other)")
    }

    @Test func multipartTextPartsAreCheckedWithTheirFormatBounds() throws {
        let engine = try Documents.engine("generated/imperfect.yaml", strict: true)
        let good = Self.multipart([("purpose", "batch", nil), ("file", "bytes", "application/octet-stream"), ("size", "5", nil)])
        #expect(send(engine, "POST", "/imperfect/files", type: good.type, body: good.body).status == 200)
        let badEnum = Self.multipart([("purpose", "other", nil), ("file", "bytes", "application/octet-stream")])
        let refused = send(engine, "POST", "/imperfect/files", type: badEnum.type, body: badEnum.body)
        #expect(refused.status == 400 && refused.reason.contains("$.body.purpose"), "\(refused)")
        let int32 = Self.multipart([("purpose", "batch", nil), ("file", "bytes", "application/octet-stream"), ("size", "2147483648", nil)])
        let overflow = send(engine, "POST", "/imperfect/files", type: int32.type, body: int32.body)
        #expect(overflow.status == 400 && overflow.reason.contains("int32"), "\(overflow)")
    }

    @Test func int64BoundsAreExactAtTheirEdges() throws {
        let engine = try Documents.engine("generated/imperfect.yaml", strict: true)
        func completion(seed: String) -> Int {
            send(engine, "POST", "/imperfect/completions", type: "application/json", body: #"{"model": "m", "prompt": "p", "seed": \#(seed)}"#).status
        }
        #expect(completion(seed: "9223372036854775807") == 200)
        #expect(completion(seed: "-9223372036854775808") == 200)
        #expect(completion(seed: "9223372036854775808") == 400)
        #expect(completion(seed: "-9223372036854775809") == 400)
        #expect(completion(seed: "1e30") == 400)
    }

    @Test func aDanglingReferenceNamesTheReferenceItCouldNotFind() {
        let validator = SchemaValidator(document: ["components": ["schemas": [:]]])
        let problems = validator.problems(["a": 1], against: ["$ref": "#/components/schemas/Missing"], at: "$.body")
        #expect(problems.count == 1 && problems[0].contains("#/components/schemas/Missing"), "\(problems)")
    }

    /// Requests made valid for each operation's document, from its schemas, are never refused.
    @Test(arguments: ["petstore.yaml", "catalog.json", "things.yaml", "generated/journal.yaml", "generated/records.json",
                      "generated/imperfect.yaml", "generated/swagger.json", "generated/split/openapi.yaml"])
    func aValidRequestIsNeverRefused(name: String) throws {
        let document = try Documents.api(name).document()
        let base = document.basePaths[0]
        var refused: [String] = []
        var made = 0
        for operation in document.operations {
            for round in 0..<6 {
                var random = SeededRandom(seed: UInt64(round), stream: "valid \(operation.name)")
                guard let request = ValidRequests.make(operation, document: document, base: base, using: &random) else { continue }
                made += 1
                let violations = document.conformance.violations(of: request) ?? [RequestViolation(path: "$", reason: "no operation matched")]
                if !violations.isEmpty {
                    refused.append("\(request.method) \(request.uri) \(String(decoding: request.body.prefix(200), as: UTF8.self)): \(violations)")
                }
            }
        }
        #expect(made >= document.operationCount * 5, "requests were made: \(made)")
        #expect(refused.isEmpty, "\(refused.count) refused:\n\(refused.prefix(5).joined(separator: "\n"))")
    }
}

/// Requests valid for an operation, made from its schemas with a seeded generator.
enum ValidRequests {
    static func make(_ operation: DocumentOperation, document: OpenAPIDocument, base: String, using random: inout SeededRandom) -> MockRequest? {
        let validator = document.validator
        let sampler = SchemaSampler(document: document.json, direction: .request)
        guard let item = document.json["paths"]?[operation.path].map(validator.resolved),
              let raw = item[operation.method.lowercased()] else { return nil }
        let parameters = ((item["parameters"]?.arrayValue ?? []) + (raw["parameters"]?.arrayValue ?? [])).map(validator.resolved)
        var path = operation.path
        var query: [String] = []
        var headers = HeaderFields()
        for parameter in parameters {
            guard let name = parameter["name"]?.stringValue, let place = parameter["in"]?.stringValue else { continue }
            let schema = parameter["schema"] ?? ["type": "string"]
            let required = parameter["required"]?.boolValue ?? (place == "path")
            guard required || random.next() % 2 == 0 else { continue }
            let value = sampler.sample(schema, using: &random)
            let texts: [String]
            switch value {
            case .array(let items): texts = parameter["explode"] == .bool(false) || place != "query" ? [items.map(text).joined(separator: ",")] : items.map(text)
            default: texts = [text(value)]
            }
            switch place {
            case "path": path = path.replacingOccurrences(of: "{\(name)}", with: escaped(texts.first ?? "x"))
            case "query": query += texts.map { "\(escaped(name))=\(escaped($0))" }
            case "header": headers.add(name, texts.first ?? "")
            default: continue
            }
        }
        for alternative in operation.security.alternatives.prefix(1) {
            for credential in alternative {
                switch credential.place {
                case .authorization(let scheme): headers.set("Authorization", "\((scheme ?? "bearer").capitalized) token")
                case .header(let name): headers.set(name, "key")
                case .query(let name): query.append("\(name)=key")
                case .cookie(let name): headers.add("Cookie", "\(name)=key")
                }
            }
        }
        var body = Data()
        if let requestBody = raw["requestBody"].map(validator.resolved), let content = requestBody["content"]?.objectValue,
           let (type, media) = content.sorted(by: { $0.key < $1.key }).first {
            let schema = media["schema"] ?? [:]
            let value = sampler.sample(schema, using: &random)
            let lowered = type.lowercased()
            if lowered.contains("json") {
                body = JSONCoding.encode(value)
            } else if lowered == "application/x-www-form-urlencoded" {
                body = Data((value.objectValue ?? [:]).sorted { $0.key < $1.key }.flatMap { key, item -> [String] in
                    if case .array(let items) = item { return items.map { "\(escaped(key))=\(escaped(text($0)))" } }
                    return ["\(escaped(key))=\(escaped(text(item)))"]
                }.joined(separator: "&").utf8)
            } else if lowered.hasPrefix("multipart/") {
                var text = ""
                for (key, item) in (value.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                    let items: [JSONValue] = item.arrayValue.map { $0 } ?? [item]
                    let property = validator.resolved(validator.resolved(schema)["properties"]?[key] ?? [:])
                    let isFile = property["format"] == "binary" || property["items"].map(validator.resolved)?["format"] == "binary"
                    for part in items {
                        text += "--b0undary\r\nContent-Disposition: form-data; name=\"\(key)\"\(isFile ? "; filename=\"f\"" : "")\r\n"
                        if isFile { text += "Content-Type: application/octet-stream\r\n" }
                        if case .object = part { text += "Content-Type: application/json\r\n" }
                        text += "\r\n\(part.objectValue != nil ? part.description : Self.text(part))\r\n"
                    }
                }
                body = Data((text + "--b0undary--\r\n").utf8)
                headers.set("Content-Type", "multipart/form-data; boundary=b0undary")
            } else {
                return nil
            }
            if headers["Content-Type"] == nil { headers.set("Content-Type", type) }
        }
        let uri = base + path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        return MockRequest(method: operation.method, uri: uri, headers: headers, body: body, baseURL: "http://127.0.0.1:8080")
    }

    static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return text
        case .number: return value.description
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return ""
        default: return value.description
        }
    }

    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}

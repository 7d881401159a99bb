import Foundation
import MockFixtures
@testable import OpenAPIDocumentAPI
import BuiltInMockAPIs
import MockCore

/// The test documents (`Documents/`), and engines serving them.
enum Documents {
    static func url(_ name: String) -> URL {
        Bundle.module.url(forResource: "Documents", withExtension: nil)!.appendingPathComponent(name)
    }

    /// The built-in fixtures, for engines that need a folder.
    static var fixtures: URL { MockFixtures.directory }

    static func api(_ name: String, stateful: Bool = true) throws -> OpenAPIDocumentAPI {
        try OpenAPIDocumentAPI(contentsOf: url(name), stateful: stateful)
    }

    /// A new empty folder of the test's own (the caller removes it).
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func engine(_ name: String, seed: UInt64 = 0, strict: Bool = false, stateful: Bool = true) throws -> MockEngine {
        try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory,
                                                          apis: BuiltInAPIs.all + [api(name, stateful: stateful)],
                                                          seed: seed, timeSource: FixedTimeSource(), strict: strict))
    }
}

/// A clock that never moves.
struct FixedTimeSource: TimeSource {
    func now() -> Date { Date(timeIntervalSince1970: 1_750_000_000) }
}

extension MockEngine {
    /// `method uri` with a JSON body and headers, answered.
    func send(_ method: String, _ uri: String, json: String? = nil, headers: [String: String] = [:],
              base: String = "http://127.0.0.1:8080") -> (status: Int, body: JSONValue?, plan: ResponsePlan) {
        var fields = HeaderFields(headers.map { ($0.key, $0.value) })
        if json != nil { fields.set("Content-Type", "application/json") }
        let plan = respond(to: MockRequest(method: method, uri: uri, headers: fields, body: Data((json ?? "").utf8), baseURL: base))
        return (plan.status, JSONValue(parsing: plan.body), plan)
    }
}

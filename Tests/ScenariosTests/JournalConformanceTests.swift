import Foundation
import MockFixtures
import Testing
@testable import BuiltInMockAPIs
@testable import MockCore

/// A journal entry's OpenAPI violations (#23) are the same whether they were found as the
/// request arrived or from the kept request when first asked for (#24): an entry that
/// keeps its body whole is checked when asked, one that keeps only a digest was checked
/// while the body was still there.
@Suite struct JournalConformanceTests {
    static let json: HeaderFields = ["Content-Type": "application/json"]
    /// 19 bytes: over a journal body limit of 8, within the default one.
    static let badOrder = #"{"menuIds": "1, 5"}"#
    static let expected = [#"$.body.menuIds: expected array, found a string "1, 5""#]

    static func engine(journalBodyLimit: Int) throws -> MockEngine {
        try MockEngine(configuration: EngineConfiguration(fixturesDirectory: MockFixtures.directory, journalBodyLimit: journalBodyLimit))
    }

    static func order(_ body: String) -> MockRequest {
        MockRequest(method: "POST", uri: "/order", headers: json, body: Data(body.utf8))
    }

    @Test(arguments: [8, 64 * 1024])
    func aBodyTheEntryKeepsOrNotGivesTheSameViolations(journalBodyLimit: Int) throws {
        let engine = try Self.engine(journalBodyLimit: journalBodyLimit)
        _ = engine.respond(to: Self.order(Self.badOrder))
        let entry = try #require(engine.journal.entries().first)
        // With a limit of 8 the entry holds only the body's digest: had the check waited for
        // the entry, it would have seen no body ("the required body is missing").
        #expect((entry.request.body.data == nil) == (journalBodyLimit == 8))
        #expect(entry.violations.map(\.description) == Self.expected)
        #expect(engine.violations(of: Self.order(Self.badOrder))?.map(\.description) == Self.expected)
    }

    @Test func queryAndPathViolationsComeFromTheKeptRequest() throws {
        let engine = try Self.engine(journalBodyLimit: 64 * 1024)
        for uri in ["/api/products?page_no=0&items_per_page=10", "/api/products/abc", "/menu?categroy=soups", "/menu"] {
            _ = engine.respond(to: MockRequest(method: "GET", uri: uri))
        }
        #expect(engine.journal.entries().map { $0.violations.map(\.description) } == [
            ["$.query.page_no: 0 is below 1"],
            [#"$.path.id: expected integer, found a string "abc""#],
            ["$.query.categroy: a query parameter the document does not have (it has category)"],
            [],
        ])
    }

    @Test func aRequestTheTransportRefusedIsNotChecked() throws {
        let engine = try Self.engine(journalBodyLimit: 64 * 1024)
        _ = Pipeline(engine: engine).rejected(Self.order(""), .error(413, "too large"))
        #expect(try #require(engine.journal.entries().first).violations.isEmpty)
    }
}

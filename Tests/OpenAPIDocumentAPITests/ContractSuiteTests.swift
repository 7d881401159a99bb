import ContractTests
import Foundation
@testable import OpenAPIDocumentAPI
import OpenAPIDocumentContract
import Testing

/// `OpenAPIContract` passes a correct client of `petstore.yaml` and fails each broken one
/// with the check and the operation that catch it.
@Suite struct ContractSuiteTests {
    /// A call per operation of `petstore.yaml`.
    static let calls: [String: OpenAPIContract.Call<PetsClient>] = [
        "listPets": { try await $0.pets(limit: 10) },
        "createPet": { try await $0.create(name: "Kit") },
        "showPet": { try await $0.pet(id: 1) },
        "replacePet": { try await $0.replace(id: 1, name: "Rex") },
        "deletePet": { try await $0.delete(id: 1) },
        "petPhoto": { try await $0.photo(id: 1) },
    ]

    /// A check may last twice the timeout and a margin: the cancellation check holds the
    /// answer 0.6 × the timeout, then waits as long again for a retry.
    static func suite(transport: ContractTransport = .sockets, timeout: TimeInterval = 1, timingAttempts: Int = 2) throws -> ContractSuite<PetsClient> {
        try OpenAPIContract.suite(document: Documents.url("petstore.yaml"),
                                  configuration: SuiteConfiguration(timeout: timeout, transport: transport, checkTimeLimit: max(30, timeout * 2 + 10),
                                                                    timingAttempts: timingAttempts), calls: calls)
    }

    /// The report of `checks` run against a client with `bugs`, each check once: a broken
    /// client fails every attempt.
    /// The checks of requests and answers do not measure time: their 10 s timeout only bounds
    /// how long a loaded machine may take to connect (a whole run once took over 1 s).
    static func report(_ checks: [String], bugs: Set<PetsClient.Bug>, timeout: TimeInterval = 10) async throws -> ContractReport {
        let suite = try suite(timeout: timeout, timingAttempts: 1).only(checks)
        return await suite.run { PetsClient(context: $0, bugs: bugs) }
    }

    /// End to end on the real clock, as users run it: a 10 s timeout puts the slow answer
    /// (6 s) 4 s inside it, a margin a loaded 2-core machine does not eat (with 1 s, a full
    /// run here once timed out one call of 31).
    @Test(arguments: [ContractTransport.sockets, .inProcess])
    func aCorrectClientPassesEveryCheck(transport: ContractTransport) async throws {
        let suite = try Self.suite(transport: transport, timeout: 10)
        #expect(suite.checks.count == 6 * 5 + 1)
        let report = await suite.run { PetsClient(context: $0) }
        #expect(report.passed, "\(report)")
    }

    @Test func eachOperationHasItsChecksNamedForIt() throws {
        let ids = try Self.suite().checks.map(\.id)
        #expect(ids.filter { $0.hasPrefix("petstore.showPet.") }
                == ["petstore.showPet.request", "petstore.showPet.answers", "petstore.showPet.timeout.hang",
                    "petstore.showPet.timeout.slow-in-time", "petstore.showPet.cancellation"])
        #expect(ids.last == "petstore.coverage")
    }

    /// The failing check's message names what broke; every other check run beside it passes.
    private func expectOnlyFailure(_ report: ContractReport, _ id: String, mentions words: [String],
                                   sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(report.failures.map(\.id) == [id], "\(report)", sourceLocation: sourceLocation)
        let message = try #require(report.result(id)?.message, sourceLocation: sourceLocation)
        for word in words {
            #expect(message.contains(word), "\(word) not in: \(message)", sourceLocation: sourceLocation)
        }
    }

    @Test func aWrongPathFailsTheRequestCheck() async throws {
        let report = try await Self.report(["petstore.showPet.request", "petstore.listPets.request"], bugs: [.wrongPath])
        try expectOnlyFailure(report, "petstore.showPet.request", mentions: ["showPet", "GET /api/pets/{petId}", "GET /api/pet/1", "no operation of the document"])
    }

    @Test func aWrongMethodFailsTheRequestCheck() async throws {
        let report = try await Self.report(["petstore.replacePet.request", "petstore.showPet.request"], bugs: [.wrongMethod])
        try expectOnlyFailure(report, "petstore.replacePet.request", mentions: ["replacePet", "PUT /api/pets/{petId}", "PATCH /api/pets/1", "$.method"])
    }

    @Test func aMissingRequiredBodyFieldFailsTheRequestCheck() async throws {
        let report = try await Self.report(["petstore.createPet.request"], bugs: [.missingRequiredField])
        try expectOnlyFailure(report, "petstore.createPet.request", mentions: ["createPet", "POST /api/pets", "$.body", "name"])
    }

    @Test func aMisspeltQueryParameterFailsTheRequestCheck() async throws {
        let report = try await Self.report(["petstore.listPets.request"], bugs: [.misspeltQuery])
        try expectOnlyFailure(report, "petstore.listPets.request", mentions: ["listPets", "$.query.page_size", "limit"])
    }

    /// A client that decodes every body as the success type throws a `DecodingError` on the
    /// documented 404, and returns on a 404 with no body to decode.
    @Test func ignoringTheStatusFailsTheAnswersCheck() async throws {
        let report = try await Self.report(["petstore.showPet.answers", "petstore.deletePet.answers", "petstore.listPets.answers"],
                                           bugs: [.statusIgnored])
        #expect(report.failures.map(\.id) == ["petstore.deletePet.answers", "petstore.showPet.answers"], "\(report)")
        let show = try #require(report.result("petstore.showPet.answers")?.message)
        #expect(show.contains("404 (example \"missing\")"), "\(show)")
        #expect(show.contains("DecodingError.keyNotFound(\"id\")"), "\(show)")
        #expect(show.contains("a decoding error on an error status"), "\(show)")
        let delete = try #require(report.result("petstore.deletePet.answers")?.message)
        #expect(delete.contains("404: the call returned"), "\(delete)")
        #expect(delete.contains("an error status taken for success"), "\(delete)")
    }

    @Test func anErrorModelThatDoesNotFitFailsTheAnswersCheck() async throws {
        let report = try await Self.report(["petstore.createPet.answers", "petstore.listPets.answers"], bugs: [.otherErrorModel])
        try expectOnlyFailure(report, "petstore.createPet.answers", mentions: ["createPet", "422", "DecodingError.keyNotFound(\"error\")"])
    }

    /// Every documented success is decoded: `listPets`' example `two` has numeric ids.
    @Test func aModelThatBreaksOnADocumentedExampleFailsTheAnswersCheck() async throws {
        let report = try await Self.report(["petstore.listPets.answers"], bugs: [.textIDs])
        try expectOnlyFailure(report, "petstore.listPets.answers", mentions: ["listPets", "200 (example \"two\")", "DecodingError.typeMismatch"])
        #expect(report.result("petstore.listPets.answers")?.message?.contains("200 (example \"none\"): ") == false,
                "the empty list decodes with either model")
    }

    @Test func ignoringTheTimeoutFailsTheHangCheck() async throws {
        let report = try await Self.report(["petstore.showPet.timeout.hang"], bugs: [.noTimeout], timeout: 1)
        try expectOnlyFailure(report, "petstore.showPet.timeout.hang", mentions: ["showPet", "no timeout?"])
    }

    @Test func retryingACancelledCallFailsTheCancellationCheck() async throws {
        // The cancel must land while the answer is still held back (0.6 × the timeout), and
        // the retry must reach the server within that hold and half a second: a 30 s timeout
        // keeps both there on a loaded machine (with 6 s, a full run here once saw the retry
        // land after the check stopped watching).
        let report = try await Self.report(["petstore.listPets.cancellation"], bugs: [.retriesEverything], timeout: 30)
        try expectOnlyFailure(report, "petstore.listPets.cancellation", mentions: ["listPets", "2 times"])
    }

    @Test func anOperationWithoutACallIsNamedByTheCoverageCheck() async throws {
        var calls = Self.calls
        calls["petPhoto"] = nil
        let suite = try OpenAPIContract.suite(document: Documents.url("petstore.yaml"), calls: calls)
        #expect(!suite.checks.contains { $0.id.hasPrefix("petstore.petPhoto.") })
        let report = await suite.only(["petstore.coverage"]).run { PetsClient(context: $0) }
        let coverage = try #require(report.result("petstore.coverage"))
        #expect(coverage.level == .recommended)
        #expect(coverage.message?.contains("petPhoto (GET /api/pets/{petId}/photo) has no call") == true, "\(report)")
    }

    @Test func aCallForAnOperationTheDocumentLacksIsRefused() throws {
        var calls = Self.calls
        calls["listDogs"] = { try await $0.pets(limit: 1) }
        let error = #expect(throws: OpenAPIContractError.self) {
            _ = try OpenAPIContract.suite(document: Documents.url("petstore.yaml"), calls: calls)
        }
        #expect(error?.description.contains("listDogs") == true)
        #expect(error?.description.contains("listPets, createPet") == true, "\(String(describing: error))")
    }

    @Test func anUnreadableDocumentIsRefusedWithItsProblem() throws {
        let error = #expect(throws: OpenAPIContractError.self) {
            _ = try OpenAPIContract.suite(document: Documents.url("broken.yaml"), calls: Self.calls)
        }
        #expect(error?.description.contains("broken.yaml") == true, "\(String(describing: error))")
    }

    /// The answers a client is given: each documented 2xx, 4xx and 5xx, once per example.
    @Test func theDocumentedAnswersOfEachOperation() throws {
        let document = try Documents.api("petstore.yaml").document()
        let answers = Dictionary(uniqueKeysWithValues: document.operations.map { ($0.name, $0.answers.map(\.description)) })
        #expect(answers["listPets"] == ["200 (example \"none\")", "200 (example \"two\")"])
        #expect(answers["showPet"] == ["200 (example \"example\")", "404 (example \"missing\")"])
        #expect(answers["createPet"] == ["201 (example \"example\")", "422"])
        #expect(answers["deletePet"] == ["204", "404"])
        #expect(document.operations.first { $0.name == "deletePet" }?.answers.last?.prefer == "code=404")
    }
}

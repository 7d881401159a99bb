import ContractTests
import Foundation
@testable import OpenAPIDocumentAPI
import OpenAPIDocumentContract
import TestSupport
import Testing

/// `OpenAPIContract` on `things.yaml`: two servers whose paths differ (the client uses the
/// second), responses by range (`4XX`, `5XX`) and `default`, and an example whose name
/// holds commas, a semicolon and quotes.
@Suite struct ThingsContractTests {
    static let calls: [String: OpenAPIContract.Call<ThingsClient>] = [
        "listThings": { try await $0.things() },
        "showThing": { try await $0.thing(id: 1) },
        "deleteThing": { try await $0.delete(id: 1) },
        "health": { try await $0.health() },
    ]

    static func report(_ checks: [String]? = nil, bugs: Set<ThingsClient.Bug> = [],
                       // 10 s: the checks that take the default judge answers, not time, and a
                       // whole test run on two cores has held a request past 1 s.
                       configuration: SuiteConfiguration = SuiteConfiguration(timeout: 10, timingAttempts: 1)) async throws -> ContractReport {
        var suite = try OpenAPIContract.suite(document: Documents.url("things.yaml"), configuration: configuration, calls: calls)
        if let checks { suite = suite.only(checks) }
        return await suite.run { ThingsClient(context: $0, bugs: bugs) }
    }

    /// A range is given as its first status; `default` as 500 beside a success unless a
    /// 500 or `5XX` is documented, and as 200 where it is the only response.
    @Test func theDocumentedAnswersOfRangesAndDefault() throws {
        let document = try Documents.api("things.yaml").document()
        let answers = Dictionary(uniqueKeysWithValues: document.operations.map { ($0.name, $0.answers.map(\.description)) })
        #expect(answers["listThings"] == [#"200 (example "none")"#, #"200 (example "two, by name; "quoted"")"#, "400 (4XX)", "500 (default)"])
        #expect(answers["showThing"] == ["200", "404", "500 (5XX)"])
        #expect(answers["deleteThing"] == ["204", "500"])
        #expect(answers["health"] == [#"200 (default) (example "example")"#])
        let list = try #require(document.operations.first { $0.name == "listThings" })
        #expect(list.answers.map(\.prefer) == ["code=200, example=none", #"code=200, example="two, by name; \"quoted\"""#, "code=400", "code=500"])
        #expect(list.answers.map(\.isSuccess) == [true, true, false, false])
        #expect(document.operations.first { $0.name == "health" }?.answers.first?.isSuccess == true)
    }

    /// Every check passes for a correct client of the second server: the hang, slow and
    /// cancellation rules apply under each server's path, and every answer is given.
    /// End to end on the real clock with a 10 s timeout: the slow answer (6 s) lands 4 s
    /// inside it; a timing check that fails only by being late runs once more, as a user's
    /// suite does by default (a whole run on 2 cores beside a build has held it past 4 s).
    @Test func aCorrectClientOfTheSecondServerPassesEveryCheck() async throws {
        let report = try await Self.report(configuration: SuiteConfiguration(timeout: 10, timingAttempts: 2))
        #expect(report.results.count == 4 * 5 + 1)
        #expect(report.passed, "\(report)")
    }

    @Test func theTimingChecksApplyUnderTheServerTheClientUses() async throws {
        let report = try await Self.report(["things.showThing.timeout", "things.showThing.cancellation"],
                                           configuration: SuiteConfiguration(timeout: 10, timingAttempts: 1))
        #expect(report.results.count == 3)
        #expect(report.passed, "\(report)")
    }

    /// The document API gives the example whose name holds `,`, `;` and quotes.
    @Test func anExampleNamedWithCommasAndQuotesIsGiven() async throws {
        let report = try await Self.report(["things.listThings.answers"])
        #expect(report.passed, "\(report)")
    }

    /// A client that decodes every body as a success is given each range and `default`,
    /// and fails on each.
    @Test func ignoringTheStatusFailsOnEachRangeAndDefault() async throws {
        let report = try await Self.report(["things.listThings.answers", "things.showThing.answers", "things.deleteThing.answers",
                                            "things.health.answers"], bugs: [.statusIgnored])
        #expect(Set(report.failures.map(\.id)) == ["things.listThings.answers", "things.showThing.answers", "things.deleteThing.answers"], "\(report)")
        let list = try #require(report.result("things.listThings.answers")?.message)
        #expect(list.contains("400 (4XX): the call threw DecodingError"), "\(list)")
        #expect(list.contains("500 (default): the call threw DecodingError"), "\(list)")
        let show = try #require(report.result("things.showThing.answers")?.message)
        #expect(show.contains("500 (5XX): the call threw DecodingError"), "\(show)")
        #expect(!show.contains("(default)"), "default is left out beside 5XX: \(show)")
        let delete = try #require(report.result("things.deleteThing.answers")?.message)
        #expect(delete.contains("500: the call returned"), "\(delete)")
        #expect(delete.contains("an error status taken for success"), "\(delete)")
    }

    /// A call that never ends on one answer is stopped at the timeout and its margin, named
    /// with that answer, and the answers after it are still given — well inside a check
    /// time limit that a call waited on for the timeout + 5 s would pass. The harness's
    /// windows and the time limit run on a clock the test moves: once the call hangs, the
    /// clock goes to the first deadline, which must be the call's window (2 s), not the
    /// time limit (5 s).
    @Test(.timeLimit(.minutes(5))) func aCallThatNeverEndsOnOneAnswerIsNamed() async throws {
        let clock = TestClock()
        let configuration = SuiteConfiguration(timeout: 1, timeoutMargin: 1, checkTimeLimit: 5, timingAttempts: 1, clock: clock)
        async let running = Self.report(["things.showThing.answers"], bugs: [.hangsOn(404)], configuration: configuration)
        await ThingsClient.hangs.sleepers(atLeast: 1)
        await clock.sleepers(atLeast: 2)   // the time limit and the hanging call's window
        clock.advanceToNextDeadline()
        let report = try await running
        ThingsClient.hangs.advance(by: .seconds(1))   // lets the abandoned call go
        #expect(report.failures.map(\.id) == ["things.showThing.answers"], "\(report)")
        let message = try #require(report.result("things.showThing.answers")?.message)
        #expect(message.contains("404: the call was still running after 2.00 s"), "\(message)")
        #expect(message.contains("1 of 3 documented answers went wrong"), "\(message)")
    }

    /// `OpenAPIContract.Call`'s contract: a call that returns its error (a `Result`) is an
    /// error status taken for success; the same call that throws it (`.get()`) passes.
    @Test func aCallThatReturnsItsErrorFailsTheAnswersCheck() async throws {
        let returning = try OpenAPIContract.suite(document: Documents.url("things.yaml"), client: ThingsClient.self,
                                                  configuration: SuiteConfiguration(timingAttempts: 1),
                                                  calls: ["showThing": { await $0.thingResult(id: 1) }])
        let failed = await returning.only(["things.showThing.answers"]).run { ThingsClient(context: $0) }
        let message = try #require(failed.result("things.showThing.answers")?.message, "\(failed)")
        #expect(message.contains("404: the call returned failure("), "\(message)")
        #expect(message.contains("500 (5XX): the call returned failure("), "\(message)")
        #expect(message.contains("an error status taken for success"), "\(message)")

        let throwing = try OpenAPIContract.suite(document: Documents.url("things.yaml"), client: ThingsClient.self,
                                                 configuration: SuiteConfiguration(timingAttempts: 1),
                                                 calls: ["showThing": { try await $0.thingResult(id: 1).get() }])
        let passed = await throwing.only(["things.showThing.answers"]).run { ThingsClient(context: $0) }
        #expect(passed.passed, "\(passed)")
    }

    /// A call that throws before sending fails the `request` check (and `answers`, which
    /// has no request to answer), saying so.
    @Test func aCallThatSendsNothingFailsTheRequestCheck() async throws {
        let report = try await Self.report(["things.showThing.request", "things.showThing.answers"], bugs: [.sendsNothing])
        #expect(Set(report.failures.map(\.id)) == ["things.showThing.request", "things.showThing.answers"], "\(report)")
        let request = try #require(report.result("things.showThing.request")?.message)
        #expect(request.contains("the call sent no request"), "\(request)")
        #expect(request.contains("the call threw URLError -1009 (notConnectedToInternet)"), "\(request)")
        let answers = try #require(report.result("things.showThing.answers")?.message)
        #expect(answers.contains("no request reached GET /v1/things/{id} or /v2/things/{id}"), "\(answers)")
    }
}

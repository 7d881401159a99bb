@testable import ContractTests
import ContractTestsXCTest
import Foundation
import Logging
import Scenarios
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The reference provider, except that one call (`menuItems(category:)` or
/// `imageData(from:)`) reports late on its first `lateCalls` calls: after the time given
/// plus `by` seconds, a `URLError.timedOut`, as a call does on a machine too busy to
/// deliver the answer in time. The request is sent once, as the reference sends it.
struct LateProvider: RestaurantProvider {
    enum Call: Sendable { case menu, image }
    let reference: ReferenceRestaurantProvider
    let timeout: TimeInterval
    let lateCalls: Locked<Int>
    let by: TimeInterval
    /// Calls answered on time before the late ones, across the suite's attempts.
    var punctualCalls = Locked(0)
    var call: Call = .menu
    /// Image requests sent again before a late image load gives up, as a provider that
    /// retries does.
    var resends = 0

    func menuItems(category: String) async throws -> [RestaurantItem] {
        guard call == .menu else { return try await reference.menuItems(category: category) }
        return try await late { try await reference.menuItems(category: category) }
    }

    func imageData(from url: URL) async throws -> Data {
        guard call == .image else { return try await reference.imageData(from: url) }
        // Resent past the reference's image cache, as a retry that goes to the network does.
        return try await late({ try await reference.imageData(from: url) }, resend: { _ = try await URLSession.shared.data(from: url) })
    }

    private func late<T: Sendable>(_ body: @Sendable () async throws -> T, resend: @Sendable () async throws -> Void = {}) async throws -> T {
        let start = Date()
        let punctual = punctualCalls.withLock { remaining -> Bool in
            guard remaining > 0 else { return false }
            remaining -= 1
            return true
        }
        let late = !punctual && lateCalls.withLock { remaining -> Bool in
            guard remaining > 0 else { return false }
            remaining -= 1
            return true
        }
        do {
            let value = try await body()
            guard late else { return value }
            for _ in 0..<resends { try await resend() }
        } catch {
            guard late else { throw error }
        }
        let until = start.addingTimeInterval(timeout + by)
        try await Task.sleep(nanoseconds: UInt64(max(0, until.timeIntervalSinceNow) * 1_000_000_000))
        throw URLError(.timedOut)
    }

    func categories() async throws -> [String] { try await reference.categories() }
    func submitOrder(menuIDs: [Int]) async throws -> Int { try await reference.submitOrder(menuIDs: menuIDs) }
}

/// The reference provider, except that its first `lingering` calls of
/// `menuItems(category:)` go on for `seconds` whatever a cancel says, as a call does on a
/// machine too busy to act on the cancel in time. Each sends its request once.
struct LingeringProvider: RestaurantProvider {
    let reference: ReferenceRestaurantProvider
    let lingering: Locked<Int>
    let seconds: TimeInterval

    func menuItems(category: String) async throws -> [RestaurantItem] {
        let lingers = lingering.withLock { remaining -> Bool in
            guard remaining > 0 else { return false }
            remaining -= 1
            return true
        }
        guard lingers else { return try await reference.menuItems(category: category) }
        let (reference, seconds) = (self.reference, self.seconds)
        // Unstructured: the caller's cancel does not reach it.
        return try await Task {
            let start = Date()
            let items = try await reference.menuItems(category: category)
            try await Task.sleep(nanoseconds: UInt64(max(0, seconds - Date().timeIntervalSince(start)) * 1_000_000_000))
            return items
        }.value
    }

    func categories() async throws -> [String] { try await reference.categories() }
    func submitOrder(menuIDs: [Int]) async throws -> Int { try await reference.submitOrder(menuIDs: menuIDs) }
    func imageData(from url: URL) async throws -> Data { try await reference.imageData(from: url) }
}

/// A provider whose timeout is shorter than the one given: it gives up on `menuItems`
/// after `after` seconds, once the request went out.
struct ShortTimeoutProvider: RestaurantProvider {
    let reference: ReferenceRestaurantProvider
    let after: TimeInterval

    func menuItems(category: String) async throws -> [RestaurantItem] {
        let call = Task { try await reference.menuItems(category: category) }
        try await Task.sleep(nanoseconds: UInt64(after * 1_000_000_000))
        call.cancel()
        throw URLError(.timedOut)
    }

    func categories() async throws -> [String] { try await reference.categories() }
    func submitOrder(menuIDs: [Int]) async throws -> Int { try await reference.submitOrder(menuIDs: menuIDs) }
    func imageData(from url: URL) async throws -> Data { try await reference.imageData(from: url) }
}

/// A check that fails on timing alone runs again (`SuiteConfiguration.timingAttempts`);
/// one that fails for any other reason does not, and every attempt that did not count is
/// in the report.
@Suite struct TimingAttemptsTests {
    /// The timeout checks, and a check that only needs a call to succeed: any call that
    /// timed out late is timing.
    static let timingChecks = ["restaurant.timeout.slow-in-time", "restaurant.timeout.hang", "restaurant.image-cache.same-url-once",
                               "restaurant.image-cache.failure-not-cached", "restaurant.image-cache.cancellation"]
    /// The image loads before the one a check needs to succeed: the 500 that the retry
    /// follows, the cancelled load that the next follows.
    static let punctual = ["restaurant.image-cache.failure-not-cached": 1, "restaurant.image-cache.cancellation": 1]

    func run(_ check: String, lateCalls: Int, attempts: Int) async -> ContractReport {
        var configuration = configuration()
        configuration.timingAttempts = attempts
        let remaining = Locked(lateCalls)
        let timeout = configuration.timeout
        // Past the hang check's margin too.
        let by = configuration.timeoutMargin + 0.5
        let call: LateProvider.Call = check.contains("image") ? .image : .menu
        let punctual = Locked(Self.punctual[check] ?? 0)
        return await RestaurantContract.suite(configuration).only([check]).run {
            LateProvider(reference: ReferenceRestaurantProvider(context: $0), timeout: timeout, lateCalls: remaining, by: by,
                         punctualCalls: punctual, call: call)
        }
    }

    @Test(arguments: timingChecks)
    func aCheckLateOnceRunsAgainAndSaysSo(check: String) async throws {
        // Exclusive: the second attempt must be on time.
        let report = await withTestGate(exclusive: true) { await run(check, lateCalls: 1, attempts: 2) }
        let result = try #require(report.result(check))
        #expect(result.passed, "\(report)")
        #expect(result.notes.count == 1, "\(report)")
        #expect(result.notes.first?.hasPrefix("attempt 1 of 2 failed only by being late (sent once; a busy machine can do that), so the check ran again: ") == true, "\(report)")
        if check.hasSuffix("slow-in-time") {
            #expect(result.notes.first?.contains("threw URLError -1001 (timedOut) after") == true, "\(report)")
        }
        if check.contains("image") {
            #expect(result.notes.first?.contains("the first image load to succeed") == false, "the note gives what happened: \(report)")
            #expect(result.notes.first?.contains("threw URLError -1001 (timedOut)") == true, "\(report)")
        }
        #expect(report.description.contains("    note: attempt 1 of 2"), "\(report)")
        #expect(report.junitXML().contains("<system-out>attempt 1 of 2 failed only by being late"), "\(report.junitXML())")
        // The XCTest glue tells the user, though the check passed.
        let logged = Locked<[String]>([])
        XCTAssertContract(report, logger: Logger(label: "test") { _ in CapturingLogHandler(messages: logged) })
        #expect(logged.current.count == 1 && logged.current.first?.hasPrefix("notice \(check) passed: note: attempt 1 of 2") == true, "\(logged.current)")
    }

    @Test(arguments: timingChecks)
    func aCheckLateEveryTimeFails(check: String) async throws {
        let report = await withTestGate(exclusive: false) { await run(check, lateCalls: .max, attempts: 2) }
        let result = try #require(report.result(check))
        guard let violation = Self.failure(of: result, in: report) else { return }
        #expect(violation.isTimingOnly, "\(report)")
        #expect(result.notes.count == 1, "\(report)")
    }

    @Test(arguments: timingChecks)
    func oneAttemptIsOneRun(check: String) async throws {
        let report = await withTestGate(exclusive: false) { await run(check, lateCalls: 1, attempts: 1) }
        let result = try #require(report.result(check))
        #expect(!result.passed, "\(report)")
        #expect(result.notes.isEmpty, "\(report)")
    }

    /// A cancelled call that was only slow to end (sent once) runs again; one that never
    /// ends on a cancel fails every run, still marked timing.
    @Test(arguments: [1, Int.max])
    func aCancelActedOnLateIsTiming(lingering: Int) async throws {
        let check = "restaurant.menu.cancellation"
        var configuration = configuration()
        configuration.timingAttempts = 2
        let remaining = Locked(lingering)
        let report = await withTestGate(exclusive: lingering == 1) {
            await RestaurantContract.suite(configuration).only([check]).run {
                LingeringProvider(reference: ReferenceRestaurantProvider(context: $0), lingering: remaining, seconds: 30)
            }
        }
        let result = try #require(report.result(check))
        #expect(result.notes.count == 1, "\(report)")
        #expect(result.notes.first?.contains("the cancel never reached the request") == true, "\(report)")
        if lingering == 1 {
            #expect(result.passed, "\(report)")
        } else {
            guard let violation = Self.failure(of: result, in: report) else { return }
            #expect(violation.isTimingOnly, "\(report)")
        }
    }

    /// A call that sent its request more than once and then timed out is not late: its
    /// retries are the provider's, and so is the time they took.
    @Test func aLateTimeoutAfterResendsIsNotTiming() async throws {
        let check = "restaurant.image-cache.same-url-once"
        var configuration = configuration()
        configuration.timingAttempts = 2
        let (timeout, remaining) = (configuration.timeout, Locked(1))
        let report = await withTestGate(exclusive: false) {
            await RestaurantContract.suite(configuration).only([check]).run {
                LateProvider(reference: ReferenceRestaurantProvider(context: $0), timeout: timeout, lateCalls: remaining, by: 0.2, call: .image, resends: 2)
            }
        }
        let result = try #require(report.result(check))
        guard let violation = Self.failure(of: result, in: report) else { return }
        #expect(!violation.isTimingOnly, "\(report)")
        #expect(result.notes.isEmpty, "\(report)")
    }

    @Test func aShorterTimeoutIsNotTimingAndRunsOnce() async throws {
        let check = "restaurant.timeout.slow-in-time"
        let report = await withTestGate(exclusive: false) {
            await RestaurantContract.suite(configuration()).only([check]).run {
                ShortTimeoutProvider(reference: ReferenceRestaurantProvider(context: $0), after: 0.5)
            }
        }
        let result = try #require(report.result(check))
        guard let violation = Self.failure(of: result, in: report) else { return }
        #expect(!violation.isTimingOnly, "\(report)")
        #expect(result.notes.isEmpty, "\(report)")
        #expect(violation.actual.contains("is the timeout shorter than the one given?"), "\(report)")
    }

    /// Only a timeout that came no sooner than the time given is lateness.
    @Test func aLateTimeoutIsTimingAndNothingElseIs() {
        let late = CheckRun<Int>.isLateTimeout
        #expect(late(URLError(.timedOut), 1.0, 1))
        #expect(late(URLError(.timedOut), 3.2, 1))
        #expect(late(WrappingError.transport(URLError(.timedOut)), 1.2, 1))
        #expect(late(WrappingError.nested(underlying: .init(error: URLError(.timedOut))), 1.2, 1))
        #expect(!late(URLError(.timedOut), 0.5, 1), "a timeout shorter than the one given")
        #expect(!late(URLError(.networkConnectionLost), 1.5, 1))
        #expect(!late(URLError(.cancelled), 1.5, 1))
        #expect(!late(CancellationError(), 1.5, 1))
        #expect(!late(DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "late")), 1.5, 1))
    }

    /// A slow call's failure is put on the machine only when the server's own journal shows
    /// the answer ended (or not) after the provider gave up, though it was due before.
    @Test func theServerIsBlamedOnlyWhenItHeldAnAnswerThatWasDue() {
        let held = CommonChecks.serverHeldAnswer
        // Due at 1.8 s; the provider gave up at its 3 s timeout.
        #expect(held(1.8, nil, 3.01)?.contains("had not ended when the provider gave up") == true)
        #expect(held(1.8, 3.2, 3.01)?.contains("ended only 3.20 s after it") == true)
        #expect(held(1.8, 2.99, 3.01) != nil, "ended as the provider gave up, within the timer's tolerance")
        // The server answered in time: the provider's timeout, or its client, is to blame.
        #expect(held(1.8, 1.81, 3.01) == nil)
        #expect(held(1.8, 1.81, 2.0) == nil, "a 2 s timeout where 3 s was given")
        // The provider gave up before the answer was due: its timeout is shorter.
        #expect(held(1.8, nil, 1.0) == nil)
        #expect(held(1.8, nil, 1.82) == nil, "within the timer's tolerance of the due time")
    }

    /// The check's violation; an issue, and nil, when it did not fail.
    static func failure(of result: ContractReport.Result, in report: ContractReport) -> ContractViolation? {
        guard case .failed(let violation) = result.outcome else {
            Issue.record("expected a failure: \(report)")
            return nil
        }
        return violation
    }

    /// A provider's own error around a URLError.
    enum WrappingError: Error {
        case transport(URLError)
        case nested(underlying: Inner)
        struct Inner: Error { let error: URLError }
    }

    /// A timeout reads the same on every platform, also inside a provider's own error:
    /// the timing checks find `(timedOut)` in it.
    @Test func aTimeoutIsNamedTheSameWayAlsoWhenWrapped() {
        #expect(ContractViolation.describe(URLError(.timedOut)) == "URLError -1001 (timedOut)")
        #expect(ContractViolation.describe(URLError(.cancelled)) == "URLError -999 (cancelled)")
        #expect(ContractViolation.describe(URLError(.fileDoesNotExist)) == "URLError -1100 (code -1100)")
        #expect(ContractViolation.describe(WrappingError.transport(URLError(.timedOut))).hasSuffix(" — from URLError -1001 (timedOut)"))
        #expect(ContractViolation.describe(WrappingError.nested(underlying: .init(error: URLError(.timedOut)))).hasSuffix(" — from URLError -1001 (timedOut)"))
        #expect(!ContractViolation.describe(CancellationError()).contains("URLError"))
    }
}

/// Keeps each message logged, as "LEVEL message".
struct CapturingLogHandler: LogHandler {
    let messages: Locked<[String]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.withLock { $0.append("\(event.level) \(event.message)") }
    }
}

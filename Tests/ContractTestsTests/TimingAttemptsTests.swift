@testable import BuiltInContracts
@testable import ContractHarness
import ContractTestsXCTest
import Foundation
import Logging
import BuiltInMockAPIs
import MockCore
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a test's stand-in for a slow machine waits: a provider that is late (or lingers)
/// waits on `waits` until the test releases it, after moving the suite's clock (`clock`,
/// `SuiteConfiguration.clock`) past the time the harness should see. Both clocks move only
/// when the test says, so a busy machine makes these tests slower, never different.
struct LateMachine: Sendable {
    /// The suite's clock: the harness's windows and stopwatch.
    let clock = TestClock()
    /// Where late calls wait to be released.
    let waits = TestClock()

    /// Called by a provider that is about to be late: returns once the test released it.
    func beLate() async {
        try? await waits.sleep(for: .seconds(1))
    }

    /// Until cancelled: for each late call (each `together` late calls, for calls made at
    /// once), waits until the harness waits too (the check's time limit, and its window for
    /// the call when `window`), then moves the suite's clock by `by` seconds. A call whose window that passes is left waiting (the harness has
    /// judged it still running, and goes on without it); any other is released, to end
    /// late by exactly `by`. A run on time has no late call, so the clock stands still
    /// through it.
    func drive(window: Bool, by seconds: TimeInterval, together: Int = 1) async {
        var held = 0
        while !Task.isCancelled {
            await waits.sleepers(atLeast: held + together)
            await clock.sleepers(atLeast: window ? 2 : 1)
            guard !Task.isCancelled else { return }
            let target = clock.now.advanced(by: .seconds(seconds))
            let windowPasses = clock.nextDeadline.map { $0 <= target } ?? false
            clock.advance(to: target)
            if windowPasses {
                held += 1
            } else {
                waits.advance(by: .seconds(1))
                held = 0
            }
        }
    }

    /// `suite`'s report, with `drive(window:by:)` running beside it; every call still
    /// waiting is released at the end.
    func run(window: Bool, by seconds: TimeInterval, together: Int = 1, _ suite: @escaping @Sendable () async -> ContractReport) async -> ContractReport {
        let report = await withTaskGroup(of: ContractReport?.self) { group -> ContractReport? in
            group.addTask { await suite() }
            group.addTask {
                await drive(window: window, by: seconds, together: together)
                return nil
            }
            for await finished in group {
                if let finished {
                    group.cancelAll()
                    return finished
                }
            }
            return nil
        }
        waits.advance(by: .seconds(1))
        return report!
    }

    /// A configuration whose clock is this one, and whose time limit no late call reaches.
    func configure(_ configuration: SuiteConfiguration) -> SuiteConfiguration {
        var configured = configuration
        configured.clock = clock
        configured.checkTimeLimit = 3_600
        return configured
    }
}

extension ProviderContext {
    /// This context with URLSession's own timeout at `seconds`: the reference provider's
    /// calls that are meant to succeed then do, however loaded the machine (a slow answer
    /// due in 1.8 s under a 3 s timeout once took longer). The harness still judges by the
    /// suite's timeout, on its own clock.
    func patient(_ seconds: TimeInterval = 60) -> ProviderContext {
        let base = self
        return ProviderContext(baseURL: baseURL, timeout: seconds, vendor: vendor, sessionDelegate: sessionDelegate) {
            let configuration = base.sessionConfiguration
            configuration.timeoutIntervalForRequest = seconds
            return configuration
        }
    }
}

/// The reference provider, except that one call (`menuItems(category:)` or
/// `imageData(from:)`) reports late on its first `lateCalls` calls: a `URLError.timedOut`
/// once the test moved the suite's clock past the time given (`LateMachine`), as a call
/// does on a machine too busy to deliver the answer in time. The request is sent once, as
/// the reference sends it.
struct LateProvider: RestaurantProvider {
    enum Call: Sendable { case menu, image }
    let reference: ReferenceRestaurantProvider
    let machine: LateMachine
    let lateCalls: Locked<Int>
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
        await machine.beLate()
        throw URLError(.timedOut)
    }

    func categories() async throws -> [String] { try await reference.categories() }
    func submitOrder(menuIDs: [Int]) async throws -> Int { try await reference.submitOrder(menuIDs: menuIDs) }
}

/// The reference provider, except that its first `lingering` calls of
/// `menuItems(category:)` go on whatever a cancel says until the test releases them
/// (`LateMachine`), as a call does on a machine too busy to act on the cancel in time.
/// Each sends its request once.
struct LingeringProvider: RestaurantProvider {
    let reference: ReferenceRestaurantProvider
    let machine: LateMachine
    let lingering: Locked<Int>

    func menuItems(category: String) async throws -> [RestaurantItem] {
        let lingers = lingering.withLock { remaining -> Bool in
            guard remaining > 0 else { return false }
            remaining -= 1
            return true
        }
        guard lingers else { return try await reference.menuItems(category: category) }
        let (reference, machine) = (self.reference, self.machine)
        // Unstructured: the caller's cancel does not reach it.
        return try await Task {
            let items = try await reference.menuItems(category: category)
            await machine.beLate()
            return items
        }.value
    }

    func categories() async throws -> [String] { try await reference.categories() }
    func submitOrder(menuIDs: [Int]) async throws -> Int { try await reference.submitOrder(menuIDs: menuIDs) }
    func imageData(from url: URL) async throws -> Data { try await reference.imageData(from: url) }
}

/// A provider whose timeout is shorter than the one given: it gives up on `menuItems`
/// once the request went out and the test moved the suite's clock by its own timeout.
struct ShortTimeoutProvider: RestaurantProvider {
    let reference: ReferenceRestaurantProvider
    let machine: LateMachine

    func menuItems(category: String) async throws -> [RestaurantItem] {
        let call = Task { try await reference.menuItems(category: category) }
        await machine.beLate()
        call.cancel()
        throw URLError(.timedOut)
    }

    func categories() async throws -> [String] { try await reference.categories() }
    func submitOrder(menuIDs: [Int]) async throws -> Int { try await reference.submitOrder(menuIDs: menuIDs) }
    func imageData(from url: URL) async throws -> Data { try await reference.imageData(from: url) }
}

/// A check that fails on timing alone runs again (`SuiteConfiguration.timingAttempts`);
/// one that fails for any other reason does not, and every attempt that did not count is
/// in the report. The harness's windows and stopwatch run on a clock the test moves
/// (`LateMachine`): a late call is late by exactly the time the test gives it, and a call
/// on time is on time however busy the machine.
@Suite(.timeLimit(.minutes(10))) struct TimingAttemptsTests {
    /// The timeout checks, and a check that only needs a call to succeed: any call that
    /// timed out late is timing.
    static let timingChecks = ["restaurant.timeout.slow-in-time", "restaurant.timeout.hang", "restaurant.image-cache.same-url-once",
                               "restaurant.image-cache.failure-not-cached", "restaurant.image-cache.cancellation",
                               "restaurant.image-cache.coalesces"]
    /// The image loads before the one a check needs to succeed: the 500 that the retry
    /// follows, the cancelled load that the next follows.
    static let punctual = ["restaurant.image-cache.failure-not-cached": 1, "restaurant.image-cache.cancellation": 1]
    /// The checks that give the late call a window (`CheckRun.outcome(within:_:)`) rather
    /// than timing a plain `CheckRun.call(_:_:)`.
    static let windowed: Set<String> = ["restaurant.timeout.slow-in-time", "restaurant.timeout.hang",
                                        "restaurant.image-cache.failure-not-cached", "restaurant.image-cache.cancellation",
                                        "restaurant.image-cache.coalesces"]

    func run(_ check: String, lateCalls: Int, attempts: Int) async -> ContractReport {
        let machine = LateMachine()
        var configuration = machine.configure(configuration())
        configuration.timingAttempts = attempts
        // The coalescing check's five loads are late together: a late attempt is five late calls.
        let coalesces = check.hasSuffix(".coalesces")
        let remaining = Locked(coalesces && lateCalls != .max ? lateCalls * 5 : lateCalls)
        // Late past the hang check's margin too.
        let by = configuration.timeout + configuration.timeoutMargin + 0.5
        let call: LateProvider.Call = check.contains("image") ? .image : .menu
        let punctual = Locked(Self.punctual[check] ?? 0)
        // A hung call ends at URLSession's own timeout, which then stays the one given.
        let hangs = check.hasSuffix(".hang")
        return await machine.run(window: Self.windowed.contains(check), by: by, together: coalesces ? 5 : 1) { [configuration] in
            await RestaurantContract.suite(configuration).only([check]).run {
                LateProvider(reference: ReferenceRestaurantProvider(context: hangs ? $0 : $0.patient()), machine: machine,
                             lateCalls: remaining, punctualCalls: punctual, call: call)
            }
        }
    }

    @Test(arguments: timingChecks)
    func aCheckLateOnceRunsAgainAndSaysSo(check: String) async throws {
        let report = await run(check, lateCalls: 1, attempts: 2)
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
        let report = await run(check, lateCalls: .max, attempts: 2)
        let result = try #require(report.result(check))
        guard let violation = Self.failure(of: result, in: report) else { return }
        #expect(violation.isTimingOnly, "\(report)")
        #expect(result.notes.count == 1, "\(report)")
    }

    @Test(arguments: timingChecks)
    func oneAttemptIsOneRun(check: String) async throws {
        let report = await run(check, lateCalls: 1, attempts: 1)
        let result = try #require(report.result(check))
        #expect(!result.passed, "\(report)")
        #expect(result.notes.isEmpty, "\(report)")
    }

    /// A cancelled call that was only slow to end (sent once) runs again; one that never
    /// ends on a cancel fails every run, still marked timing.
    @Test(arguments: [1, Int.max])
    func aCancelActedOnLateIsTiming(lingering: Int) async throws {
        let check = "restaurant.menu.cancellation"
        let machine = LateMachine()
        var configuration = machine.configure(configuration())
        configuration.timingAttempts = 2
        let remaining = Locked(lingering)
        // Past the check's wait after the cancel (the answer's delay and a second).
        let by = configuration.timeout * 0.6 + 1.5
        let report = await machine.run(window: true, by: by) { [configuration] in
            await RestaurantContract.suite(configuration).only([check]).run {
                LingeringProvider(reference: ReferenceRestaurantProvider(context: $0.patient()), machine: machine, lingering: remaining)
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
        let machine = LateMachine()
        var configuration = machine.configure(configuration())
        configuration.timingAttempts = 2
        let remaining = Locked(1)
        let by = configuration.timeout + 0.2
        let report = await machine.run(window: false, by: by) { [configuration] in
            await RestaurantContract.suite(configuration).only([check]).run {
                LateProvider(reference: ReferenceRestaurantProvider(context: $0.patient()), machine: machine, lateCalls: remaining,
                             call: .image, resends: 2)
            }
        }
        let result = try #require(report.result(check))
        guard let violation = Self.failure(of: result, in: report) else { return }
        #expect(!violation.isTimingOnly, "\(report)")
        #expect(result.notes.isEmpty, "\(report)")
    }

    @Test func aShorterTimeoutIsNotTimingAndRunsOnce() async throws {
        let check = "restaurant.timeout.slow-in-time"
        let machine = LateMachine()
        let configuration = machine.configure(configuration())
        // The provider gives up 0.5 s after its call began, on the suite's clock.
        let report = await machine.run(window: true, by: 0.5) {
            await RestaurantContract.suite(configuration).only([check]).run {
                ShortTimeoutProvider(reference: ReferenceRestaurantProvider(context: $0.patient()), machine: machine)
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

@testable import ContractTests
import ContractTestsTesting
import Foundation
import Scenarios
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `.mockServer(intercepting:)`: an unmodified client calls the real host and the test's
/// own server answers, in process. `.invalid` hosts never resolve, so a request that is
/// not intercepted fails at once without reaching any network.
@Suite struct InterceptionTests {
    static let openMarket = "market-training.yagom-academy.kr"
    static let page = URL(string: "https://market-training.yagom-academy.kr/api/products?page_no=1&items_per_page=2")!

    /// The answer to a GET of `url` through `session`.
    static func get(_ url: URL, _ session: URLSession = .shared) async throws -> (JSONValue?, Int) {
        let (data, response) = try await session.data(from: url)
        return (JSONValue(parsing: data), (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    /// The URLError a GET of `url` fails with, or nil if it succeeds.
    static func failure(_ url: URL, _ session: URLSession = .shared) async -> URLError.Code? {
        do {
            _ = try await session.data(from: url)
            return nil
        } catch {
            return (error as? URLError)?.code
        }
    }

    /// How a request to a host nobody intercepts ends: the name does not resolve (or, on a
    /// machine with no network at all, there is none).
    static let notFound: Set<URLError.Code> = [.cannotFindHost, .dnsLookupFailed, .notConnectedToInternet]

    @Test(.mockServer(intercepting: [openMarket]))
    func theSharedSessionGetsTheMocksPage() async throws {
        let (page, status) = try await Self.get(Self.page)
        #expect(status == 200)
        #expect(page?["page_no"] == 1)
        #expect(page?["pages"]?.arrayValue?.count == 2)
        try await MockServer.current.expectations.expect(.get("/api/products"), .exactly(1))
        #expect(MockServer.current.journal.entries().last?.request.headers["Host"] == Self.openMarket)
    }

    /// The real host reaches the engine: Open Market's host is answered by Open Market
    /// alone, and the restaurant's `/categories` is no route there.
    @Test(.mockServer(intercepting: [openMarket]))
    func theHostsOwnAPIAnswers() async throws {
        let (_, status) = try await Self.get(URL(string: "https://\(Self.openMarket)/categories")!)
        #expect(status == 404)
    }

    #if canImport(ObjectiveC)
    /// On Apple platforms a session made from `.default` or `.ephemeral` is intercepted too.
    @Test(.mockServer(intercepting: [openMarket]), arguments: ["default", "ephemeral"])
    func aSessionFromAStandardConfigurationGetsTheMocksPage(configuration: String) async throws {
        let session = URLSession(configuration: configuration == "default" ? .default : .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (page, status) = try await Self.get(Self.page, session)
        #expect(status == 200)
        #expect(page?["page_no"] == 1)
        try await MockServer.current.expectations.expect(.get("/api/products"), .exactly(1))
    }
    #else
    /// The documented limit of swift-corelibs-foundation: a session made from `.default`
    /// consults only its own configuration, so it goes out as before.
    @Test(.mockServer(intercepting: ["corelibs-default.invalid"]))
    func onLinuxASessionFromTheDefaultConfigurationGoesOut() async throws {
        let session = URLSession(configuration: .default)
        defer { session.finishTasksAndInvalidate() }
        let code = await Self.failure(URL(string: "https://corelibs-default.invalid/categories")!, session)
        #expect(code.map(Self.notFound.contains) == true, "\(String(describing: code))")
        #expect(MockServer.current.journal.entries().isEmpty)
    }
    #endif

    @Test(.mockServer(intercepting: [openMarket]))
    func aHostNoTestInterceptsGoesOutAsBefore() async throws {
        let code = await Self.failure(URL(string: "https://unintercepted.invalid/api/products?page_no=1&items_per_page=2")!)
        #expect(code.map(Self.notFound.contains) == true, "\(String(describing: code))")
        #expect(MockServer.current.journal.entries().isEmpty)
    }

    /// `host:port` covers that port alone; a host no API answers to reaches every API's routes.
    @Test(.mockServer(intercepting: ["restaurant-app.invalid:8080"]))
    func aPortEntryCoversThatPortOnly() async throws {
        let (categories, status) = try await Self.get(URL(string: "http://restaurant-app.invalid:8080/categories")!)
        #expect(status == 200)
        #expect(categories?["categories"]?.arrayValue?.count == 6)
        let (_, pageStatus) = try await Self.get(URL(string: "http://RESTAURANT-APP.invalid:8080/api/products?page_no=1&items_per_page=2")!)
        #expect(pageStatus == 200)
        #expect(MockServer.current.journal.entries().first?.request.headers["Host"] == "restaurant-app.invalid:8080")
        let code = await Self.failure(URL(string: "http://restaurant-app.invalid:8081/categories")!)
        #expect(code.map(Self.notFound.contains) == true, "\(String(describing: code))")
        #expect(MockServer.current.journal.entries().count == 2)
    }

    @Test(arguments: [
        ("market-training.yagom-academy.kr", "market-training.yagom-academy.kr", nil),
        (" Localhost:8080 ", "localhost", 8080),
        ("[::1]:8443", "::1", 8443),
        ("[2001:db8::1]", "2001:db8::1", nil),
    ] as [(String, String, Int?)])
    func anEntryIsAHostOrAHostAndPort(entry: String, host: String, port: Int?) throws {
        let parsed = try InterceptedHost(parsing: entry)
        #expect(parsed.host == host)
        #expect(parsed.port == port)
    }

    @Test(arguments: ["https://market-training.yagom-academy.kr", "", "localhost:http", "localhost:70000", "[::1", "user@host",
                      "localhost", "127.0.0.1", "[::1]"])
    func anEntryThatIsNoHostIsRefusedWithAReason(entry: String) {
        #expect(throws: InterceptionError.self) { try InterceptedHost(parsing: entry) }
    }

    @Test func anEntryCoversItsHostOnAnySchemeAndItsPortOnly() throws {
        let any = try InterceptedHost(parsing: "api.example.invalid")
        let one = try InterceptedHost(parsing: "api.example.invalid:443")
        #expect(any.covers(URL(string: "http://API.example.invalid:9/x")!))
        #expect(!any.covers(URL(string: "http://other.invalid/x")!))
        #expect(one.covers(URL(string: "https://api.example.invalid/x")!))
        #expect(!one.covers(URL(string: "http://api.example.invalid/x")!))
    }
}

/// Interception is process-wide, so tests intercepting the same host take turns; the rest
/// stay parallel. Each test here uses host names of its own, so no other test waits on
/// them. The gates are signals, not timings: a wait is bounded only so that a broken lock
/// fails the test instead of hanging it.
@Suite struct InterceptionLockTests {
    struct Boom: Error {}

    static func uniqueHost(_ label: String) -> String { "\(label)-\(UUID().uuidString.lowercased()).invalid" }

    @Test func testsInterceptingTheSameHostRunOneAtATime() async throws {
        let host = Self.uniqueHost("same")
        let first = try await TestMockServer.start()
        let second = try await TestMockServer.start()
        let firstInside = Signal(), firstMayEnd = Signal(), secondInside = Signal()
        let firstTest = Task { try await first.intercepting([host]) { firstInside.fire(); await firstMayEnd.wait() } }
        await firstInside.wait()
        let secondTest = Task { try await second.intercepting([host]) { secondInside.fire() } }
        #expect(await eventually { InterceptionLocks.shared.waiting(for: host) == 1 })
        #expect(!secondInside.fired)
        _ = try await URLSession.shared.data(from: URL(string: "http://\(host)/categories")!)
        #expect(first.journal.entries().count == 1)
        firstMayEnd.fire()
        try await firstTest.value
        try await secondTest.value
        #expect(secondInside.fired)
        #expect(second.journal.entries().isEmpty)
        #expect(!InterceptionLocks.shared.isHeld(host))
        await first.stop()
        await second.stop()
    }

    @Test func testsInterceptingOtherHostsRunTogether() async throws {
        let first = try await TestMockServer.start()
        let second = try await TestMockServer.start()
        let firstInside = Signal(), secondInside = Signal()
        let firstTest = Task {
            try await first.intercepting([Self.uniqueHost("one")]) {
                firstInside.fire()
                return await eventually { secondInside.fired }
            }
        }
        await firstInside.wait()
        try await second.intercepting([Self.uniqueHost("two")]) { secondInside.fire() }
        #expect(try await firstTest.value, "the second test waited for the first")
        await first.stop()
        await second.stop()
    }

    /// A test that intercepts nothing takes no lock: it starts while every host is held.
    @Test func aTestThatInterceptsNothingNeverWaits() async throws {
        let host = Self.uniqueHost("held")
        let first = try await TestMockServer.start()
        let second = try await TestMockServer.start()
        let held = try await first.intercept([host])
        let none = try await second.intercept([])
        #expect(none.hosts.isEmpty)
        #expect(InterceptionLocks.shared.waiting(for: host) == 0)
        none.end()
        held.end()
        #expect(!InterceptionLocks.shared.isHeld(host))
        await first.stop()
        await second.stop()
    }

    @Test func theLockIsGivenBackWhenTheBodyThrows() async throws {
        let host = Self.uniqueHost("throws")
        let server = try await TestMockServer.start()
        await #expect(throws: Boom.self) {
            try await server.intercepting([host]) {
                #expect(InterceptionLocks.shared.isHeld(host))
                throw Boom()
            }
        }
        #expect(!InterceptionLocks.shared.isHeld(host))
        #expect(InterceptionTable.shared.answerer(for: URL(string: "http://\(host)/")) == nil)
        let again = try await server.intercept([host])
        again.end()
        await server.stop()
    }

    #if compiler(>=6.2)
    /// The trait's own scope: a test that throws gives its hosts back.
    @Test func theTraitGivesTheLockBackWhenTheTestThrows() async throws {
        let test = try #require(Test.current)
        let host = Self.uniqueHost("trait")
        await #expect(throws: Boom.self) {
            try await MockServerTrait.mockServer(intercepting: [host]).provideScope(for: test, testCase: Test.Case.current) {
                _ = try await URLSession.shared.data(from: URL(string: "http://\(host)/categories")!)
                #expect(MockServer.current.journal.entries().count == 1)
                throw Boom()
            }
        }
        #expect(!InterceptionLocks.shared.isHeld(host))
        #expect(InterceptionTable.shared.answerer(for: URL(string: "http://\(host)/")) == nil)
    }
    #endif

    /// Nested on the same host, the inner scope neither waits for the outer one nor frees
    /// the host when it ends: the inner server answers while it lasts, then the outer again.
    @Test(.timeLimit(.minutes(1)))
    func interceptingAHostTheScopeHoldsAnswersFromTheInnerServerUntilItEnds() async throws {
        let host = Self.uniqueHost("nested")
        let url = URL(string: "http://\(host)/categories")!
        let outer = try await TestMockServer.start()
        let inner = try await TestMockServer.start()
        try await outer.intercepting([host]) {
            try await inner.intercepting([host]) {
                _ = try await URLSession.shared.data(from: url)
            }
            #expect(inner.journal.entries().count == 1)
            #expect(outer.journal.entries().isEmpty)
            #expect(InterceptionLocks.shared.isHeld(host))
            _ = try await URLSession.shared.data(from: url)
            #expect(outer.journal.entries().count == 1)
            #expect(inner.journal.entries().count == 1)
        }
        #expect(!InterceptionLocks.shared.isHeld(host))
        #expect(InterceptionTable.shared.answerer(for: url) == nil)
        await outer.stop()
        await inner.stop()
    }

    /// Holding locks of its own lets a test skip none of another test's: a test inside
    /// its own interception still waits for a host another test holds.
    @Test(.timeLimit(.minutes(1)))
    func aTestInsideItsOwnInterceptionStillWaitsForAnotherTestsHost() async throws {
        let host = Self.uniqueHost("shared"), own = Self.uniqueHost("own")
        let first = try await TestMockServer.start()
        let second = try await TestMockServer.start()
        let firstInside = Signal(), firstMayEnd = Signal(), secondInside = Signal()
        let firstTest = Task { try await first.intercepting([host]) { firstInside.fire(); await firstMayEnd.wait() } }
        await firstInside.wait()
        let secondTest = Task {
            try await second.intercepting([own]) {
                try await second.intercepting([host]) { secondInside.fire() }
            }
        }
        #expect(await eventually { InterceptionLocks.shared.waiting(for: host) == 1 })
        #expect(!secondInside.fired)
        firstMayEnd.fire()
        try await firstTest.value
        try await secondTest.value
        #expect(secondInside.fired)
        #expect(!InterceptionLocks.shared.isHeld(host))
        #expect(!InterceptionLocks.shared.isHeld(own))
        await first.stop()
        await second.stop()
    }

    /// A task started in a test's scope inherits the scope, but not past the test's hold:
    /// once the test has given the host back and another test holds it, the task waits.
    @Test(.timeLimit(.minutes(1)))
    func aTaskThatOutlivesItsTestsScopeWaitsLikeAnyOtherTest() async throws {
        let host = Self.uniqueHost("outlives")
        let first = try await TestMockServer.start()
        let second = try await TestMockServer.start()
        let lateMayStart = Signal(), lateInside = Signal(), secondInside = Signal(), secondMayEnd = Signal()
        let late = try await first.intercepting([host]) {
            Task {
                await lateMayStart.wait()
                try await first.intercepting([host]) { lateInside.fire() }
            }
        }
        let secondTest = Task { try await second.intercepting([host]) { secondInside.fire(); await secondMayEnd.wait() } }
        await secondInside.wait()
        lateMayStart.fire()
        #expect(await eventually { InterceptionLocks.shared.waiting(for: host) == 1 })
        #expect(!lateInside.fired)
        secondMayEnd.fire()
        try await secondTest.value
        try await late.value
        #expect(lateInside.fired)
        #expect(!InterceptionLocks.shared.isHeld(host))
        await first.stop()
        await second.stop()
    }

    /// Tasks of one test that wait for a host another test holds get it together when it
    /// is given back: neither waits for the other.
    @Test(.timeLimit(.minutes(1)))
    func waitersOfOneTestAreLetInTogether() async throws {
        let host = Self.uniqueHost("together")
        let locks = InterceptionLocks.shared
        let other = InterceptionLocks.Holder(), test = InterceptionLocks.Holder()
        await locks.acquire([host], for: other)
        let firstInside = Signal(), secondInside = Signal()
        let first = Task { await locks.acquire([host], for: test); firstInside.fire(); await secondInside.wait() }
        let second = Task { await locks.acquire([host], for: test); secondInside.fire(); await firstInside.wait() }
        #expect(await eventually { locks.waiting(for: host) == 2 })
        locks.release([host], for: other)
        await first.value
        await second.value
        locks.release([host], for: test)
        #expect(locks.isHeld(host), "one of the test's two holds is still out")
        locks.release([host], for: test)
        #expect(!locks.isHeld(host))
    }

    static let heldByTheTrait = "held-by-the-trait.invalid"
    static let heldBySuiteAndTest = "held-by-suite-and-test.invalid"

    /// `intercepting` in a test whose trait intercepts the same host.
    @Test(.mockServer(intercepting: [heldByTheTrait]), .timeLimit(.minutes(1)))
    func interceptingAHostTheTraitHoldsAnswersFromTheInnerServer() async throws {
        let url = URL(string: "http://\(Self.heldByTheTrait)/categories")!
        let inner = try await TestMockServer.start()
        try await inner.intercepting([Self.heldByTheTrait]) {
            _ = try await URLSession.shared.data(from: url)
        }
        #expect(inner.journal.entries().count == 1)
        _ = try await URLSession.shared.data(from: url)
        #expect(MockServer.current.journal.entries().count == 1)
        await inner.stop()
    }

    @Test func anEntryThatIsNoHostFailsBeforeTakingAnyLock() async throws {
        let host = Self.uniqueHost("valid")
        let server = try await TestMockServer.start()
        await #expect(throws: InterceptionError.self) { _ = try await server.intercept([host, "https://\(host)/"]) }
        #expect(!InterceptionLocks.shared.isHeld(host))
        await server.stop()
    }
}

/// A test with `.mockServer(intercepting:)` in a suite with the same: the test's own trait
/// runs inside its suite's, takes the host its suite's holds already, and its server answers.
@Suite(.mockServer(intercepting: [InterceptionLockTests.heldBySuiteAndTest]))
struct InterceptionInSuiteTests {
    static let host = InterceptionLockTests.heldBySuiteAndTest

    @Test(.mockServer(intercepting: [host]), .timeLimit(.minutes(1)))
    func theTestsOwnServerAnswersTheHostItsSuiteInterceptsToo() async throws {
        let (_, response) = try await URLSession.shared.data(from: URL(string: "http://\(Self.host)/categories")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(MockServer.current.journal.entries().count == 1)
        #expect(InterceptionLocks.shared.isHeld(Self.host))
    }
}

/// A one-way signal: `wait()` returns once `fire()` was called.
final class Signal: Sendable {
    private let state = Locked((fired: false, waiters: [CheckedContinuation<Void, Never>]()))

    func fire() {
        let waiters = state.withLock { state in
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let fired = state.withLock { state in
                if !state.fired { state.waiters.append(continuation) }
                return state.fired
            }
            if fired { continuation.resume() }
        }
    }

    var fired: Bool { state.withLock { $0.fired } }
}

/// Whether `condition` holds within 30 s, looked at every 10 ms: a bound for a state
/// another task reaches, so that a test fails instead of hanging when it never does.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<3000 {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return condition()
}

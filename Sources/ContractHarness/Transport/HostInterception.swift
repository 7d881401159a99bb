import Foundation
import MockCore
import MockServer

/// Requests to some hosts, answered in process by one test's engine until `end()`
/// (`TestMockServer.intercept(_:)`). While it lasts no other test intercepts these host
/// names: one that asks waits (`InterceptionLocks`). Its own test may intercept them
/// again inside its scope (`inScope(_:)`): the newest interception answers until it ends.
///
/// Interception is process-wide, as the URL loading system's protocol registration is:
/// while it lasts, every intercepted request (through `URLSession.shared` or a session
/// made from `URLSessionConfiguration.default` or `.ephemeral`) to these hosts reaches
/// this engine, whichever test sent it.
public final class HostInterception: Sendable {
    /// The hosts intercepted.
    public let hosts: [InterceptedHost]
    private let id: Int?
    private let names: [String]
    /// Who holds the locks of `names`: the test's scope this interception was made in, or
    /// a scope of its own.
    private let holder: InterceptionLocks.Holder?
    private let ended = Locked(false)

    init(hosts: [InterceptedHost], id: Int?, names: [String], holder: InterceptionLocks.Holder?) {
        self.hosts = hosts
        self.id = id
        self.names = names
        self.holder = holder
    }

    /// Runs `body` (and the tasks it starts) as part of this interception's test: there,
    /// intercepting one of these hosts again takes no lock and so never waits for this
    /// interception, while other tests still wait. `isolation` keeps `body` on the
    /// caller's actor.
    package func inScope<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        guard let holder, InterceptionLocks.current !== holder else { return try await body() }
        return try await InterceptionLocks.$current.withValue(holder, operation: body)
    }

    /// Runs `body` as one test: interceptions made in it, and in the tasks that inherit
    /// its task-locals, hold their hosts for this test, so it takes a host it holds again
    /// at once, as inside `inScope(_:)`. For an adapter that runs a whole test (setUp, the
    /// test method, tearDown) in one synchronous call, such as `XCTestCase.invokeTest()`.
    package static func asOneTest<T>(_ body: () throws -> T) rethrows -> T {
        try InterceptionLocks.$current.withValue(InterceptionLocks.Holder(), operation: body)
    }

    /// Stops intercepting, then lets the next test waiting for one of these host names
    /// start. Only the first call does anything.
    public func end() {
        let first = ended.withLock { ended in
            defer { ended = true }
            return !ended
        }
        guard first else { return }
        if let id { InterceptionTable.shared.remove(id) }
        if let holder { InterceptionLocks.shared.release(names, for: holder) }
    }

    /// An interception dropped without `end()` ends here, so its hosts are never held forever.
    deinit { end() }
}

/// The hosts intercepted now and the engine answering each: what
/// `InterceptingURLProtocol` consults for every request once installed. Bounded by the
/// tests running at once; an interception leaves when it ends.
final class InterceptionTable: Sendable {
    static let shared = InterceptionTable()

    private struct Interception {
        let id: Int
        let hosts: [InterceptedHost]
        let answerer: InProcessRegistry.Entry
    }

    private let state = Locked((next: 1, active: [Interception]()))

    func add(_ hosts: [InterceptedHost], pipeline: Pipeline, requestTimeout: TimeInterval) -> Int {
        state.withLock { state in
            let id = state.next
            state.next += 1
            state.active.append(Interception(id: id, hosts: hosts, answerer: InProcessRegistry.Entry(pipeline: pipeline, requestTimeout: requestTimeout)))
            return id
        }
    }

    func remove(_ id: Int) {
        state.withLock { $0.active.removeAll { $0.id == id } }
    }

    /// The engine intercepting `url`'s host and port, if one is: the newest interception
    /// that covers it, so a test's own server wins over its suite's.
    func answerer(for url: URL?) -> InProcessRegistry.Entry? {
        guard let url else { return nil }
        return state.withLock { state in
            state.active.isEmpty ? nil : state.active.last { $0.hosts.contains { $0.covers(url) } }?.answerer
        }
    }

    /// How many interceptions are in force (the tests' view).
    var count: Int { state.withLock { $0.active.count } }
}

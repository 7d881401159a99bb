import Foundation
import MockCore
import MockServer

extension TestMockServer {
    /// Answers requests to `hosts` from this server's engine, in process, until the
    /// returned interception ends: requests an unmodified client makes through
    /// `URLSession.shared`, or through a session made from `URLSessionConfiguration.default`
    /// or `.ephemeral` (on Apple platforms; see `InterceptingURLProtocol` for the exact
    /// reach on each platform). Requests to other hosts go out as before.
    ///
    /// Each entry is a host (every scheme and port) or `host:port` (`InterceptedHost`). A
    /// request reaches the engine with its real host, so a host that an API answers to
    /// (`MockAPI.hosts`, such as Open Market's `market-training.yagom-academy.kr`) is
    /// answered by that API alone; any other host is answered by every API's routes, as
    /// the server's own address is.
    ///
    /// Interception is process-wide, so tests that intercept the same host name run one at
    /// a time: this waits while another test intercepts any of `hosts`, and stops waiting,
    /// with an error, if the task is cancelled or the wait could never end. While it
    /// lasts, requests to these hosts from any test reach this server. With no hosts it
    /// returns at once, takes no lock and installs nothing.
    ///
    /// Inside the scope of a test's own interception (`intercepting(_:isolation:_:)`, the
    /// `.mockServer(intercepting:)` trait on the test or its suite), and in the tasks that
    /// scope starts, a host the test intercepts already takes no lock again: this server
    /// answers it until the returned interception ends, then the outer one does again.
    /// Hosts added inside the scope are taken as they are asked for: when two tests nest
    /// the same hosts in opposite orders, the second to wait for the other's fails with
    /// `InterceptionError.wouldDeadlock`. Name every host in the outermost scope instead.
    ///
    /// An interception made here outside any test's scope has no scope of its own. The
    /// task that made it cannot intercept one of its hosts again before `end()` (that
    /// would wait for itself, and throws); any other task waits for that `end()`.
    ///
    /// - Parameter hosts: Host names, or `host:port` for one port.
    /// - Throws: `InterceptionError.invalidHost` for an entry that is no host, before any
    ///   lock is taken; `.wouldDeadlock` when the wait for a host could never end (tests
    ///   each waiting for a host another holds, or this task for its own interception);
    ///   `.cancelled` when the task is cancelled while it waits. Then it holds no host.
    public func intercept(_ hosts: [String]) async throws(InterceptionError) -> HostInterception {
        var parsed: [InterceptedHost] = []
        for entry in hosts { parsed.append(try InterceptedHost(parsing: entry)) }
        guard !parsed.isEmpty else { return HostInterception(hosts: [], id: nil, names: [], holder: nil) }
        InterceptingURLProtocol.install()
        let names = parsed.map(\.host)
        let holder = InterceptionLocks.current ?? InterceptionLocks.Holder(madeBy: TaskIdentity.current)
        try await InterceptionLocks.shared.acquire(names, for: holder)
        let pipeline = await server.pipeline ?? InProcessExchange.pipeline(for: engine)
        let id = InterceptionTable.shared.add(parsed, pipeline: pipeline, requestTimeout: MockURLProtocol.defaultRequestTimeout)
        return HostInterception(hosts: parsed, id: id, names: names, holder: holder)
    }

    /// Installs interception ahead of the first test that intercepts a host (`intercept(_:)`
    /// installs it too), so session configurations obtained from now on take part. Until a
    /// test intercepts a host, every request goes out as before.
    public static func prepareInterception() { InterceptingURLProtocol.install() }

    /// Runs `body` while requests to `hosts` are answered by this server (`intercept(_:)`),
    /// and ends the interception however `body` ends. Inside `body`, and in the tasks it
    /// starts, intercepting these hosts again takes no lock: nested calls for the same
    /// host never wait for this one, and the innermost server answers.
    /// `isolation` keeps `body` on the caller's actor (a `@MainActor` test's).
    ///
    /// - Throws: What `intercept(_:)` throws, before `body` runs; else what `body` throws.
    public func intercepting<T>(_ hosts: [String], isolation: isolated (any Actor)? = #isolation,
                                _ body: () async throws -> T) async throws -> T {
        let interception = try await intercept(hosts)
        defer { interception.end() }
        return try await interception.inScope(body)
    }
}

import Foundation
@testable import MockServer
import MockServerTLS
import NIOCore
import MockCore
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Slow, silent, oversized and surplus clients get a clear answer and cost nothing after (#12).
@Suite struct ConnectionHygieneTests {
    static let quick = ConnectionLimits(idleTimeout: .milliseconds(600), headTimeout: .milliseconds(400), maxHeadSize: 2_048, maxConnections: 3)

    /// Slowloris, on the connection's loop clock: a byte now and then does not extend the
    /// head's deadline (400 ms from its first byte).
    @Test func aSlowHeadGets408AndIsJournaled() throws {
        let client = try EmbeddedConnection(limits: Self.quick)
        try client.send("GET /menu HTTP/1.1\r\nHo")
        for _ in 0..<2 {
            client.advance(0.15)
            try client.send("s")
        }
        client.advance(0.099)
        #expect(try client.written().isEmpty, "nothing before the deadline")
        client.advance(0.001)
        let text = try client.written()
        #expect(!client.isOpen)
        let response = try #require(RawResponse.parseAll(Data(text.utf8)).first, "\(text)")
        #expect(response.status == 408)
        #expect(String(decoding: response.body, as: UTF8.self).contains("did not arrive within"))
        #expect(client.engine.journal.entries().last?.status == 408)
    }

    /// The idle timeout runs from the end of the response: closed at 600 ms, not before,
    /// and with nothing sent after the response.
    @Test func anIdleKeepAliveConnectionIsClosedQuietly() throws {
        let client = try EmbeddedConnection(limits: Self.quick)
        try client.send(getRequest("/categories"))
        let responses = RawResponse.parseAll(Data(try client.writtenBytes()))
        #expect(responses.count == 1)
        #expect(responses.first?.status == 200)
        client.advance(0.599)
        #expect(client.isOpen, "closed before the 0.6 s idle timeout")
        client.advance(0.001)
        #expect(!client.isOpen)
        #expect(try client.written().isEmpty, "an idle close sends nothing after the response")
        #expect(client.engine.journal.totalCount == 1)
    }

    @Test func aStalledBodyGets408() throws {
        let client = try EmbeddedConnection(limits: Self.quick)
        try client.send("POST /order HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"menu")
        client.advance(0.599)
        #expect(try client.written().isEmpty)
        client.advance(0.001)
        let text = try client.written()
        #expect(statuses(text) == [408])
        #expect(text.contains("stopped arriving"))
        let entry = client.engine.journal.entries().last
        #expect(entry?.request.method == "POST")
        #expect(entry?.request.path == "/order")
    }

    @Test(arguments: [
        ("headers", "GET /menu HTTP/1.1\r\nHost: a\r\nX-Big: \(String(repeating: "b", count: 4_000))\r\n\r\n"),
        ("request line", "GET /menu?\(String(repeating: "q", count: 50_000))"),
    ])
    func anOversizedHeadGets431(kind: String, request: String) async throws {
        try await withServer(limits: Self.quick) { server in
            let client = try RawConnection(port: server.port)
            _ = await client.sendWithin(Data(request.utf8), timeout: 5)
            let read = await client.read(timeout: 30)
            let response = try #require(read.responses.first, "\(kind): \(read.text.prefix(200))")
            #expect(response.status == 431, "\(kind)")
            #expect(String(decoding: response.body, as: UTF8.self).contains("2048"), "\(kind): the limit is named")
            #expect(server.engine.journal.entries().last?.status == 431)
        }
    }

    @Test func connectionsPastTheLimitGetA503AndTheServerRecovers() async throws {
        // Held connections stay open for an hour, however long a loaded machine takes.
        try await withServer(limits: .patient(maxConnections: 3)) { server in
            var held: [RawConnection] = []
            for _ in 0..<3 {
                let connection = try RawConnection(port: server.port)
                connection.send("GET /categories HTTP/1.1\r\nHost: a\r\n\r\n")
                _ = await connection.read(timeout: 30) { RawResponse.parseAll($0).count == 1 }
                held.append(connection)
            }
            let extra = try RawConnection(port: server.port)
            extra.send("GET /categories HTTP/1.1\r\nHost: a\r\n\r\n")
            let refused = await extra.read(timeout: 30)
            let response = try #require(refused.responses.first, "\(refused.text)")
            #expect(response.status == 503)
            #expect(response.header("Retry-After") == "1")
            #expect(String(decoding: response.body, as: UTF8.self).contains("--max-connections"))
            let (info, _) = try await HTTP.get(server.url("/__admin/info"))
            _ = info
            held.removeAll()
            #expect(await eventually { server.server.openConnections == 0 }, "the server saw the held connections close")
            let (_, ok) = try await HTTP.get(server.url("/categories"))
            #expect(ok.statusCode == 200)
        }
    }
}

/// A stopping server lets responses under way finish within the grace, then cuts the rest:
/// its connections' stop (`ConnectionTracker`), on their event loop's clock.
@Suite struct GracefulStopTests {
    static func delayed(_ seconds: Double) -> Scenario {
        Scenario(name: "slow-\(seconds)", rules: [Rule("slow", .get("/categories"), always: Outcome(.simulator, latency: .fixed(seconds)))])
    }

    /// The answer under way (an 8 s delay) goes out within the 20 s grace, with
    /// `Connection: close`, and the stop is done when the connection closes, not at the grace.
    @Test func aDelayedResponseUnderWayFinishes() throws {
        let server = try EmbeddedServer(scenarios: [Self.delayed(8)])
        let client = try server.connect()
        try client.send(getRequest("/categories"))
        #expect(server.engine.journal.totalCount == 1, "under way: the request was read")
        let stopped = try #require(server.tracker.stop(grace: .seconds(20)))
        let done = Locked(false)
        stopped.whenComplete { _ in done.withLock { $0 = true } }
        server.advance(7.999)
        #expect(try client.written().isEmpty)
        #expect(client.isOpen && !done.current)
        server.advance(0.001)
        let result = RawResponse.parseAll(Data(try client.writtenBytes()))
        #expect(result.first?.status == 200)
        #expect(result.first?.header("Connection") == "close")
        #expect(!client.isOpen)
        server.loop.run()
        #expect(done.current, "the stop ended with the connection, 12 s before the grace")
    }

    /// A 60 s delay is cut at the 1 s grace: nothing is written, the connection closes.
    @Test func aLongDelayIsCutWithinTheGrace() throws {
        let server = try EmbeddedServer(scenarios: [Self.delayed(60)])
        let client = try server.connect()
        try client.send(getRequest("/categories"))
        let stopped = try #require(server.tracker.stop(grace: .seconds(1)))
        let done = Locked(false)
        stopped.whenComplete { _ in done.withLock { $0 = true } }
        server.advance(0.999)
        #expect(client.isOpen && !done.current)
        server.advance(0.001)
        server.loop.run()
        #expect(!client.isOpen)
        #expect(done.current)
        #expect(try client.written().isEmpty)
    }

    /// An idle connection closes at once, and the stop is done before the clock moves.
    @Test func anIdleConnectionClosesAtOnce() throws {
        let server = try EmbeddedServer()
        let client = try server.connect()
        try client.send(getRequest("/categories"))
        _ = try client.written()
        let stopped = try #require(server.tracker.stop(grace: .seconds(20)))
        let done = Locked(false)
        stopped.whenComplete { _ in done.withLock { $0 = true } }
        server.loop.run()
        #expect(!client.isOpen)
        #expect(done.current)
    }

    /// End to end over a real socket: stopping cuts an answer delayed by an hour at the 1 s
    /// grace, and the close is a FIN, not a reset (the request was read whole). The bound on
    /// the stop is a margin a loaded 2-core machine cannot eat: 15 minutes (a full run here
    /// once held a stop for 233 s), against the hour a stop that waited for the delay takes.
    @Test func aLongDelayIsCutWithinTheGraceOverARealSocket() async throws {
        let server = try await TestServer.start(scenarios: [Self.delayed(3600)], scenario: "slow-3600.0")
        let client = try RawConnection(port: server.port)
        client.send("GET /categories HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await eventually { server.engine.journal.totalCount == 1 }, "the request never reached the server")
        let (_, elapsed) = await measure { await server.stop() }
        #expect(elapsed < 900, "stop took \(elapsed) s with a 1 s grace and an hour's delay")
        let result = await client.read()
        #expect(result.end == .closed, "the request was read whole, so the close is a FIN, not a reset")
        #expect(result.responses.isEmpty)
    }
}

/// A stopping HTTPS server closes an idle keep-alive connection at once, as it does over
/// plain HTTP: with HTTP/2 (GOAWAY, no stream open) and with HTTP/1.1. Before, an idle
/// HTTP/2 connection waited out the whole grace, and each TLS close waited 5 s for a
/// close_notify the idle client never sent, so every contract check over
/// `.secureSockets` took 6 s to stop its server.
@Suite struct SecureGracefulStopTests {
    /// An HTTPS server whose 20 s grace a broken stop would wait out.
    static func server(http2: Bool) async throws -> TestServer {
        try await TestServer.start(limits: .patient(shutdownGrace: .seconds(20)),
                                   tls: TLSSettings(caDirectory: try await TestCA.trusted().directory, http2: http2))
    }

    @Test(arguments: [true, false])
    func anIdleKeepAliveConnectionClosesAtOnce(http2: Bool) async throws {
        // Microseconds of work plus a 100 ms wait for close_notify; 20 s (the grace) or 5 s
        // (NIO's default close_notify wait) when broken. Timed on the connection's event
        // loop, from the stop's ask to the close: the test process's shared pool, which a
        // full run can hold for seconds, is not in it.
        let server = try await Self.server(http2: http2)
        // URLSession keeps its connection open after the answer (libcurl here).
        let session = try await TestCA.session()
        defer { session.invalidateAndCancel() }
        let (_, response) = try await session.data(from: URL(string: "https://localhost:\(server.port)/categories")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(server.server.openConnections == 1)
        let elapsed = try await server.stopConnections()
        await server.stop()
        #expect(elapsed < 3, "the stop took \(elapsed) s with one idle \(http2 ? "HTTP/2" : "HTTP/1.1") connection")
    }

    /// A connection that has not finished (here: not begun) its TLS handshake has nothing
    /// to finish: a stop closes it at once, with HTTP/1.1 only as with HTTP/2 by ALPN.
    @Test(arguments: [true, false])
    func aConnectionBeforeItsHandshakeClosesAtOnce(http2: Bool) async throws {
        // Timed on the connection's event loop, as above.
        let server = try await Self.server(http2: http2)
        let client = try RawConnection(port: server.port)   // TCP only: no ClientHello
        // Accepted, not only queued: the kernel resets a connection still in the listen
        // queue when the listening socket closes, which is not what this is about.
        #expect(await eventually { server.server.openConnections == 1 }, "the server accepted the connection")
        let elapsed = try await server.stopConnections()
        await server.stop()
        let result = await client.read()
        #expect(elapsed < 3, "the stop took \(elapsed) s with a connection before its handshake (\(http2 ? "h2 and HTTP/1.1" : "HTTP/1.1 only"))")
        #expect(result.end == .closed, "the connection was closed with a FIN: \(result.end)")
    }
}

/// The admin API behind a token, as required off loopback.
@Suite struct AdminTokenTests {
    @Test func adminCallsNeedTheTokenAndTheAPIsDoNot() async throws {
        try await withServer(adminToken: "s3cret") { server in
            let (body, denied) = try await HTTP.get(server.url("/__admin/info"))
            #expect(denied.statusCode == 401)
            #expect(String(decoding: body, as: UTF8.self).contains("--admin-token"))
            #expect(try await HTTP.get(server.url("/__admin/info"), headers: ["X-Admin-Token": "wrong"]).1.statusCode == 401)
            #expect(try await HTTP.get(server.url("/__admin/info"), headers: ["X-Admin-Token": "s3cret"]).1.statusCode == 200)
            #expect(try await HTTP.get(server.url("/__admin/info"), headers: ["Authorization": "Bearer s3cret"]).1.statusCode == 200)
            #expect(try await HTTP.get(server.url("/menu")).1.statusCode == 200)
            // A browser passes it as a query parameter (the dashboard forwards its own).
            #expect(try await HTTP.get(server.url("/__admin/ui?token=s3cret")).1.statusCode == 200)
            #expect(try await HTTP.get(server.url("/__admin/requests?limit=1&token=s3cret")).1.statusCode == 200)
            // Refused admin calls are journaled too.
            #expect(server.engine.journal.entries().filter { $0.status == 401 }.count == 2)
        }
    }

    @Test(arguments: [("127.0.0.1", true), ("localhost", true), ("::1", true), ("[::1]", true), ("0.0.0.0", false), ("::", false), ("192.168.1.5", false)])
    func loopbackIsRecognised(host: String, loopback: Bool) {
        #expect(ServerConfiguration.isLoopback(host) == loopback)
    }
}

/// Every request the server read is journaled, also when the client leaves first (#12).
@Suite struct AbandonedRequestTests {
    /// The client leaves 200 ms (of loop time) into a 60 s delay, with three requests
    /// queued behind it and a fourth half sent.
    @Test func aClientThatLeavesIsJournaledInFull() throws {
        let slow = Scenario(name: "slow", rules: [Rule("slow", .get("/categories"), always: Outcome(.simulator, latency: .fixed(60)))])
        let client = try EmbeddedConnection(scenarios: [slow])
        try client.send("GET /categories HTTP/1.1\r\nHost: a\r\n\r\n" + String(repeating: "GET /menu HTTP/1.1\r\nHost: a\r\n\r\n", count: 3)
                        + "POST /order HTTP/1.1\r\nHost: a\r\nContent-Length: 50\r\n\r\n{\"menu")
        #expect(client.engine.journal.totalCount == 1, "the delayed request is under way, the rest wait behind it")
        client.advance(0.2)
        try client.channel.close().wait()   // the client leaves, mid-delay
        let entries = client.engine.journal.entries()
        #expect(entries.count == 5, "\(entries.map { "\($0.request.method) \($0.request.path) \($0.status)" })")
        #expect(entries.filter { $0.status == 499 }.map(\.request.path) == ["/menu", "/menu", "/menu", "/order"],
                "\(entries.map { "\($0.request.method) \($0.request.path) \($0.status)" })")
    }
}

import Foundation
import MockServer
import NIOCore
import MockCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client that stops reading costs the server bounded memory (#12): nothing is produced
/// for a connection NIO cannot write to.
@Suite struct BackpressureTests {
    /// Answers `GET /big` with 64 KiB: responses large against the kernel's socket buffers.
    static let big = Scenario(name: "big", rules: [
        Rule("big", .get("/big"), always: Outcome(.stub(status: 200, headers: [:], body: .bytes(Data(repeating: 0x62, count: 64 * 1024))))),
    ])

    /// The size of one whole response on the wire.
    func responseSize(_ server: TestServer, _ path: String) async throws -> Int {
        let probe = try RawConnection(port: server.port)
        probe.send("GET \(path) HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        let read = await probe.read(timeout: 30)
        return read.data.count - "Connection: close\r\n".count + "Connection: keep-alive\r\n".count
    }

    /// A client pipelines a thousand requests and never reads: the server answers a
    /// bounded number (what the socket buffers and the high water mark hold), then waits.
    /// When the client reads, every request is answered, none lost. (Before #12 the server
    /// answered all of them at once and held the 64 MB it could not send.)
    @Test func aNeverReadingPipelinerIsAnsweredOnlyAsFastAsItReads() async throws {
        try await withServer(scenarios: [Self.big], scenario: "big") { server in
            let size = try await responseSize(server, "/big")
            let requests = 1_000
            let client = try RawConnection(port: server.port)
            let request = Data("GET /big HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
            var burst = Data(capacity: request.count * requests)
            for _ in 0..<requests { burst.append(request) }
            let sent = await client.sendWithin(burst, timeout: 20)
            #expect(sent == burst.count, "the client could not even send its requests")

            // Let the server do all it will: it must come to stand still (no change for 1.5 s,
            // generous on a busy machine), far short of all.
            let journal = server.engine.journal
            var answered = journal.totalCount
            var quietSince = Date()
            let giveUp = Date().addingTimeInterval(60)
            while Date().timeIntervalSince(quietSince) < 1.5 && Date() < giveUp {
                try await Task.sleep(nanoseconds: 100_000_000)
                let now = journal.totalCount
                if now != answered {
                    answered = now
                    quietSince = Date()
                }
            }
            // The bound: socket buffers plus the high water mark, in responses.
            #expect(Int(answered) < requests / 2, "answered \(answered) of \(requests) without a single read (responses of \(size) bytes)")

            let received = await client.drain(total: size * requests, timeout: 120)
            #expect(received == size * requests, "every response arrives once the client reads")
            #expect(journal.totalCount == UInt64(requests) + 1)
        }
    }

    /// A throttled body waits for the client, not in NIO's buffer: while the channel is not
    /// writable (a client that stopped reading, past the water mark) no part is produced,
    /// however much time passes on the connection's loop clock; once it drains, the rest
    /// follows.
    @Test func aPacedBodyWaitsForAReader() throws {
        let body = Data(repeating: 0x61, count: 4 * 1024 * 1024)
        let scenario = Scenario(name: "big-paced", defaults: .init(throttle: .bytesPerSecond(200_000_000, chunkSize: 64 * 1024)),
                                rules: [Rule("big", .get("/big"), always: Outcome(.stub(status: 200, headers: [:], body: .bytes(body))))])
        let connection = try EmbeddedConnection(scenarios: [scenario])
        connection.channel.isWritable = false
        try connection.send(getRequest("/big"))
        // At 200 MB/s the whole 4 MiB would be out in 21 ms without backpressure.
        connection.advance(10)
        var received = try connection.writtenBytes().count
        #expect(received < 2 * 64 * 1024, "\(received) bytes produced for a client that does not read")
        #expect(connection.engine.journal.entries().last?.duration == nil, "the paced response finished without a reader")
        connection.channel.isWritable = true
        connection.channel.pipeline.fireChannelWritabilityChanged()
        for _ in 0..<1_000 where connection.engine.journal.entries().last?.duration == nil {
            connection.advance(0.001)
        }
        received += try connection.writtenBytes().count
        #expect(received > body.count, "the head and the whole body once the client reads")
        #expect(connection.engine.journal.entries().last?.duration != nil)
    }

    /// An event-stream subscriber that stops reading is dropped, not buffered for ever.
    @Test func aStalledEventSubscriberIsDropped() async throws {
        try await withServer { server in
            let subscriber = try RawConnection(port: server.port)
            subscriber.setReceiveBuffer(4 * 1024)
            subscriber.send("GET /__admin/events HTTP/1.1\r\nHost: a\r\n\r\n")
            let hub = server.engine.events
            #expect(await eventually { hub.subscriberCount == 1 })
            // Traffic makes events; a reader of its own answers is a normal client.
            let busy = try RawConnection(port: server.port)
            let request = "GET /categories?padding=\(String(repeating: "p", count: 2000)) HTTP/1.1\r\nHost: a\r\n\r\n"
            var rounds = 0
            while hub.subscriberCount > 0 && rounds < 60 {
                busy.send(String(repeating: request, count: 200))
                _ = await busy.read(timeout: 30) { RawResponse.parseAll($0).count >= 200 }
                rounds += 1
            }
            #expect(hub.subscriberCount == 0, "the subscriber that does not read is still subscribed after \(rounds) rounds")
        }
    }
}

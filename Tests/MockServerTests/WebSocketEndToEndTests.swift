import Foundation
import MockServer
import MockServerTLS
import NIOCore
import NIOPosix
import NIOSSL
import NIOWebSocket
import MockCore
import TestSupport
import Testing

/// WebSockets over real loopback sockets with real clients: SwiftNIO's own client over
/// ws://, wss:// and a forward proxy's TLS tunnel to a mapped host, and Python's
/// `websockets`. Each holds the scripted conversation, gets a message the test pushes,
/// and the test reads what the client sent.
@Suite struct WebSocketEndToEndTests {
    /// Greets, echoes text, answers bytes with [1, 2, 3].
    static let chat = Scenario(name: "sockets", rules: [
        Rule("chat", .get("/chat"), always: .webSocket(WebSocketScript(
            onConnect: [.text("welcome")],
            onMessage: [
                WebSocketReply("echo", match: MessagePattern(kind: .text),
                               messages: [WebSocketMessage(.template(try! ResponseTemplate("you said {{message}}"), json: false), delay: 0.01)]),
                WebSocketReply("bytes", match: MessagePattern(kind: .binary), messages: [.binary(Data([1, 2, 3]))]),
            ]))),
    ])

    /// Loops of these tests' own, for their servers and their clients: what they show is
    /// how the server ends a connection, and on loops other tests' servers and clients
    /// share, a neighbour's work could hold that end past the clients' wait.
    static let serverLoops = ServerLoops(limit: 4)
    static let clientLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// A TLS context for a client that trusts the test CA and speaks HTTP/1.1.
    static func clientTLS() async throws -> NIOSSLContext {
        let ca = try await TestCA.trusted()
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(ca.certificatePEM.utf8), format: .pem)])
        configuration.applicationProtocols = ["http/1.1"]
        return try NIOSSLContext(configuration: configuration)
    }

    /// The conversation every client below holds, and what the server saw of it.
    static func converse(_ client: NIOWebSocketClient, engine: MockEngine) async throws {
        #expect(try await client.nextText() == "welcome")
        try await client.send(text: "hello")
        #expect(try await client.nextText() == "you said hello")
        let socket = try await engine.sockets.opened(path: "/chat", timeout: 10)
        #expect(try await engine.sockets.nextMessage(from: socket.id, timeout: 10) == .text("hello"))
        #expect(engine.sockets.send(.text("pushed by the test"), to: socket.id))
        #expect(try await client.nextText() == "pushed by the test")
        try await client.send(.ping, Array("ping".utf8))
        let pong = try #require(try await client.next())
        #expect(pong.opcode == .pong && String(buffer: pong.unmaskedData) == "ping")
        try await client.close(code: 1000)
        let close = try #require(try await client.next())
        #expect(close.opcode == .connectionClose)
        var payload = close.unmaskedData
        #expect(payload.readInteger(as: UInt16.self) == 1000)
        // The server closes the TCP connection after the close handshake, and sends nothing more.
        try await client.closed()
        #expect(client.framesWaiting == 0, "nothing after the close frame")
        let entry = try #require(engine.journal.entry(socket.id))
        #expect(entry.status == 101)
        // The exchange ends on the server's loop as the connection closes, which the client
        // may see first.
        #expect(await eventually(within: 20) { engine.journal.entry(socket.id)?.transcript?.ending != nil })
        let transcript = try #require(engine.journal.entry(socket.id)?.transcript)
        #expect(transcript.ending?.how == .finished)
        #expect(transcript.records.filter { $0.direction == .received }.map(\.kind) == [.text, .ping, .close])
        #expect(transcript.records.filter { $0.direction == .sent }.map(\.kind) == [.text, .text, .text, .pong, .close])
        #expect(engine.sockets.socket(socket.id) == nil)
    }

    @Test func aNIOClientHoldsAScriptedConversationOverWS() async throws {
        let server = try await TestServer.start(scenarios: [Self.chat], scenario: "sockets", loops: Self.serverLoops)
        defer { Task { await server.stop() } }
        let client = try await NIOWebSocketClient.connect(port: server.port, path: "/chat", group: Self.clientLoops)
        try await Self.converse(client, engine: server.engine)
    }

    @Test func aNIOClientHoldsAScriptedConversationOverWSS() async throws {
        let ca = try await TestCA.trusted()
        let server = try await TestServer.start(scenarios: [Self.chat], scenario: "sockets", tls: TLSSettings(caDirectory: ca.directory), loops: Self.serverLoops)
        defer { Task { await server.stop() } }
        let client = try await NIOWebSocketClient.connect(port: server.address.securePort ?? server.port, path: "/chat",
                                                          tls: try await Self.clientTLS(), serverName: "localhost", group: Self.clientLoops)
        try await Self.converse(client, engine: server.engine)
    }

    @Test func aNIOClientHoldsAScriptedConversationThroughTheProxyForAMappedHost() async throws {
        let server = try await ForwardProxyTests.start(hostMap: ["chat.example.test": "restaurant"], scenario: Self.chat)
        defer { Task { await server.stop() } }
        let client = try await NIOWebSocketClient.connect(
            port: try #require(server.address.proxyPort), path: "/chat", hostHeader: "chat.example.test",
            tls: try await Self.clientTLS(), serverName: "chat.example.test", route: .proxy(authority: "chat.example.test:443"),
            group: Self.clientLoops)
        try await Self.converse(client, engine: server.engine)
        let upgrade = try #require(server.engine.journal.entries().first { $0.status == 101 })
        #expect(upgrade.request.host == "chat.example.test")
    }

    /// The client never answers the close: the server ends the connection after its close
    /// timeout (5 s, well inside the client's 20 s wait for the connection's end).
    @Test func aScriptedCloseReachesTheClientWithItsCodeAndReason() async throws {
        let closing = Scenario(name: "closing", rules: [
            Rule("bye", .get("/chat"), always: .webSocket(WebSocketScript(onConnect: [.text("hi")], close: WebSocketClose(code: 4001, reason: "over")))),
        ])
        let server = try await TestServer.start(scenarios: [closing], scenario: "closing", loops: Self.serverLoops)
        defer { Task { await server.stop() } }
        let client = try await NIOWebSocketClient.connect(port: server.port, path: "/chat", group: Self.clientLoops)
        #expect(try await client.nextText() == "hi")
        let close = try #require(try await client.next())
        #expect(close.opcode == .connectionClose)
        var payload = close.unmaskedData
        #expect(payload.readInteger(as: UInt16.self) == 4001)
        #expect(payload.readString(length: payload.readableBytes) == "over")
        try await client.closed()
        #expect(client.framesWaiting == 0, "nothing after the close, then the connection ends")
        let transcript = try #require(server.engine.journal.entries().first { $0.status == 101 }?.transcript)
        #expect(transcript.records.last?.kind == .close && transcript.records.last?.note == "4001 over")
    }

    /// A client that never reads: what the server holds for it stays bounded, and once it
    /// passes the bound the client is dropped (journaled as a stream closed without its end).
    @Test func aClientThatNeverReadsIsDroppedNotBufferedWithoutEnd() async throws {
        let server = try await TestServer.start(scenarios: [Self.chat], scenario: "sockets",
                                                limits: ConnectionLimits(writeBufferHigh: 4 * 1024, writeBufferLow: 2 * 1024))
        defer { Task { await server.stop() } }
        let connection = try RawConnection(port: server.port)
        connection.setReceiveBuffer(4 * 1024)
        connection.send(WebSocketWire.upgrade("/chat"))
        let socket = try await server.engine.sockets.opened(path: "/chat", timeout: 10)
        // Far more than the socket buffers on both sides take, never read.
        let megabyte = Data(repeating: 7, count: 1 << 20)
        for _ in 0..<64 where server.engine.sockets.socket(socket.id) != nil {
            server.engine.sockets.send(.binary(megabyte), to: socket.id)
            await Task.yield()
        }
        var waited = 0
        while server.engine.sockets.socket(socket.id) != nil, waited < 2_000 {
            try await Task.sleep(nanoseconds: 10_000_000)
            waited += 1
        }
        #expect(server.engine.sockets.socket(socket.id) == nil, "the never-reading client was dropped")
        let transcript = try #require(server.engine.journal.entry(socket.id)?.transcript)
        #expect(transcript.ending?.how == .closedWithoutEnd)
        #expect(transcript.sentCount < 64, "sent \(transcript.sentCount) of 64 messages before the drop")
    }

    static let pythonClient = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Clients/websocket_chat.py").path

    @Test(.requires(.python3, .websockets), arguments: [false, true])
    func pythonsWebsocketsHoldsTheConversation(secure: Bool) async throws {
        let ca = try await TestCA.trusted()
        let server = try await TestServer.start(scenarios: [Self.chat], scenario: "sockets", tls: secure ? TLSSettings(caDirectory: ca.directory) : nil)
        defer { Task { await server.stop() } }
        let url = (secure ? "wss://localhost:" : "ws://127.0.0.1:") + "\(server.address.securePort ?? server.port)/chat"
        async let run = Tool.run("python3", [Self.pythonClient, url, ca.certificateURL.path])
        let socket = try await server.engine.sockets.opened(path: "/chat", timeout: 20)
        #expect(try await server.engine.sockets.nextMessage(from: socket.id, timeout: 20) == .text("hello"))
        #expect(try await server.engine.sockets.nextMessage(from: socket.id, timeout: 20) == .binary(Data([9, 9])))
        #expect(server.engine.sockets.send(.text("pushed"), to: socket.id))
        let result = try await run
        #expect(result.status == 0, "websocket_chat.py: \(result.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        #expect(seen["greeting"] as? String == "welcome")
        #expect(seen["reply"] as? String == "you said hello")
        #expect(seen["bytes"] as? [Int] == [1, 2, 3])
        #expect(seen["pong"] as? Bool == true)
        #expect(seen["pushed"] as? String == "pushed")
        #expect(seen["closeCode"] as? Int == 1000)
    }
}

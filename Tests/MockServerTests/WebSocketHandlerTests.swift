import Foundation
import NIOCore
import NIOEmbedded
import MockCore
import Testing
@_spi(Fuzzing) @testable import MockServer

/// A WebSocket on an `EmbeddedChannel`: the upgrade, then frames in and out, time on the
/// loop's own clock. Each test drives one transition or fault and reads the bytes a client
/// would see, and the journal's transcript.
@Suite struct WebSocketHandlerTests {
    typealias Wire = WebSocketWire

    /// One connection of a server whose `/chat` is a WebSocket playing `script`.
    struct Socket {
        let connection: ConnectionHandlerTests.Connection
        /// Bytes written and not yet read as whole frames.
        private var pending: [UInt8] = []

        init(_ script: WebSocketScript = Self.chat, fault: StreamFault? = nil, maxBody: Int = 1024 * 1024) throws {
            var outcome = Outcome.webSocket(script)
            if let fault { outcome = outcome.streamFaulted(fault) }
            let scenario = Scenario(name: "sockets", rules: [Rule("chat", .get("/chat"), always: outcome)])
            connection = try ConnectionHandlerTests.Connection(scenarios: [scenario], maxBody: maxBody)
        }

        /// Greets, echoes every text message after a second, and answers "bye" with a close.
        static let chat = WebSocketScript(
            onConnect: [.text("welcome")],
            onMessage: [
                WebSocketReply("bye", match: MessagePattern(text: .equalTo("bye")), messages: [], close: WebSocketClose(code: 1000, reason: "bye")),
                WebSocketReply("echo", match: MessagePattern(kind: .text), messages: [WebSocketMessage(.template(try! ResponseTemplate("you said {{message}}"), json: false), delay: 1)]),
                WebSocketReply("bytes", match: MessagePattern(kind: .binary), messages: [.binary(Data([1, 2, 3]))]),
            ])

        /// Sends the opening handshake (and `after`, in the same write) and returns the head.
        mutating func open(_ path: String = "/chat", after: [UInt8] = []) throws -> String {
            try connection.channel.writeInbound(ByteBuffer(bytes: Array(Wire.upgrade(path).utf8) + after))
            connection.loop.run()   // the takeover runs after the read that carried the request
            let bytes = try connection.writtenBytes()
            guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return String(decoding: bytes, as: UTF8.self) }
            pending = Array(bytes[end.upperBound...])
            return String(decoding: bytes[..<end.upperBound], as: UTF8.self)
        }

        func send(_ bytes: [UInt8]) throws {
            try connection.channel.writeInbound(ByteBuffer(bytes: bytes))
        }

        /// The frames written since the last call.
        mutating func frames() throws -> [Wire.Frame] {
            let (frames, rest) = Wire.frames(pending + (try connection.writtenBytes()))
            pending = rest
            return frames
        }

        mutating func texts() throws -> [String] { try frames().filter { $0.opcode == 1 }.map(\.text) }

        func advance(_ seconds: Double) { connection.advance(seconds) }
        var isOpen: Bool { connection.isOpen }
        var engine: MockEngine { connection.engine }
        var entry: ServeEvent? { engine.journal.entries().first }
        var transcript: StreamTranscript? { entry?.transcript }
    }

    // MARK: The upgrade

    @Test func theUpgradeIsA101WithTheAcceptKeyAndTheGreetingFollows() throws {
        var socket = try Socket()
        let head = try socket.open()
        #expect(head.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(head.contains("Upgrade: websocket\r\n") && head.contains("Connection: Upgrade\r\n"))
        #expect(head.contains("Sec-WebSocket-Accept: \(Wire.accept)\r\n"))
        #expect(!head.contains("Content-Length") && !head.contains("Transfer-Encoding"))
        #expect(try socket.texts() == ["welcome"])
        #expect(socket.isOpen)
        #expect(socket.engine.journal.entries().count == 1)
        #expect(socket.entry?.status == 101)
        #expect(socket.engine.sockets.open.map(\.id) == [socket.entry?.id])
    }

    @Test func framesSentWithTheHandshakeReachTheWebSocket() throws {
        var socket = try Socket()
        _ = try socket.open(after: Wire.text("early"))
        #expect(try socket.texts() == ["welcome"])
        socket.advance(1)
        #expect(try socket.texts() == ["you said early"], "the bytes after the head went to the frame decoder")
    }

    @Test func aMalformedHandshakeGets400WithAReasonJournaledOnce() throws {
        let socket = try Socket()
        let request = "GET /chat HTTP/1.1\r\nHost: 127.0.0.1:1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try socket.connection.send(request)
        let answer = try socket.connection.written()
        #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(answer.contains("Sec-WebSocket-Key must be 16 random bytes"))
        #expect(answer.contains("Connection: close"))
        #expect(socket.engine.journal.entries().map(\.status) == [400])
        #expect(!socket.isOpen, "an upgrade request not upgraded ends its connection: NIO's decoder reads no further")
    }

    @Test func aPlainGetOfAWebSocketGets426AndAnUpgradeElsewhereIsAnsweredAsAnyRequest() throws {
        let socket = try Socket()
        try socket.connection.send(ConnectionHandlerTests.get("/chat"))
        let plain = try socket.connection.written()
        #expect(plain.hasPrefix("HTTP/1.1 426 Upgrade Required\r\n") && plain.contains("Sec-WebSocket-Version: 13"))
        #expect(socket.isOpen, "a request that asks no upgrade keeps its connection")
        try socket.connection.send(Wire.upgrade("/menu"))
        let menu = try socket.connection.written()
        #expect(menu.hasPrefix("HTTP/1.1 200 OK\r\n") && menu.contains("\"items\""))
        #expect(menu.contains("Connection: close"))
        #expect(!socket.isOpen)
        #expect(socket.engine.journal.entries().map(\.status) == [426, 200])
    }

    // MARK: The conversation on the loop's clock

    @Test func aReplyWaitsForItsDelayAndIsTemplatedFromTheMessage() throws {
        var socket = try Socket()
        _ = try socket.open()
        _ = try socket.frames()
        try socket.send(Wire.text("hello"))
        socket.advance(0.9)
        #expect(try socket.texts().isEmpty)
        socket.advance(0.2)
        #expect(try socket.texts() == ["you said hello"])
        try socket.send(Wire.frame(0x2, [9, 9]))
        #expect(try socket.frames() == [Wire.Frame(fin: true, opcode: 2, masked: false, payload: [1, 2, 3])])
    }

    @Test func pushesComeOnTheirTimerAndStopWhenCounted() throws {
        var socket = try Socket(WebSocketScript(pushes: [WebSocketPush(every: 2, times: 2, messages: [.text("tick")])]))
        _ = try socket.open()
        socket.advance(1.9)
        #expect(try socket.texts().isEmpty)
        socket.advance(0.2)
        #expect(try socket.texts() == ["tick"])
        socket.advance(2)
        #expect(try socket.texts() == ["tick"])
        socket.advance(10)
        #expect(try socket.texts().isEmpty)
    }

    @Test func aPingIsAnsweredWithAPongOfItsPayload() throws {
        var socket = try Socket()
        _ = try socket.open()
        _ = try socket.frames()
        try socket.send(Wire.frame(0x9, Array("are you there".utf8)))
        let frames = try socket.frames()
        #expect(frames == [Wire.Frame(fin: true, opcode: 0xA, masked: false, payload: Array("are you there".utf8))])
        #expect(socket.transcript?.records.contains { $0.direction == .received && $0.kind == .ping } == true)
        #expect(socket.transcript?.records.contains { $0.direction == .sent && $0.kind == .pong } == true)
    }

    @Test func aClientCloseIsEchoedThenTheConnectionClosesAndTheExchangeEnds() throws {
        var socket = try Socket()
        _ = try socket.open()
        _ = try socket.frames()
        try socket.send(Wire.close(1001, "leaving"))
        let frames = try socket.frames()
        #expect(frames.count == 1 && frames.first?.closeCode == 1001)
        #expect(!socket.isOpen)
        #expect(socket.transcript?.ending?.how == .finished)
        #expect(socket.entry?.duration != nil, "the exchange ended when the socket closed")
        #expect(socket.engine.sockets.open.isEmpty)
        let kinds = socket.transcript?.records.map { "\($0.direction.rawValue) \($0.kind.rawValue)" }
        #expect(kinds == ["sent text", "received close", "sent close"])
    }

    @Test func aScriptedCloseWaitsForTheClientsCloseThenForTheTimeout() throws {
        var socket = try Socket()
        _ = try socket.open()
        _ = try socket.frames()
        try socket.send(Wire.text("bye"))
        let close = try socket.frames()
        #expect(close.first?.closeCode == 1000 && close.first?.closeReason == "bye")
        try socket.send(Wire.text("one more"))
        socket.advance(2)
        #expect(try socket.frames().isEmpty, "nothing is sent after a close")
        #expect(socket.isOpen)
        socket.advance(WebSocketConversation.closeHandshakeTimeout)
        #expect(!socket.isOpen, "the client never answered the close")
        #expect(socket.transcript?.ending?.how == .finished)
    }

    @Test func theServersCloseAnsweredByTheClientClosesAtOnce() throws {
        var socket = try Socket()
        _ = try socket.open()
        try socket.send(Wire.text("bye"))
        _ = try socket.frames()
        try socket.send(Wire.close(1000))
        #expect(!socket.isOpen)
        #expect(try socket.frames().isEmpty, "the server's close was its last frame")
    }

    /// A client's data frame after its own close frame is in the transcript, marked, while
    /// the connection lasts (here a stall holds the server's answer to the close).
    @Test func aDataFrameAfterTheClientsCloseIsRecordedAndNotAnswered() throws {
        var socket = try Socket(fault: .stall(after: 1, duration: 3))
        _ = try socket.open()
        #expect(try socket.texts() == ["welcome"])
        try socket.send(Wire.close(1000))
        try socket.send(Wire.text("one more"))
        #expect(socket.isOpen)
        let late = socket.transcript?.records.last
        #expect(late?.direction == .received && late?.kind == .text && late?.note == "after the client's close")
        #expect(late.map { String(decoding: $0.payload, as: UTF8.self) } == "one more")
        socket.advance(3.1)
        #expect(try socket.frames().map(\.closeCode) == [1000], "the close answered once the stall ends, the late message not")
        #expect(!socket.isOpen)
    }

    @Test func aFragmentedMessageIsAnsweredWhole() throws {
        var socket = try Socket()
        _ = try socket.open()
        _ = try socket.frames()
        try socket.send(Wire.frame(0x1, Array("frag".utf8), fin: false))
        try socket.send(Wire.frame(0x9, [7]))   // a control frame between fragments is allowed
        try socket.send(Wire.frame(0x0, Array("men".utf8), fin: false))
        try socket.send(Wire.frame(0x0, Array("ted".utf8)))
        #expect(try socket.frames().map(\.opcode) == [0xA])
        socket.advance(1)
        #expect(try socket.texts() == ["you said fragmented"])
        #expect(socket.transcript?.records.contains { $0.kind == .text && $0.note == "3 fragments" } == true)
    }

    // MARK: The client breaking the protocol

    static let violations: [(name: String, bytes: [UInt8], code: UInt16)] = [
        ("unmasked", Wire.text("hi", masked: false), 1002),
        ("invalid UTF-8", Wire.frame(0x1, [0x68, 0xC3, 0x28]), 1007),
        ("reserved bit", Wire.frame(0x1, Array("hi".utf8), rsv: 0b100), 1002),
        ("reserved opcode", Wire.frame(0x3, []), 1002),
        ("continuation without a start", Wire.frame(0x0, Array("x".utf8)), 1002),
        ("fragmented ping", Wire.frame(0x9, [1], fin: false), 1002),
        ("oversized frame", Wire.frame(0x2, Array(repeating: 0, count: 300)), 1009),
        ("close code 1005", Wire.close(1005), 1002),
    ]

    @Test(arguments: violations.indices)
    func aClientThatBreaksTheProtocolGetsItsCloseCodeAndIsClosed(_ index: Int) throws {
        let violation = Self.violations[index]
        var socket = try Socket(maxBody: 256)
        _ = try socket.open()
        _ = try socket.frames()
        try socket.send(violation.bytes)
        let frames = try socket.frames()
        #expect(frames.map(\.opcode) == [0x8], "\(violation.name)")
        #expect(frames.first?.closeCode == violation.code, "\(violation.name)")
        #expect(!socket.isOpen, "\(violation.name)")
        #expect(socket.transcript?.records.contains { $0.kind == .malformed && $0.direction == .received } == true, "\(violation.name)")
    }

    @Test func aMessageOverTheLimitAcrossFragmentsGets1009() throws {
        var socket = try Socket(maxBody: 256)
        _ = try socket.open()
        _ = try socket.frames()
        try socket.send(Wire.frame(0x2, Array(repeating: 1, count: 200), fin: false))
        #expect(socket.isOpen)
        try socket.send(Wire.frame(0x0, Array(repeating: 1, count: 200)))
        #expect(try socket.frames().first?.closeCode == 1009)
        #expect(!socket.isOpen)
    }

    // MARK: Stream faults

    @Test func malformedSendsAFrameWithAReservedOpcodeInPlaceOfTheNext() throws {
        var socket = try Socket(WebSocketScript(onConnect: [.text("a"), .text("b")]), fault: .malformed(after: 1))
        _ = try socket.open()
        let frames = try socket.frames()
        try #require(frames.count == 2)
        #expect(frames[0].text == "a")
        #expect(frames[1] == Wire.Frame(fin: true, opcode: 3, masked: false, payload: []))
    }

    @Test func aCloseFaultSendsItsCodeAndACloseWithoutCodeAnEmptyClose() throws {
        var coded = try Socket(WebSocketScript(onConnect: [.text("a"), .text("b")]), fault: .close(after: 1, code: 1011, reason: "overloaded"))
        _ = try coded.open()
        let frames = try coded.frames()
        #expect(frames.map(\.opcode) == [1, 8])
        #expect(frames.last?.closeCode == 1011 && frames.last?.closeReason == "overloaded")
        var bare = try Socket(WebSocketScript(onConnect: [.text("a")]), fault: .closeWithoutCode(after: 1))
        _ = try bare.open()
        #expect(try bare.frames().last == Wire.Frame(fin: true, opcode: 8, masked: false, payload: []))
    }

    /// A close frame's reason is at most 123 bytes: a longer one is cut at the first
    /// character that does not fit, never with a later, shorter one spliced on.
    @Test func aLongCloseReasonIsCutToAPrefix() throws {
        let reason = String(repeating: "a", count: 122) + "é" + "b"
        var socket = try Socket(WebSocketScript(onConnect: [.text("a")]), fault: .close(after: 1, code: 1001, reason: reason))
        _ = try socket.open()
        #expect(try socket.frames().last?.closeReason == String(repeating: "a", count: 122))
    }

    @Test func dropAndEndEarlyCloseTheConnection() throws {
        var clean = try Socket(WebSocketScript(onConnect: [.text("a"), .text("b")]), fault: .drop(after: 1, clean: true))
        _ = try clean.open()
        #expect(try clean.frames().last?.closeCode == 1000)
        var early = try Socket(WebSocketScript(onConnect: [.text("a"), .text("b")]), fault: .endEarly(after: 1))
        _ = try early.open()
        #expect(try early.frames().map(\.opcode) == [1], "no close frame")
        #expect(!early.isOpen)
        #expect(early.transcript?.ending?.how == .closedWithoutEnd)
        var reset = try Socket(WebSocketScript(onConnect: [.text("a"), .text("b")]), fault: .drop(after: 1, clean: false))
        _ = try reset.open()
        #expect(try reset.frames().map(\.opcode) == [1])
        #expect(reset.transcript?.ending?.how == .reset)
    }

    @Test func aStallHoldsFramesAndPongsUntilItEnds() throws {
        var socket = try Socket(WebSocketScript(onConnect: [.text("a"), .text("b")]), fault: .stall(after: 1, duration: 3))
        _ = try socket.open()
        #expect(try socket.texts() == ["a"])
        try socket.send(Wire.frame(0x9, [1]))
        socket.advance(2.9)
        #expect(try socket.frames().isEmpty)
        socket.advance(0.2)
        #expect(try socket.frames().map(\.opcode) == [1, 0xA])
        #expect(socket.transcript?.records.contains { $0.kind == .stall } == true)
    }

    // MARK: Live sockets

    /// A client that stops reading: once its socket is over the write buffer's high-water
    /// mark, what is written while it stays so is counted, and past `maxQueuedBytes` the
    /// client is dropped and the exchange ends without its close. The same frames to a
    /// socket that takes them keep it open.
    @Test(arguments: [false, true]) func aClientThatStopsReadingIsDroppedPastTheBound(reading: Bool) throws {
        var socket = try Socket()
        _ = try socket.open()
        _ = try socket.frames()
        let id = try #require(socket.entry?.id)
        if !reading {
            socket.connection.channel.isWritable = false
            socket.connection.channel.pipeline.fireChannelWritabilityChanged()
        }
        // The bound is 16 × the default high-water mark of 64 KiB, counted on the wire: a frame
        // of 64 KiB + 2 (a 4-byte header and the text) fits 15 times, not 16; 20 pass it.
        let big = String(repeating: "x", count: 64 * 1024 - 2)
        for _ in 0..<20 {
            socket.engine.sockets.send(.text(big), to: id)
            socket.connection.loop.run()
        }
        if reading {
            #expect(socket.isOpen)
            #expect(socket.engine.sockets.socket(id) != nil)
            #expect(try socket.texts().count == 20)
        } else {
            #expect(!socket.isOpen, "the client that stopped reading was dropped")
            #expect(socket.engine.sockets.socket(id) == nil)
            #expect(socket.transcript?.ending?.how == .closedWithoutEnd)
            #expect(socket.transcript?.sentCount == 1 + 15, "the greeting and the frames within the bound, headers counted; none past it")
        }
    }

    @Test func theAdminAPIListsSendsIntoAndClosesASocket() throws {
        var socket = try Socket()
        _ = try socket.open()
        _ = try socket.frames()
        let id = try #require(socket.entry?.id)
        let admin = AdminAPI(engine: socket.engine)
        let listed = admin.respond(to: MockRequest(method: "GET", uri: "/__admin/sockets"))
        #expect(listed.status == 200)
        #expect(String(decoding: listed.body, as: UTF8.self).contains("\"uri\":\"/chat\""))
        let sent = admin.respond(to: MockRequest(method: "POST", uri: "/__admin/sockets/\(id)/send", body: Data(#"{"text": "from a person"}"#.utf8)))
        #expect(sent.status == 202)
        socket.connection.loop.run()
        #expect(try socket.texts() == ["from a person"])
        let binary = admin.respond(to: MockRequest(method: "POST", uri: "/__admin/sockets/\(id)/send", body: Data(#"{"base64": "AAEC"}"#.utf8)))
        #expect(binary.status == 202)
        socket.connection.loop.run()
        #expect(try socket.frames() == [Wire.Frame(fin: true, opcode: 2, masked: false, payload: [0, 1, 2])])
        let closed = admin.respond(to: MockRequest(method: "POST", uri: "/__admin/sockets/\(id)/close", body: Data(#"{"code": 4000, "reason": "by hand"}"#.utf8)))
        #expect(closed.status == 202)
        socket.connection.loop.run()
        let close = try socket.frames()
        #expect(close.first?.closeCode == 4000 && close.first?.closeReason == "by hand")
        // Sent after the close: nothing goes out.
        #expect(admin.respond(to: MockRequest(method: "POST", uri: "/__admin/sockets/\(id)/send", body: Data(#"{"text": "late"}"#.utf8))).status == 202)
        socket.connection.loop.run()
        #expect(try socket.frames().isEmpty)
        try socket.send(Wire.close(4000))
        #expect(!socket.isOpen)
        let gone = admin.respond(to: MockRequest(method: "POST", uri: "/__admin/sockets/\(id)/send", body: Data(#"{"text": "x"}"#.utf8)))
        #expect(gone.status == 404)
        #expect(String(decoding: gone.body, as: UTF8.self).contains("No WebSocket \(id) is open"))
        #expect(admin.respond(to: MockRequest(method: "POST", uri: "/__admin/sockets/nope/close")).status == 404)
    }

    @Test func badAdminMessagesGet400() throws {
        var socket = try Socket()
        _ = try socket.open()
        let id = try #require(socket.entry?.id)
        let admin = AdminAPI(engine: socket.engine)
        for body in [#"{}"#, #"{"text": 1}"#, #"{"base64": "***"}"#, "not json"] {
            let plan = admin.respond(to: MockRequest(method: "POST", uri: "/__admin/sockets/\(id)/send", body: Data(body.utf8)))
            #expect(plan.status == 400, "\(body)")
        }
        let badCode = admin.respond(to: MockRequest(method: "POST", uri: "/__admin/sockets/\(id)/close", body: Data(#"{"code": 1005}"#.utf8)))
        #expect(badCode.status == 400)
    }

    @Test func everyFrameBothWaysIsInTheTranscriptAndItsBoundHolds() throws {
        var socket = try Socket()
        _ = try socket.open()
        for index in 0..<300 { try socket.send(Wire.frame(0x9, Array("\(index)".utf8))) }
        _ = try socket.frames()
        let transcript = try #require(socket.transcript)
        #expect(transcript.records.count == StreamTranscript.defaultCapacity)
        #expect(transcript.sentCount == 301 && transcript.receivedCount == 300, "the greeting, 300 pings and their pongs")
        #expect(transcript.notKept == 601 - StreamTranscript.defaultCapacity)
    }

    struct Unused: LiveSockets.Connection {
        func send(_ message: LiveSockets.Message) {}
        func close(code: UInt16?, reason: String) {}
    }

    @Test func aSocketPastTheListsCapacityIsClosedWith1013() throws {
        var socket = try Socket()
        let sockets = socket.engine.sockets
        for index in 0..<UInt64(sockets.capacity) {
            #expect(sockets.register(LiveSockets.Socket(id: 1_000_000 + index, uri: "/other", openedAt: Date()), connection: Unused()))
        }
        _ = try socket.open()
        let frames = try socket.frames()
        #expect(frames.map(\.opcode) == [8], "no greeting: the socket is closed at once")
        #expect(frames.first?.closeCode == 1013)
        #expect(sockets.open.count == sockets.capacity)
    }

    @Test func aStoppingServerClosesItsSocketsWith1001() throws {
        var socket = try Socket()
        _ = try socket.open()
        _ = try socket.frames()
        socket.connection.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(try socket.frames().first?.closeCode == 1001)
        try socket.send(Wire.close(1001))
        #expect(!socket.isOpen)
    }

    @Test func aClientThatGoesAwayEndsTheExchangeAndLeavesTheList() throws {
        var socket = try Socket()
        _ = try socket.open()
        #expect(socket.engine.sockets.open.count == 1)
        socket.connection.channel.pipeline.fireChannelInactive()
        #expect(socket.engine.sockets.open.isEmpty)
        #expect(socket.transcript?.ending?.how == .clientClosed)
    }
}

import Foundation
import FuzzSupport
import Logging
@_spi(Fuzzing) import MockServer
import NIOCore
import NIOEmbedded
import Scenarios

/// The WebSocket frame path on arbitrary bytes: a connection opens a WebSocket (an
/// upgrade request answered 101), then the input arrives as the client's frames, through
/// NIO's frame decoder, the RFC 6455 rules and the scripted conversation, on the loop's
/// clock. Never a crash; everything written after the 101 is whole, unmasked server frames.
enum FuzzWebSocket {
    static let engine: MockEngine = {
        let script = WebSocketScript(
            onConnect: [.text("welcome")],
            onMessage: [
                WebSocketReply("bye", match: MessagePattern(text: .equalTo("bye")), messages: [], close: WebSocketClose(code: 1000, reason: "bye")),
                WebSocketReply("echo", match: MessagePattern(kind: .text), messages: [.text("echo", delay: 0.5)]),
                WebSocketReply("bytes", match: MessagePattern(kind: .binary), messages: [.binary(Data([1, 2, 3]))]),
            ],
            pushes: [WebSocketPush(every: 1, times: 3, messages: [.text("tick")])])
        let scenario = Scenario(name: "sockets", rules: [Rule("chat", .get("/chat"), always: .webSocket(script))])
        do {
            return try MockEngine(scenarios: [scenario], current: "sockets", source: Nothing())
        } catch {
            FuzzDriver.fail("the scenario does not load: \(error)")
        }
    }()

    struct Nothing: Responder {
        func respond(to request: MockRequest) -> ResponsePlan { .error(404, "nothing here") }
    }

    static let upgrade = Array(("GET /chat HTTP/1.1\r\nHost: 127.0.0.1:1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)

    static func check(_ data: Data) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        do {
            try HTTP1Pipeline.install(on: channel, engine: engine, limits: ConnectionLimits(),
                                      maxRequestBodySize: 4 * 1024, fallbackBaseURL: "http://127.0.0.1:1", logger: Logger(label: "fuzz"))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        } catch {
            FuzzDriver.fail("cannot set up the pipeline: \(error)")
        }
        // The first byte splits the input in two reads; the first read also carries the upgrade.
        let bytes = Array(data)
        let split = bytes.count > 1 ? Int(bytes[0]) % bytes.count : bytes.count
        _ = try? channel.writeInbound(channel.allocator.buffer(bytes: upgrade + bytes[..<split]))
        if split < bytes.count { _ = try? channel.writeInbound(channel.allocator.buffer(bytes: bytes[split...])) }
        loop.advanceTime(by: .seconds(10))   // replies, pushes and the close timeout come due
        var output = [UInt8]()
        while let part = try? channel.readOutbound(as: ByteBuffer.self) { output += part.readableBytesView }
        guard output.starts(with: Array("HTTP/1.1 101 ".utf8)), let end = output.firstRange(of: Array("\r\n\r\n".utf8)) else {
            FuzzDriver.fail("the upgrade was not answered 101: \(String(decoding: output.prefix(60), as: UTF8.self))")
        }
        var index = end.upperBound
        while index < output.count {
            guard output.count - index >= 2 else { FuzzDriver.fail("a frame cut short at the end") }
            let first = output[index], second = output[index + 1]
            guard second & 0x80 == 0 else { FuzzDriver.fail("a server frame is masked") }
            guard first & 0x70 == 0, [0x1, 0x2, 0x8, 0x9, 0xA].contains(first & 0x0F) else {
                FuzzDriver.fail("a server frame has reserved bits or opcode \(first & 0x0F)")
            }
            var length = Int(second & 0x7F), at = index + 2
            if length == 126 {
                guard output.count >= at + 2 else { FuzzDriver.fail("a length cut short") }
                length = Int(output[at]) << 8 | Int(output[at + 1])
                at += 2
            } else if length == 127 {
                guard output.count >= at + 8 else { FuzzDriver.fail("a length cut short") }
                length = output[at..<at + 8].reduce(0) { $0 << 8 | Int($1) }
                at += 8
            }
            guard output.count >= at + length else { FuzzDriver.fail("a frame's payload cut short") }
            index = at + length
        }
        _ = try? channel.finish(acceptAlreadyClosed: true)
    }
}

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzWebSocket.check(start.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

@_cdecl("fuzz_websocket_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.runLibFuzzer(argc, argv) { start, count in fuzzOne(start, count) }
}
#else
@main
enum Replay {
    static func main() {
        FuzzDriver.replay(Array(CommandLine.arguments.dropFirst()), FuzzWebSocket.check)
    }
}
#endif

import Foundation
import Logging
import MockFixtures
import NIOCore
import NIOEmbedded
import NIOHTTP1
import BuiltInMockAPIs
import MockCore
@_spi(Fuzzing) @testable import MockServer

/// Counts the reads the handlers ask of the channel (they hold them back to stop a client).
final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = Any
    var reads = 0
    func read(context: ChannelHandlerContext) {
        reads += 1
        context.read()
    }
}

/// One plain-HTTP connection of a server, as `MockHTTPServer` sets it up, on an
/// `EmbeddedChannel`: bytes in, bytes out, no socket, and time on the loop's own clock,
/// which moves only when the test says (`advance`). A delay, a timeout or a pace is then
/// exact, and no busy machine can stretch it.
struct EmbeddedConnection {
    let loop: EmbeddedEventLoop
    let channel: EmbeddedChannel
    let engine: MockEngine
    let reads = ReadCounter()

    /// An engine with the built-in fixtures and `scenarios` (the first one current).
    static func engine(scenarios: [Scenario] = [], source: (any Responder)? = nil, timeScale: Double = 1) throws -> MockEngine {
        try MockEngine(configuration: EngineConfiguration(
            fixturesDirectory: MockFixtures.directory, extraScenarios: scenarios,
            scenario: scenarios.first?.name ?? Scenario.happyPath.name, timeScale: timeScale), source: source)
    }

    /// A connection of its own, on a loop of its own.
    init(scenarios: [Scenario] = [], limits: ConnectionLimits = ConnectionLimits(), maxBody: Int = 1024 * 1024,
         source: (any Responder)? = nil, proxyToken: String?? = nil, timeScale: Double = 1) throws {
        let engine = try Self.engine(scenarios: scenarios, source: source, timeScale: timeScale)
        loop = EmbeddedEventLoop()
        self.engine = engine
        channel = EmbeddedChannel(loop: loop)
        try connect()
        if let proxyToken {
            try HTTP1Pipeline.installForwardProxy(on: channel, engine: engine, limits: limits, maxRequestBodySize: maxBody,
                                                  fallbackBaseURL: "http://127.0.0.1:1", logger: Logger(label: "test"),
                                                  proxyToken: proxyToken)
        } else {
            try HTTP1Pipeline.install(on: channel, engine: engine, limits: limits, maxRequestBodySize: maxBody,
                                      fallbackBaseURL: "http://127.0.0.1:1", logger: Logger(label: "test"))
        }
    }

    /// Another connection of the same server: `server`'s engine, loop and delayed answers.
    init(_ server: EmbeddedServer, limits: ConnectionLimits = ConnectionLimits(), maxBody: Int = 1024 * 1024) throws {
        loop = server.loop
        engine = server.engine
        channel = EmbeddedChannel(loop: server.loop)
        try connect()
        try HTTP1Pipeline.add(to: channel, pipeline: server.pipeline, proxy: nil, limits: limits, maxRequestBodySize: maxBody,
                              fallbackBaseURL: "http://127.0.0.1:1", logger: Logger(label: "test"), delays: server.delays, scheme: "http")
        _ = server.tracker.track(channel)
    }

    private func connect() throws {
        try channel.pipeline.syncOperations.addHandler(reads)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    }

    func send(_ text: String) throws {
        try channel.writeInbound(ByteBuffer(string: text))
    }

    func send(_ bytes: Data) throws {
        try channel.writeInbound(ByteBuffer(bytes: bytes))
    }

    /// Everything written since the last call.
    func written() throws -> String {
        String(decoding: try writtenBytes(), as: UTF8.self)
    }

    func writtenBytes() throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
        return bytes
    }

    /// Moves the loop's clock (delays, paces and timeouts due by then run, in order).
    func advance(_ seconds: Double) {
        loop.advanceTime(by: .nanoseconds(Int64((seconds * 1e9).rounded())))
    }

    var isOpen: Bool { channel.isActive }

    /// Moves the clock `step` milliseconds at a time, collecting what is written, until the
    /// first answer written since the call is whole (its `Content-Length` of body in), at
    /// most `limit` seconds. Returns the answer and the milliseconds of loop time it took to
    /// be whole (0: whole before the clock moved); nil when it was not whole within the limit.
    func wholeAnswer(within limit: Double, step: Int = 1, headRequest: Bool = false) throws -> (response: RawResponse, milliseconds: Int)? {
        var bytes = Data(try writtenBytes())
        for elapsed in stride(from: 0, through: Int((limit * 1000).rounded()), by: step) {
            if elapsed > 0 {
                advance(Double(step) / 1000)
                bytes.append(contentsOf: try writtenBytes())
            }
            if let response = RawResponse.parseAll(bytes, headRequests: headRequest ? [0] : []).first, response.isWhole {
                return (response, elapsed)
            }
        }
        return nil
    }
}

extension RawResponse {
    /// Its body is as long as its `Content-Length` says (a head-only answer counts as whole).
    var isWhole: Bool { body.count == Int(header("Content-Length") ?? "0") }
}

/// What the connections of one embedded "server" share, as those of `MockHTTPServer` do:
/// the engine and its pipeline, one event loop and its queue of delayed answers, and the
/// tracker a stopping server asks to close them.
struct EmbeddedServer {
    let loop = EmbeddedEventLoop()
    let engine: MockEngine
    let pipeline: Pipeline
    let delays: DelayQueue
    let tracker = ConnectionTracker()

    init(scenarios: [Scenario] = [], timeScale: Double = 1) throws {
        engine = try EmbeddedConnection.engine(scenarios: scenarios, timeScale: timeScale)
        pipeline = Pipeline(engine: engine, control: AdminAPI(engine: engine))
        delays = DelayQueue(eventLoop: loop)
    }

    /// A new connection to it.
    func connect(limits: ConnectionLimits = ConnectionLimits()) throws -> EmbeddedConnection {
        try EmbeddedConnection(self, limits: limits)
    }

    func advance(_ seconds: Double) {
        loop.advanceTime(by: .nanoseconds(Int64((seconds * 1e9).rounded())))
    }
}

/// A GET request's bytes.
func getRequest(_ path: String, _ extra: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\(extra)\r\n"
}

/// The status codes of every answer in `text`, in order.
func statuses(_ text: String) -> [Int] {
    text.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
}

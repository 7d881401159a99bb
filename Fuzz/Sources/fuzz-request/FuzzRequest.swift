import Foundation
import FuzzSupport
import Logging
@_spi(Fuzzing) import MockServer
import MockFixtures
import NIOCore
import NIOEmbedded
import Scenarios

/// The request path on arbitrary bytes: the connection clock, NIO's decoder, the request
/// handler, the admin API and the engine with both APIs and every shipped scenario
/// (a request may pick one with `X-Mock-Scenario`). Never a crash; whatever is written
/// starts as an HTTP response, unless the request chose a fault that writes raw bytes.
enum FuzzRequest {
    static let engine: MockEngine = {
        do {
            return try MockEngine(configuration: EngineConfiguration(
                fixturesDirectory: MockFixtures.directory, journalCapacity: 1_000, scenarioDirectories: [MockFixtures.scenarios]))
        } catch {
            FuzzDriver.fail("the shipped fixtures do not load: \(error)")
        }
    }()

    static func check(_ data: Data) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        do {
            try HTTP1Pipeline.install(on: channel, engine: engine, limits: ConnectionLimits(maxHeadSize: 8 * 1024),
                                      maxRequestBodySize: 64 * 1024, fallbackBaseURL: "http://127.0.0.1:1",
                                      logger: Logger(label: "fuzz"))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        } catch {
            FuzzDriver.fail("cannot set up the pipeline: \(error)")
        }
        // Feed in two reads when long enough, as a network would split it.
        var buffer = channel.allocator.buffer(bytes: data)
        let split = data.count > 8 ? Int(data[data.startIndex]) % data.count : data.count
        if let first = buffer.readSlice(length: split) { _ = try? channel.writeInbound(first) }
        if buffer.readableBytes > 0 { _ = try? channel.writeInbound(buffer) }
        loop.advanceTime(by: .seconds(120))   // delays, pacing and deadlines all come due
        var output = [UInt8]()
        while let part = try? channel.readOutbound(as: ByteBuffer.self) { output += part.readableBytesView }
        let choseFault = data.range(of: Data("x-mock-scenario".utf8)) != nil || data.range(of: Data("X-Mock-Scenario".utf8)) != nil
        if !output.isEmpty && !choseFault && !output.starts(with: Array("HTTP/1.".utf8)) {
            FuzzDriver.fail("the server wrote something that is not an HTTP response: \(output.prefix(40))")
        }
        _ = try? channel.finish(acceptAlreadyClosed: true)
    }
}

#if FUZZING
// libFuzzer's own `main` calls this; SwiftPM's `main` alias (`fuzz_request_main`) hands the
// process to libFuzzer with the same target. Both paths run `FuzzRequest.check`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzRequest.check(start.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

@_cdecl("fuzz_request_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.runLibFuzzer(argc, argv) { start, count in fuzzOne(start, count) }
}
#else
@main
enum Replay {
    static func main() {
        FuzzDriver.replay(Array(CommandLine.arguments.dropFirst()), FuzzRequest.check)
    }
}
#endif

import Foundation
import FuzzSupport
import Logging
@_spi(Fuzzing) import MockServer
import NIOCore
import NIOEmbedded
import Scenarios

/// The event stream writer on arbitrary scenario stubs: the input's first line is what the
/// client sends (its `Last-Event-ID`, and the same bytes as the query parameter `q`, for
/// templates to fill in); the rest is a scenario rule's `response` object (JSON), or, when
/// it is not an object, strings separated by NUL bytes that become the events' `data`,
/// `id`, `event` and `comment` of such an object. The stub is read as a scenario file
/// reads it, and a GET is played through the HTTP/1.1 pipeline on an `EmbeddedChannel`
/// whose clock the target advances, with the client stopping reading for a while.
///
/// Never a crash, and the body is well-formed `text/event-stream`: whole chunks; lines
/// ended by LF with no CR anywhere (a value's line break would start a field of its
/// own); every line a comment or a known field (`data`, `id`, `event`, `retry`) with no
/// NUL in an ID; UTF-8 except for a `malformed` fault's event; a stream that ended with
/// its last chunk ends with the empty line that dispatches its last event. While the
/// channel is not writable no event is written.
enum FuzzEventStream {
    struct Nothing: Responder {
        func respond(to request: MockRequest) -> ResponsePlan { .error(404, "nothing here") }
    }

    /// Virtual seconds played at most, one second a step, and the output read at most.
    static let steps = 600
    static let outputCap = 256 * 1024

    static func check(_ data: Data) {
        let bytes = Array(data)
        let lineEnd = bytes.firstIndex(of: 0x0A) ?? bytes.count
        let client = Array(bytes[..<lineEnd])
        let rest = lineEnd < bytes.count ? Array(bytes[(lineEnd + 1)...]) : []
        guard let response = responseJSON(rest) else { return }
        let file = Data(#"{"name": "fuzz", "rules": [{"name": "sse", "request": {"method": "GET", "path": "/sse"}, "response": "#.utf8)
            + response + Data("}]}".utf8)
        guard let scenario = try? ScenarioFile.parse(file, file: "fuzz.json"),
              let engine = try? MockEngine(scenarios: [scenario], current: "fuzz", source: Nothing()) else { return }
        let malformed = String(decoding: response, as: UTF8.self).contains("malformed")

        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        do {
            try HTTP1Pipeline.install(on: channel, engine: engine, limits: ConnectionLimits(),
                                      maxRequestBodySize: 4 * 1024, fallbackBaseURL: "http://127.0.0.1:1", logger: Logger(label: "fuzz"))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        } catch {
            FuzzDriver.fail("cannot set up the pipeline: \(error)")
        }
        // A header value NIO sends: visible ASCII and spaces, not at its ends.
        let headerValue = String(decoding: client.filter { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        let query = client.map { String(format: "%%%02X", $0) }.joined()
        var request = "GET /sse?q=\(query) HTTP/1.1\r\nHost: 127.0.0.1:1\r\n"
        if !headerValue.isEmpty { request += "Last-Event-ID: \(headerValue)\r\n" }
        request += "\r\n"
        _ = try? channel.writeInbound(channel.allocator.buffer(string: request))

        // The client stops reading for five seconds, at a second the input picks.
        let pause = bytes.isEmpty ? steps : Int(bytes[bytes.count / 2]) % 32
        var output = [UInt8]()
        func read() {
            while let part = try? channel.readOutbound(as: ByteBuffer.self) { output += part.readableBytesView }
        }
        read()
        for step in 0..<steps where channel.isActive && output.count < outputCap {
            if step == pause {
                channel.isWritable = false
                channel.pipeline.fireChannelWritabilityChanged()
            }
            if step == pause + 5 {
                channel.isWritable = true
                channel.pipeline.fireChannelWritabilityChanged()
            }
            let before = output.count
            loop.advanceTime(by: .seconds(1))
            read()
            // The body's end (the last chunk) may go out: it is no event, and a server queues it.
            if step >= pause && step < pause + 5 && output.count != before && !output[before...].elementsEqual(Array("0\r\n\r\n".utf8)) {
                FuzzDriver.fail("\(output.count - before) bytes written while the channel was not writable")
            }
        }
        let ended = !channel.isActive
        // The client goes; nothing is written after, and no timer of the stream fires on a closed channel.
        _ = try? channel.finish(acceptAlreadyClosed: true)
        loop.advanceTime(by: .hours(1))
        verify(output, cutShort: !ended || output.count >= outputCap, malformed: malformed)
    }

    /// The `response` object to try: the input when it is a JSON object, else one built from
    /// its NUL-separated strings (escaped by JSONSerialization, so any text reaches the fields).
    static func responseJSON(_ rest: [UInt8]) -> Data? {
        if rest.first == UInt8(ascii: "{") { return Data(rest) }
        let strings = rest.split(separator: 0, omittingEmptySubsequences: false).prefix(40).map { String(decoding: $0, as: UTF8.self) }
        var events: [[String: Any]] = []
        var index = 0
        while index < strings.count {
            var event: [String: Any] = ["data": strings[index], "delay": 250]
            if index + 1 < strings.count, !strings[index + 1].isEmpty { event["id"] = strings[index + 1] }
            if index + 2 < strings.count, !strings[index + 2].isEmpty { event["event"] = strings[index + 2] }
            if index + 3 < strings.count, !strings[index + 3].isEmpty { event["comment"] = strings[index + 3] }
            events.append(event)
            index += 4
        }
        let templated = rest.count % 2 == 0
        if templated { events.append(["data": "{{request.query.q}}", "id": "q"]) }
        let stream: [String: Any] = ["events": events, "autoIds": rest.count % 3 == 0]
        return try? JSONSerialization.data(withJSONObject: ["templated": templated, "eventStream": stream])
    }

    /// Checks the bytes written: a head, then (for an event stream) a chunked body of
    /// well-formed events. `cutShort`: the run stopped, or the stream ended, mid-body.
    static func verify(_ output: [UInt8], cutShort: Bool, malformed: Bool) {
        guard !output.isEmpty else { return }
        guard output.starts(with: Array("HTTP/1.1 ".utf8)), let end = output.firstRange(of: Array("\r\n\r\n".utf8)) else {
            FuzzDriver.fail("no HTTP/1.1 head: \(String(decoding: output.prefix(60), as: UTF8.self))")
        }
        let head = String(decoding: output[..<end.lowerBound], as: UTF8.self).lowercased()
        guard head.contains("content-type: text/event-stream") else { return }   // a stub whose own headers say otherwise
        guard head.contains("transfer-encoding: chunked") else {
            guard head.hasPrefix("http/1.1 2"), !head.contains("content-length") else { return }
            FuzzDriver.fail("an event stream's head without chunked encoding: \(head)")
        }
        // The chunks.
        var body = [UInt8]()
        var index = end.upperBound
        var finished = false
        while index < output.count {
            guard let lineEnd = output[index...].firstRange(of: [13, 10]) else {
                if cutShort { break }
                FuzzDriver.fail("a chunk size line without its end")
            }
            guard let size = Int(String(decoding: output[index..<lineEnd.lowerBound], as: UTF8.self), radix: 16), size >= 0 else {
                FuzzDriver.fail("not a chunk size: \(String(decoding: output[index..<lineEnd.lowerBound].prefix(20), as: UTF8.self))")
            }
            let start = lineEnd.upperBound
            guard output.count >= start + size + 2 else {
                if cutShort { break }
                FuzzDriver.fail("a chunk cut short")
            }
            guard output[start + size] == 13, output[start + size + 1] == 10 else { FuzzDriver.fail("a chunk not followed by CR LF") }
            if size == 0 {
                finished = true
                index = start + 2
                break
            }
            body += output[start..<(start + size)]
            index = start + size + 2
        }
        if finished && index < output.count {
            FuzzDriver.fail("\(output.count - index) bytes after the last chunk")
        }
        // The events.
        if !malformed, String(bytes: body, encoding: .utf8) == nil {
            FuzzDriver.fail("the body is not UTF-8")
        }
        if body.contains(13) { FuzzDriver.fail("a CR in the body: a line break inside a field") }
        if finished && !body.isEmpty && !body.suffix(2).elementsEqual([10, 10]) {
            FuzzDriver.fail("the stream ended without the empty line that dispatches its last event")
        }
        var lines = body.split(separator: 10, omittingEmptySubsequences: false)
        if !finished { lines = lines.dropLast() }   // a line the run cut
        for line in lines where !line.isEmpty && line.first != UInt8(ascii: ":") {
            let known = ["data: ", "id: ", "event: ", "retry: "].first { line.starts(with: Array($0.utf8)) }
            guard let known else { FuzzDriver.fail("not a field or a comment: \(String(decoding: line.prefix(60), as: UTF8.self))") }
            if known == "id: " && line.contains(0) { FuzzDriver.fail("a NUL in an ID") }
            if known == "retry: " && !line.dropFirst(7).allSatisfy({ (0x30...0x39).contains($0) }) {
                FuzzDriver.fail("a retry that is not digits: \(String(decoding: line, as: UTF8.self))")
            }
        }
    }
}

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzEventStream.check(start.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

@_cdecl("fuzz_sse_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.runLibFuzzer(argc, argv) { start, count in fuzzOne(start, count) }
}
#else
@main
enum Replay {
    static func main() {
        FuzzDriver.replay(Array(CommandLine.arguments.dropFirst()), FuzzEventStream.check)
    }
}
#endif

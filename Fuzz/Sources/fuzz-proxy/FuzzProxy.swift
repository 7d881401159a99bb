import Foundation
import FuzzSupport
import Logging
@_spi(Fuzzing) import MockServer
import MockFixtures
import NIOCore
import NIOEmbedded
import Scenarios

/// The forward proxy's port on arbitrary bytes (`CONNECT` and absolute-form requests, and
/// what a tunnel carries after its head), with pass-through off and no TLS, each input
/// twice: without a proxy token and with one. Findings:
/// - a crash or a trap;
/// - a refused proxy request (journaled as `proxy.refused`) whose answer is not a 400, 403
///   or 407 with a JSON body naming a `reason`, or after which the connection stays open;
/// - a first request to a host the engine does not answer that gets anything but an error
///   with a reason (a tunnel or an answer to an unmapped host);
/// - an absolute-form request to a mapped host answered for another path than its target's;
/// - a channel or event loop still alive once the input's connection is closed and every
///   bounded wait has come due (a task still scheduled, or a cycle);
/// - a `ProxyTarget` that parses and is not the same target when its `authority` is
///   parsed again.
enum FuzzProxy {
    static let engine: MockEngine = {
        do {
            return try MockEngine(configuration: EngineConfiguration(
                fixturesDirectory: MockFixtures.directory, journalCapacity: 1_000, scenarioDirectories: [MockFixtures.scenarios]))
        } catch {
            FuzzDriver.fail("the shipped fixtures do not load: \(error)")
        }
    }()

    static let token = "fuzz-token"

    static func check(_ data: Data) {
        checkTargets(data)
        for token in [nil, token] {
            weak var channel: EmbeddedChannel?
            weak var loop: EmbeddedEventLoop?
            checkConnection(data, token: token, channel: &channel, loop: &loop)
            if channel != nil || loop != nil {
                FuzzDriver.fail("the connection's \(channel != nil ? "channel" : "event loop") outlived it: a task still scheduled or a cycle (token \(token ?? "none"))")
            }
        }
    }

    /// The round trip of `ProxyTarget` on the first line's request target, and on the
    /// whole input read as one.
    static func checkTargets(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        var candidates = [text]
        if let target = RequestLine(data)?.target { candidates.append(target) }
        for candidate in candidates {
            if case .success(let target) = ProxyTarget.connect(candidate) { roundTrip(target, from: candidate) }
            if let absolute = ProxyTarget.absolute(candidate), case .success(let target) = absolute.target {
                roundTrip(target, from: candidate)
                if !absolute.originForm.hasPrefix("/") { FuzzDriver.fail("\(candidate.debugDescription): origin-form \(absolute.originForm.debugDescription)") }
            }
        }
    }

    static func roundTrip(_ target: ProxyTarget, from candidate: String) {
        guard !target.host.isEmpty, (1...65535).contains(target.port), target.host == target.host.lowercased() else {
            FuzzDriver.fail("\(candidate.debugDescription) parsed as \(target)")
        }
        let again = ProxyTarget.connect(target.authority)
        guard again == .success(target) else {
            FuzzDriver.fail("\(candidate.debugDescription) parsed as \(target); its authority \(target.authority.debugDescription) as \(again)")
        }
    }

    static func checkConnection(_ data: Data, token: String?, channel leakedChannel: inout EmbeddedChannel?,
                                loop leakedLoop: inout EmbeddedEventLoop?) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        leakedChannel = channel
        leakedLoop = loop
        let mapped = Set(ForwardProxy.mappedHosts(of: engine))
        engine.journal.clear()
        do {
            try HTTP1Pipeline.installForwardProxy(on: channel, engine: engine, limits: ConnectionLimits(maxHeadSize: 8 * 1024),
                                                  maxRequestBodySize: 64 * 1024, fallbackBaseURL: "http://127.0.0.1:1",
                                                  logger: Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() }),
                                                  proxyToken: token)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        } catch {
            FuzzDriver.fail("cannot set up the pipeline: \(error)")
        }
        // Feed in two reads when long enough, as a network would split it; when the last
        // byte ends in 0xF, the client closes after the first (a truncated ClientHello, half
        // a request line).
        var buffer = channel.allocator.buffer(bytes: data)
        let split = data.count > 8 ? Int(data[data.startIndex]) % data.count : data.count
        let closesEarly = data.count > 8 && data[data.index(before: data.endIndex)] & 0x0F == 0x0F
        if let first = buffer.readSlice(length: split) { _ = try? channel.writeInbound(first) }
        if closesEarly {
            _ = channel.close()
        } else if buffer.readableBytes > 0 {
            _ = try? channel.writeInbound(buffer)
        }
        loop.advanceTime(by: .seconds(120))   // delays, pacing, deadlines and the tunnel's head timeout all come due
        var output = [UInt8]()
        while let part = try? channel.readOutbound(as: ByteBuffer.self) { output += part.readableBytesView }
        let isActive = channel.isActive
        let journal = engine.journal.entries()
        // Closed as `finish()` would, without its cancelling what is still scheduled: once
        // every bounded wait has come due, a task still pending keeps the loop (and the
        // channel) alive, which `check` reports, or traps when the loop is freed.
        _ = try? channel.close().wait()
        loop.run()
        loop.advanceTime(by: .hours(24))

        let lowered = Data(data.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 })
        let choseFault = lowered.range(of: Data("x-mock-scenario".utf8)) != nil
        if !output.isEmpty && !choseFault && !output.starts(with: Array("HTTP/1.".utf8)) {
            FuzzDriver.fail("the proxy wrote something that is not an HTTP response: \(output.prefix(40))")
        }
        let responses = Response.all(in: output)
        let refused = journal.filter { $0.answeredBy == "proxy.refused" }
        if let refusal = refused.first {
            guard refused.count == 1, [400, 403, 407].contains(refusal.status) else {
                FuzzDriver.fail("refusals journaled: \(refused.map(\.status)) (token \(token ?? "none"))")
            }
            guard let answer = responses.last(where: { $0.status == refusal.status }), answer.reason != nil else {
                FuzzDriver.fail("a \(refusal.status) refusal is not in the output with a JSON reason: \(String(decoding: output.prefix(300), as: UTF8.self).debugDescription)")
            }
            if refusal.status == 407 && answer.headers["proxy-authenticate"] == nil {
                FuzzDriver.fail("a 407 without Proxy-Authenticate")
            }
            if isActive { FuzzDriver.fail("the connection stayed open after a \(refusal.status) refusal") }
        }
        if journal.contains(where: { $0.answeredBy == "proxy.tunnel" || $0.answeredBy == "proxy.forward" }) {
            FuzzDriver.fail("pass-through is off, and the proxy went out: \(journal.compactMap(\.answeredBy))")
        }
        // An absolute-form request to a mapped host is answered as the server's own, for the
        // path its target names.
        if token == nil, let line = RequestLine(data), line.method != "CONNECT", let absolute = ProxyTarget.absolute(line.target),
           case .success(let target) = absolute.target, mapped.contains(target.host),
           let entry = journal.first, entry.request.method == line.method, entry.answeredBy != "proxy.refused" {
            let path = String(absolute.originForm.prefix { $0 != "?" })
            if entry.request.path != path {
                FuzzDriver.fail("\(line.target.debugDescription) was answered for the path \(entry.request.path.debugDescription), not \(path.debugDescription)")
            }
        }
        // An independent reading of the first request: a proxy request to a host the engine
        // does not answer gets an error with a reason first, never a tunnel or an answer.
        if let line = RequestLine(data), let host = line.proxyHost, !mapped.contains(host), let first = responses.first {
            let refusals = [400, 403, 407, 408, 413, 431]
            guard refusals.contains(first.status), first.reason != nil else {
                FuzzDriver.fail("\(line.method) \(line.target.debugDescription) (host \(host), not mapped) got \(first.status) (token \(token ?? "none"))")
            }
        }
    }
}

/// The first line of an input when it is a plain request line, read without NIO:
/// `METHOD SP TARGET SP HTTP/1.x CRLF`, the target printable ASCII.
struct RequestLine {
    let method: String
    let target: String

    init?(_ data: Data) {
        let bytes = [UInt8](data.prefix(9 * 1024))
        guard let end = bytes.firstIndex(of: 0x0D), end + 1 < bytes.count, bytes[end + 1] == 0x0A else { return nil }
        let parts = bytes[..<end].split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, ["HTTP/1.1", "HTTP/1.0"].contains(String(decoding: parts[2], as: UTF8.self)),
              !parts[0].isEmpty, parts[0].allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }),
              !parts[1].isEmpty, parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        method = String(decoding: parts[0], as: UTF8.self)
        target = String(decoding: parts[1], as: UTF8.self)
    }

    /// The host a proxy request names, lower case (an IPv6 address without brackets), or
    /// nil when this is not a proxy request.
    var proxyHost: String? {
        var authority: Substring
        if method == "CONNECT" {
            authority = Substring(target)
        } else {
            let lower = target.lowercased()
            guard let schemeEnd = lower.hasPrefix("http://") ? 7 : lower.hasPrefix("https://") ? 8 : nil else { return nil }
            let rest = target.dropFirst(schemeEnd)
            authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return authority[authority.index(after: authority.startIndex)..<close].lowercased()
        }
        if let colon = authority.lastIndex(of: ":") { authority = authority[..<colon] }
        return authority.lowercased()
    }
}

/// One HTTP/1.x response read back from the output: its status, fields (names lower case)
/// and, when framed by `Content-Length`, its body.
struct Response {
    let status: Int
    let headers: [String: String]
    let body: [UInt8]?

    /// The `reason` of a JSON error body (`{"error": true, "reason": "…"}`).
    var reason: String? {
        guard let body, let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              object["error"] as? Bool == true else { return nil }
        return object["reason"] as? String
    }

    /// The responses at the start of `output`, up to the first one that is not framed by
    /// `Content-Length` (the first one's bytes after it are not read).
    static func all(in output: [UInt8]) -> [Response] {
        var responses = [Response]()
        var rest = output[...]
        let separator: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
        while rest.starts(with: Array("HTTP/1.".utf8)), let headEnd = rest.firstRange(of: separator) {
            let lines = String(decoding: rest[..<headEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            let statusLine = lines[0].split(separator: " ", maxSplits: 2)
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else { break }
            var headers = [String: String]()
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            rest = rest[headEnd.upperBound...]
            guard let length = headers["content-length"].flatMap({ Int($0) }), length <= rest.count else {
                responses.append(Response(status: status, headers: headers, body: nil))
                break
            }
            responses.append(Response(status: status, headers: headers, body: Array(rest.prefix(length))))
            rest = rest.dropFirst(length)
        }
        return responses
    }
}

#if FUZZING
// libFuzzer's own `main` calls this; SwiftPM's `main` alias (`fuzz_proxy_main`) hands the
// process to libFuzzer with the same target. Both paths run `FuzzProxy.check`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzProxy.check(start.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

@_cdecl("fuzz_proxy_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.runLibFuzzer(argc, argv) { start, count in fuzzOne(start, count) }
}
#else
@main
enum Replay {
    static func main() {
        FuzzDriver.replay(Array(CommandLine.arguments.dropFirst()), FuzzProxy.check)
    }
}
#endif

import Foundation
import MockCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension WebSocketContract {
    /// A check of a ``WebSocketProvider``.
    public typealias Check = ContractCheck<any WebSocketProvider>

    /// The contract for a WebSocket client: each check plays a scenario WebSocket script on
    /// its own server's sockets and judges from what the client reported and the journal's
    /// transcript of the socket (every frame both ways, and how the connection ended).
    ///
    ///     let report = await WebSocketContract.suite().run { context in
    ///         URLSessionWebSocketProvider(context: context)
    ///     }
    ///     #expect(report.passed, "\(report)")
    ///
    /// The checks (ids `ws.…`): `close`, `ping`, `after-close`, `messages`. WebSockets go
    /// over sockets (`.sockets`, the default, or `.secureSockets` for `wss://`): a
    /// `URLProtocol` cannot answer a WebSocket task, so in process each check says so.
    /// - Parameters:
    ///   - configuration: Transport, timeout and margin (the longest wait for a step).
    ///   - path: The socket's path on the check's server; the provider is asked to connect there.
    public static func suite(_ configuration: SuiteConfiguration = SuiteConfiguration(), path: String = "/socket") -> ContractSuite<any WebSocketProvider> {
        ContractSuite(name: "WebSockets", checks: checks(configuration, path: path), configuration: configuration)
    }

    /// The suite's checks.
    public static func checks(_ configuration: SuiteConfiguration, path: String = "/socket") -> [Check] {
        let limit = configuration.timeout + configuration.timeoutMargin
        let checks = [
            WebSocketChecks.answersServerClose("ws.close", path: path, limit: limit),
            WebSocketChecks.survivesPing("ws.ping", path: path, limit: limit),
            WebSocketChecks.sendsNothingAfterClose("ws.after-close", path: path, limit: limit),
            WebSocketChecks.messagesIntact("ws.messages", path: path, limit: limit),
        ]
        guard configuration.transport != .inProcess else {
            return checks.map { check in ContractCheck(check.id, check.level, check.summary) { _ in throw WebSocketChecks.InProcessTransport() } }
        }
        return checks
    }
}

/// The WebSocket checks' parts: each check's scripts, opening the socket, reading the
/// journal's transcript of it. Every wait is bounded by the suite's timeout plus its margin.
public enum WebSocketChecks {
    /// Why the WebSocket checks do not run in process.
    public struct InProcessTransport: Error, CustomStringConvertible {
        /// What to do instead.
        public var description: String {
            "WebSockets are not in process (a URLProtocol cannot answer a WebSocket task): run WebSocketContract with "
                + "`transport: .sockets` (the default) or `.secureSockets`"
        }
    }

    /// A scenario named `name` whose one rule answers `GET path` with `script` (and `fault`).
    static func scenario(_ name: String, path: String, _ script: WebSocketScript, fault: StreamFault? = nil) -> Scenario {
        var outcome = Outcome.webSocket(script)
        if let fault { outcome = outcome.streamFaulted(fault) }
        return Scenario(name: name, rules: [Rule(name, .get(path), always: outcome)])
    }

    /// `ws://` (or `wss://`) `path` on the run's server.
    static func url<P: Sendable>(_ run: CheckRun<P>, _ path: String) -> URL {
        var components = URLComponents(url: run.url(path), resolvingAgainstBaseURL: false)!
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        return components.url!
    }

    /// Opens the socket with the provider, at most `limit` seconds.
    static func open(_ run: CheckRun<any WebSocketProvider>, _ path: String, within limit: TimeInterval) async throws -> any WebSocketConnection {
        let provider = run.provider
        let request = URLRequest(url: url(run, path), timeoutInterval: run.timeout)
        switch await run.outcome(within: limit, { try await provider.connect(request) }) {
        case .returned(let connection, _):
            return connection
        case let other:
            throw run.expectations.violation("the client to open a WebSocket to \(request.url!.absoluteString)", actual: "connect \(said(other))")
        }
    }

    /// The next message, waiting at most `limit` seconds.
    static func receive<P: Sendable>(_ run: CheckRun<P>, _ connection: any WebSocketConnection, within limit: TimeInterval)
        async -> CallOutcome<WebSocketContract.Message> {
        await run.outcome(within: limit) { try await connection.receive() }
    }

    /// The transcript of the last socket `GET path` opened, once `ready` holds for it
    /// (waiting at most `limit` seconds); the latest one seen when it never does.
    static func transcript<P: Sendable>(_ run: CheckRun<P>, _ path: String, within limit: TimeInterval,
                                        until ready: @Sendable (StreamTranscript) -> Bool) async -> StreamTranscript? {
        let deadline = Date().addingTimeInterval(limit)
        while true {
            let latest = run.expectations.requests(matching: .get(path)).last(where: { $0.transcript != nil })?.transcript
            if let latest, ready(latest) { return latest }
            if Date() >= deadline { return latest }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
    }

    /// The code a transcript's close record notes (`4000 going away`): nil for `no code`.
    static func code(_ record: StreamTranscript.Record) -> UInt16? {
        record.note.flatMap { UInt16($0.prefix { $0 != " " }) }
    }

    /// What a transcript shows, one record a line (`received text "hi"`), for a failure.
    static func listed(_ transcript: StreamTranscript?) -> String {
        guard let transcript else { return "the server saw no WebSocket" }
        var lines = transcript.records.map { record -> String in
            var line = "\(record.direction.rawValue) \(record.kind.rawValue)"
            if !record.payload.isEmpty, record.kind != .binary { line += " \"\(String(decoding: record.payload, as: UTF8.self))\"" }
            if !record.payload.isEmpty, record.kind == .binary { line += " \(record.size) bytes" }
            if let note = record.note { line += " (\(note))" }
            return line
        }
        lines.append(transcript.ending.map { "ended \($0.how.rawValue)" } ?? "still open")
        return lines.joined(separator: "; ")
    }

    /// `returned text "hi" 0.01 s after it began`.
    static func said<T: Sendable>(_ outcome: CallOutcome<T>) -> String {
        switch outcome {
        case .returned(let value, let seconds): return "returned \(value) \(CallOutcome<Int>.format(seconds)) s after it began"
        case .threw(let error, let seconds): return "threw \(error) \(CallOutcome<Int>.format(seconds)) s after it began"
        case .stillRunning(let seconds): return "was still running \(CallOutcome<Int>.format(seconds)) s after it began"
        }
    }

    /// Problems with a receive that should have returned `expected`.
    static func expect(_ outcome: CallOutcome<WebSocketContract.Message>, _ expected: WebSocketContract.Message, _ what: String) -> [String] {
        if case .returned(let message, _) = outcome, message == expected { return [] }
        return ["\(what): the receive \(said(outcome)), want \(expected)"]
    }
}

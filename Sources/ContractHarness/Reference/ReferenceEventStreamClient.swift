import Foundation
import MockCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A server-sent events client that keeps every streaming contract check: a URLSession
/// data delegate that feeds each chunk to ``ServerSentEventParser`` (the WHATWG rules) and
/// hands each event over as it is dispatched. It is what the checks are tested against,
/// and a model for an adapter of your own.
///
/// - A stream is one only with status 200 and `Content-Type: text/event-stream`; any
///   other answer fails it, with no reconnect (as `EventSource` does: a 204 means "stop").
/// - The response's end is ``EventStreamEnding/finished``; a lost connection, a body cut
///   short or a timeout (the session's, ``ProviderContext/timeout``, the longest wait for
///   a byte) is ``EventStreamEnding/failed(_:)``, after the events that came before it.
/// - Cancelling the calling task cancels the request: no event is handed over after the
///   cancel, and the call returns ``EventStreamEnding/cancelled``.
/// - With `resumes`, a stream that broke is opened again after the stream's reconnection
///   time (`retry:`, else `reconnectionTime`), with `Last-Event-ID` when an event set an
///   ID, at most `maximumReconnects` times in a row (an event received starts the count
///   again).
public struct ReferenceEventStreamClient: EventStreamProvider {
    /// Where the check's server is, and the session configuration and timeout to use.
    public let context: ProviderContext
    /// Whether a stream that broke is opened again with `Last-Event-ID`.
    public let resumesWithLastEventID: Bool
    /// Reconnects in a row, without an event between them, before the client gives up.
    public let maximumReconnects: Int
    /// Seconds to wait before a reconnect when the stream gave no `retry:`.
    public let reconnectionTime: TimeInterval
    /// The most a reconnect waits, whatever the stream's `retry:` asks.
    public static let longestReconnectionTime: TimeInterval = 30

    /// A client reaching the check's server through `context`; it resumes unless
    /// `resumes` is false.
    public init(context: ProviderContext, resumes: Bool = true, maximumReconnects: Int = 3, reconnectionTime: TimeInterval = 1) {
        self.context = context
        self.resumesWithLastEventID = resumes
        self.maximumReconnects = max(0, maximumReconnects)
        self.reconnectionTime = max(0, reconnectionTime)
    }

    /// Reads the stream `request` opens (with `Accept: text/event-stream`), as
    /// ``EventStreamProvider/stream(_:onEvent:)`` says, resuming where it may.
    public func stream(_ request: URLRequest, onEvent: @escaping @Sendable (ReceivedEvent) -> Void) async -> EventStreamEnding {
        var parser = ServerSentEventParser()
        var reconnects = 0
        while true {
            var attempt = request
            attempt.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            attempt.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
            if !parser.lastEventID.isEmpty { attempt.setValue(parser.lastEventID, forHTTPHeaderField: "Last-Event-ID") }
            parser.restart()
            let connection = EventStreamConnection(parser: parser, onEvent: onEvent, trust: context.sessionDelegate)
            let result = await connection.run(attempt, configuration: context.sessionConfiguration)
            parser = result.parser
            switch result.ending {
            case .finished, .cancelled:
                return result.ending
            case .failed(let why):
                guard resumesWithLastEventID, result.mayReconnect, reconnects < maximumReconnects, !Task.isCancelled else { return .failed(why) }
                reconnects = result.received > 0 ? 1 : reconnects + 1
                let wait = parser.retry.map { TimeInterval($0) / 1000 } ?? reconnectionTime
                do {
                    try await Task.sleep(nanoseconds: UInt64(min(wait, Self.longestReconnectionTime) * 1_000_000_000))
                } catch {
                    return .cancelled
                }
            }
        }
    }
}

/// One connection of a ``ReferenceEventStreamClient``'s stream: its session's delegate.
/// URLSession calls it on its serial delegate queue; `state` holds what the cancel
/// handler shares with it.
final class EventStreamConnection: NSObject, URLSessionDataDelegate, Sendable {
    /// How the connection ended, and what the stream goes on with.
    struct Attempt: Sendable {
        let ending: EventStreamEnding
        let parser: ServerSentEventParser
        /// Events handed over on this connection.
        let received: Int
        /// False for an answer that is no event stream (a reconnect would get it again).
        let mayReconnect: Bool
    }

    private struct State {
        var parser: ServerSentEventParser
        var task: URLSessionDataTask?
        var cancelled = false
        var headChecked = false
        var refusal: String?
        var received = 0
        var continuation: CheckedContinuation<Attempt, Never>?
    }

    private let state: Locked<State>
    private let onEvent: @Sendable (ReceivedEvent) -> Void
    private let trust: LocalCATrust?

    init(parser: ServerSentEventParser, onEvent: @escaping @Sendable (ReceivedEvent) -> Void, trust: LocalCATrust?) {
        state = Locked(State(parser: parser))
        self.onEvent = onEvent
        self.trust = trust
    }

    /// Loads `request` until the stream ends, or the calling task is cancelled.
    func run(_ request: URLRequest, configuration: URLSessionConfiguration) async -> Attempt {
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Attempt, Never>) in
                let task = session.dataTask(with: request)
                let start = state.withLock { state -> Bool in
                    state.continuation = continuation
                    state.task = task
                    return !state.cancelled
                }
                if start {
                    task.resume()
                } else {
                    // Cancelled before it started: the task ends too, so the session lets go.
                    task.cancel()
                    finish(.cancelled)
                }
            }
        } onCancel: {
            let task = state.withLock { state -> URLSessionDataTask? in
                state.cancelled = true
                return state.task
            }
            task?.cancel()
        }
    }

    /// Why `response` is no event stream, nil when it is one.
    static func refusal(of response: URLResponse?) -> String? {
        guard let http = response as? HTTPURLResponse else { return "no HTTP response" }
        guard http.statusCode == 200 else { return "status \(http.statusCode), not 200: no event stream" }
        let type = http.value(forHTTPHeaderField: "Content-Type") ?? ""
        guard type.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "text/event-stream" else {
            return "Content-Type \(type.isEmpty ? "missing" : type), not text/event-stream"
        }
        return nil
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // The head is judged with the first bytes (a body-less answer's, at the end).
        let refusal = Self.refusal(of: dataTask.response)
        let checked = state.withLock { state -> (stop: Bool, events: [ReceivedEvent]) in
            guard !state.cancelled, state.refusal == nil else { return (true, []) }
            if !state.headChecked {
                state.headChecked = true
                if let refusal {
                    state.refusal = refusal
                    return (true, [])
                }
            }
            do {
                let events = try state.parser.parse(data)
                state.received += events.count
                return (false, events)
            } catch {
                state.refusal = "\(error)"
                return (true, [])
            }
        }
        if checked.stop {
            dataTask.cancel()
            return
        }
        for event in checked.events {
            // A cancel between two events of one chunk stops the rest.
            guard !state.withLock({ $0.cancelled }) else { return }
            onEvent(event)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let headRefusal = error == nil ? Self.refusal(of: task.response) : nil
        let (cancelled, refused) = state.withLock { ($0.cancelled, $0.refusal ?? headRefusal) }
        if cancelled {
            finish(.cancelled)
        } else if let refused {
            finish(.failed(refused), mayReconnect: false)
        } else if let error {
            finish(.failed(ContractViolation.describe(error)))
        } else {
            finish(.finished)
        }
    }

    #if canImport(Security)
    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        guard let trust else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        trust.urlSession(session, didReceive: challenge, completionHandler: completionHandler)
    }
    #endif

    private func finish(_ ending: EventStreamEnding, mayReconnect: Bool = true) {
        let (continuation, attempt) = state.withLock { state -> (CheckedContinuation<Attempt, Never>?, Attempt) in
            defer { state.continuation = nil }
            return (state.continuation, Attempt(ending: ending, parser: state.parser, received: state.received, mayReconnect: mayReconnect))
        }
        continuation?.resume(returning: attempt)
    }
}

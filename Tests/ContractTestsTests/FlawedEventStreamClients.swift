import ContractTests
import Foundation
import MockCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One defect per streaming check, and the checks it must fail (exactly).
enum StreamDefect: String, CaseIterable, Sendable {
    case dropsLastEvent, joinsSplitEventsWrongly, treatsDropAsSuccess, ignoresMissingTerminator
    case neverTimesOut, keepsReadingAfterCancel, resumesWithoutLastEventID

    /// The failing checks, and a phrase the first one's message must contain.
    var expectation: (failing: Set<String>, phrase: String) {
        switch self {
        case .dropsLastEvent: return (["stream.events.order"], "the last event was never handed over")
        case .joinsSplitEventsWrongly: return (["stream.events.split"], "cut inside events and lines")
        // URLSession reports a reset and a close without the last chunk alike
        // (networkConnectionLost): a client that swallows one swallows both, and a client
        // that takes the reset for the end never resumes either.
        case .treatsDropAsSuccess, .ignoresMissingTerminator:
            return (["stream.ending.drop", "stream.ending.no-terminator", "stream.resume"], "a short success")
        case .neverTimesOut: return (["stream.stall"], "no timeout?")
        case .keepsReadingAfterCancel: return (["stream.cancellation"], "the client read on after the cancel")
        case .resumesWithoutLastEventID: return (["stream.resume"], "the reconnect carried no Last-Event-ID")
        }
    }

    /// Checks that fail too over `transport` on some platforms only: over sockets a close
    /// without the last chunk is `networkConnectionLost` where URLSession is Apple's, and
    /// `URLError.unknown` where it is libcurl's (Linux), which `treatsDropAsSuccess` does not swallow.
    func platformDependent(over transport: ContractTransport) -> Set<String> {
        self == .treatsDropAsSuccess && transport != .inProcess ? ["stream.ending.no-terminator"] : []
    }
}

/// An SSE client written apart from the reference one, with one defect: it reads with a
/// URLSession data delegate, resumes as `EventSource` does, and breaks where `defect` says.
struct FlawedEventStreamClient: EventStreamProvider {
    let defect: StreamDefect
    let context: ProviderContext

    var resumesWithLastEventID: Bool { true }

    func stream(_ request: URLRequest, onEvent: @escaping @Sendable (ReceivedEvent) -> Void) async -> EventStreamEnding {
        var lastEventID = ""
        var retry: Int?
        for _ in 0..<3 {
            var attempt = request
            if defect == .neverTimesOut { attempt.timeoutInterval = 120 }
            if !lastEventID.isEmpty, defect != .resumesWithoutLastEventID { attempt.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID") }
            let reader = FlawedReader(defect: defect, lastEventID: lastEventID, onEvent: onEvent)
            let configuration = context.sessionConfiguration
            if defect == .neverTimesOut { configuration.timeoutIntervalForRequest = 120 }
            let ending = await reader.run(attempt, configuration: configuration)
            lastEventID = reader.lastEventID
            retry = reader.retry ?? retry
            guard case .failed(let why) = ending, !why.hasPrefix("status") else { return ending }
            try? await Task.sleep(nanoseconds: UInt64(retry ?? 1000) * 1_000_000)
        }
        return .failed("gave up after 3 connections")
    }
}

/// One connection of a `FlawedEventStreamClient`.
final class FlawedReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private let defect: StreamDefect
    private let onEvent: @Sendable (ReceivedEvent) -> Void
    private var parser = ServerSentEventParser()
    /// `dropsLastEvent`'s buffer: the bytes since the last dispatched event.
    private var pending = Data()
    private var lazyID = ""
    private var received = 0
    private var cancelled = false
    private var task: URLSessionDataTask?
    private var continuation: CheckedContinuation<EventStreamEnding, Never>?

    init(defect: StreamDefect, lastEventID: String, onEvent: @escaping @Sendable (ReceivedEvent) -> Void) {
        self.defect = defect
        self.onEvent = onEvent
        lazyID = lastEventID
        super.init()
        if !lastEventID.isEmpty { _ = try? parser.parse(Data("id: \(lastEventID)\n\n".utf8)) }
    }

    var lastEventID: String { lock.withLock { defect == .dropsLastEvent ? lazyID : parser.lastEventID } }
    var retry: Int? { lock.withLock { parser.retry } }

    func run(_ request: URLRequest, configuration: URLSessionConfiguration) async -> EventStreamEnding {
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let body = {
            await withCheckedContinuation { (continuation: CheckedContinuation<EventStreamEnding, Never>) in
                let task = session.dataTask(with: request)
                self.lock.withLock {
                    self.continuation = continuation
                    self.task = task
                }
                task.resume()
            }
        }
        // The defect: the task's cancel never reaches the request.
        if defect == .keepsReadingAfterCancel { return await body() }
        return await withTaskCancellationHandler(operation: body) {
            let task = self.lock.withLock { () -> URLSessionDataTask? in
                self.cancelled = true
                return self.task
            }
            task?.cancel()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let events = lock.withLock { () -> [ReceivedEvent] in
            guard !cancelled else { return [] }
            switch defect {
            case .dropsLastEvent:
                return lazyEvents(data)
            case .joinsSplitEventsWrongly:
                // Each chunk read as if it held whole events: what a chunk leaves over is lost.
                defer { parser.restart() }
                return (try? parser.parse(data)) ?? []
            default:
                return (try? parser.parse(data)) ?? []
            }
        }
        lock.withLock { received += events.count }
        for event in events { onEvent(event) }
    }

    /// Events split at empty lines, the last piece always kept for later, as if it could
    /// still grow: the stream's last event waits for bytes that never come.
    private func lazyEvents(_ data: Data) -> [ReceivedEvent] {
        pending.append(data)
        let bytes = [UInt8](pending)
        var pieces: [Range<Int>] = []
        var start = 0
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0x0A, bytes[index + 1] == 0x0A {
                pieces.append(start..<index)
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        pieces.append(start..<bytes.count)
        pieces.removeAll { $0.isEmpty }
        // The last piece stays, with what follows it, whether or not its empty line came.
        guard let last = pieces.popLast() else { return [] }
        pending = Data(bytes[last.lowerBound...])
        var events: [ReceivedEvent] = []
        for range in pieces {
            let piece = String(decoding: bytes[range], as: UTF8.self)
            var data: [String] = []
            var type = "message"
            for line in piece.split(separator: "\n", omittingEmptySubsequences: false) where !line.hasPrefix(":") {
                let field = line.prefix { $0 != ":" }
                var value = line.dropFirst(field.count + 1)
                if value.first == " " { value = value.dropFirst() }
                switch field {
                case "data": data.append(String(value))
                case "event": type = String(value)
                case "id": lazyID = String(value)
                default: break
                }
            }
            if !data.isEmpty { events.append(ReceivedEvent(type: type, data: data.joined(separator: "\n"), lastEventID: lazyID)) }
        }
        return events
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, wasCancelled, received) = lock.withLock { () -> (CheckedContinuation<EventStreamEnding, Never>?, Bool, Int) in
            defer { self.continuation = nil }
            return (self.continuation, cancelled, self.received)
        }
        let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
        let ending: EventStreamEnding
        if wasCancelled {
            ending = .cancelled
        } else if status != 200 {
            ending = .failed("status \(status)")
        } else if let error {
            let code = (error as? URLError)?.code
            switch defect {
            case .treatsDropAsSuccess where code == .networkConnectionLost:
                // The defect: a lost connection taken for the server's end.
                ending = .finished
            case .ignoresMissingTerminator where received > 0 && code != .timedOut:
                // The defect: once events came, the body's end is the stream's, however it ended.
                ending = .finished
            default:
                ending = .failed(ContractViolation.describe(error))
            }
        } else {
            ending = .finished
        }
        continuation?.resume(returning: ending)
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Opens a `text/event-stream` request and hands over its events as they arrive: a
/// URLSession data delegate that parses each chunk the moment it comes (which works the
/// same on every platform, where `URLSession.bytes(for:)` is not everywhere).
///
/// - The answer must be 200 with `Content-Type: text/event-stream`; any other fails the
///   stream with ``ChatError/status(_:detail:)`` or ``ChatError/notAnEventStream(_:)``.
/// - The response's end finishes the stream. A lost connection, a body cut short, or no
///   byte for the session's `timeoutIntervalForRequest` fails it with
///   ``ChatError/interrupted(_:)``, after the events that came before.
/// - Ending the iteration, or cancelling the task that iterates, cancels the request at once.
enum EventSource {
    static func events(for request: URLRequest, configuration: URLSessionConfiguration) -> AsyncThrowingStream<StreamedEvent, any Error> {
        var request = request
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        let (stream, continuation) = AsyncThrowingStream<StreamedEvent, any Error>.makeStream()
        let connection = Connection(continuation: continuation)
        let session = URLSession(configuration: configuration, delegate: connection, delegateQueue: nil)
        let task = session.dataTask(with: request)
        continuation.onTermination = { _ in
            // The reader went away (or the stream ended): nothing more is loaded.
            task.cancel()
            session.finishTasksAndInvalidate()
        }
        task.resume()
        return stream
    }

    /// The session's delegate for one stream. URLSession calls it on its own serial queue,
    /// one call at a time, so its state needs no lock beyond that.
    final class Connection: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        private let continuation: AsyncThrowingStream<StreamedEvent, any Error>.Continuation
        private var parser = EventStreamParser()
        private var refused: ChatError?
        private var errorBody = Data()

        init(continuation: AsyncThrowingStream<StreamedEvent, any Error>.Continuation) {
            self.continuation = continuation
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
            refused = Self.refusal(of: response)
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            if refused == nil, dataTask.response != nil { refused = Self.refusal(of: dataTask.response) }
            guard refused == nil else {
                // An error's body says why; keep a little of it.
                if errorBody.count < 4_096 { errorBody.append(data.prefix(4_096 - errorBody.count)) }
                return
            }
            do {
                for event in try parser.parse(data) { continuation.yield(event) }
            } catch {
                continuation.finish(throwing: ChatError.interrupted("an event longer than \(EventStreamParser.maximumEventBytes) bytes"))
                dataTask.cancel()
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            if let error {
                continuation.finish(throwing: (error as? URLError)?.code == .cancelled ? CancellationError() : ChatError.interrupted("\(error)"))
            } else if let refused = refused ?? Self.refusal(of: task.response) {
                continuation.finish(throwing: refused.with(detail: String(decoding: errorBody, as: UTF8.self)))
            } else {
                continuation.finish()
            }
        }

        /// Why `response` is no event stream; nil when it is one.
        static func refusal(of response: URLResponse?) -> ChatError? {
            guard let http = response as? HTTPURLResponse else { return .interrupted("no HTTP response") }
            guard http.statusCode == 200 else { return .status(http.statusCode, detail: "") }
            let type = http.value(forHTTPHeaderField: "Content-Type") ?? ""
            guard type.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "text/event-stream" else {
                return .notAnEventStream(type)
            }
            return nil
        }
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client of a server-sent event stream (`text/event-stream`), as the streaming checks
/// (``StreamingContract``) drive it. Adopt it with a thin adapter over your own SSE
/// client: open the stream, hand each event over as you parse it, say how it ended.
///
///     struct ChatStreamAdapter: EventStreamProvider {
///         let client: ChatClient
///         func stream(_ request: URLRequest, onEvent: @escaping @Sendable (ReceivedEvent) -> Void) async -> EventStreamEnding {
///             do {
///                 for try await event in client.events(for: request) {
///                     onEvent(ReceivedEvent(type: event.type, data: event.data, lastEventID: event.id ?? ""))
///                 }
///                 return .finished
///             } catch is CancellationError {
///                 return .cancelled
///             } catch {
///                 return .failed("\(error)")
///             }
///         }
///     }
public protocol EventStreamProvider: Sendable {
    /// Opens the stream `request` asks for and hands `onEvent` each event as the client
    /// dispatches it, in order, one call at a time; returns once the stream is over:
    /// - ``EventStreamEnding/finished`` when the server ended it properly (the response's
    ///   end: HTTP/1.1's last chunk, HTTP/2's END_STREAM);
    /// - ``EventStreamEnding/failed(_:)`` when it broke: a lost connection, a body cut
    ///   short, no byte within the client's timeout, an answer that is no event stream;
    /// - ``EventStreamEnding/cancelled`` when the calling task was cancelled: the client
    ///   then stops reading and closes the request at once.
    ///
    /// After it returns, `onEvent` is not called again. Use the request timeout the
    /// harness hands the adapter (``ProviderContext/timeout``) as the longest wait for a
    /// byte. A client that resumes (``resumesWithLastEventID``) reconnects within this
    /// call and keeps handing events over.
    func stream(_ request: URLRequest, onEvent: @escaping @Sendable (ReceivedEvent) -> Void) async -> EventStreamEnding

    /// Whether the client resumes a stream that broke, as `EventSource` does: it
    /// reconnects after the stream's reconnection time (`retry:`) with `Last-Event-ID` set
    /// to the last event ID it saw, and goes on with the events the server sends from
    /// there. False (the default) for a client that reports the break instead.
    var resumesWithLastEventID: Bool { get }
}

extension EventStreamProvider {
    /// False: a client reports a broken stream unless it says it resumes.
    public var resumesWithLastEventID: Bool { false }
}

/// How an event stream ended, as the client reports it.
public enum EventStreamEnding: Sendable, Hashable, CustomStringConvertible {
    /// The server ended the stream properly.
    case finished
    /// The stream broke; the text says how, as the client saw it (`URLError -1005 (networkConnectionLost)`).
    case failed(String)
    /// The caller cancelled the stream.
    case cancelled

    /// `finished`, `failed: why`, `cancelled`.
    public var description: String {
        switch self {
        case .finished: return "finished"
        case .failed(let why): return "failed: \(why)"
        case .cancelled: return "cancelled"
        }
    }
}

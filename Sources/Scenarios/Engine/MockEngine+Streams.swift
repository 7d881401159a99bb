import Foundation

/// How a transport playing a stream (an event stream, a WebSocket) tells the journal what
/// went over it: each record lands in the transcript of the entry that opened the stream
/// (``ServeEvent/transcript``), timed on the engine's clock from the request's arrival.
extension MockEngine {
    /// Records one event, frame or fault of the stream journaled as `entry`.
    /// - Parameters:
    ///   - direction: which way it went, seen from the server.
    ///   - kind: what it is.
    ///   - payload: its bytes (the transcript keeps the first ``StreamTranscript/payloadLimit``).
    ///   - note: a close's code and reason, a stall's length.
    ///   - entry: the journal entry of the request that opened the stream (``ResponsePlan/journalID``).
    ///   - receivedAt: the arrival of the request that opened the stream (its `MockRequest.receivedAt`).
    public func recordStream(_ direction: StreamTranscript.Direction, _ kind: StreamTranscript.Kind, payload: Data = Data(),
                             note: String? = nil, entry: UInt64?, receivedAt: Date) {
        guard let entry else { return }
        let offset = max(0, timeSource.now().timeIntervalSince(receivedAt))
        journal.append(StreamTranscript.Record(direction, kind, offset: offset, payload: payload, note: note), to: entry)
    }

    /// Notes how the stream journaled as `entry` ended, and completes the entry (its
    /// duration runs to now), as ``completed(_:receivedAt:)`` does for any answer.
    public func endStream(_ how: StreamTranscript.Ending, entry: UInt64?, receivedAt: Date) {
        guard let entry else { return }
        let offset = max(0, timeSource.now().timeIntervalSince(receivedAt))
        journal.endStream(entry, how, offset: offset)
        completed(entry, receivedAt: receivedAt)
    }
}

import Foundation

/// How a transport playing a stream (an event stream, a WebSocket) tells the journal what
/// went over it: each record lands in the transcript of the entry that opened the stream
/// (``ServeEvent/transcript``), timed on the engine's clock from the request's arrival.
extension Exchange {
    /// Records one event, frame or fault of the stream this exchange opened.
    /// - Parameters:
    ///   - direction: which way it went, seen from the server.
    ///   - kind: what it is.
    ///   - payload: its bytes (the transcript keeps the first ``StreamTranscript/payloadLimit``).
    ///   - note: a close's code and reason, a stall's length.
    public func record(_ direction: StreamTranscript.Direction, _ kind: StreamTranscript.Kind, payload: Data = Data(), note: String? = nil) {
        record(direction, kind, size: payload.count, payload: { payload }, note: note)
    }

    /// Records one frame or event of `size` payload bytes whose payload is made only if
    /// the transcript keeps it (past ``StreamTranscript/capacity`` records it is counted):
    /// a transport that holds the bytes in another form passes how to make them. `payload`
    /// needs to give only the first ``StreamTranscript/payloadLimit`` bytes; it runs while
    /// the journal is locked, so it must be quick and must not touch the journal.
    public func record(_ direction: StreamTranscript.Direction, _ kind: StreamTranscript.Kind, size: Int, payload: () -> Data, note: String? = nil) {
        let offset = max(0, engine.timeSource.now().timeIntervalSince(receivedAt))
        engine.journal.append(direction, kind, offset: offset, size: size, payload: payload, note: note, to: id)
    }

    /// The stream ended `how`: its transcript notes it, and the exchange is finished (its
    /// duration runs to now), as ``finished()`` finishes any answer. Call once, instead of
    /// ``finished()``.
    public func endStream(_ how: StreamTranscript.Ending) {
        let offset = max(0, engine.timeSource.now().timeIntervalSince(receivedAt))
        engine.journal.endStream(id, how, offset: offset)
        finished()
    }
}

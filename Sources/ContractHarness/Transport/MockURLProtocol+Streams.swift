import Foundation
import MockCore
import MockServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An event stream in process: the head, then each step of an `EventStreamPlayer` when it
/// is due, so a client sees the events one at a time as over a socket: a data delegate's
/// `didReceive` per event, `URLSession.bytes(for:)` and its `lines` as they come. Times
/// are the plan's (scaled by the engine's time scale), measured from the head on the
/// transport's timer queue, as its delays are.
///
/// What the client sees of each end: the stream's end finishes the load; an end without
/// the terminator or a drop fails it with `URLError.networkConnectionLost`, as URLSession
/// reports a body cut short or a reset; a gap with no byte longer than the request's
/// timeout (a stall) fails it with `URLError.timedOut`, URLSession's timeout between
/// bytes. The journal entry's transcript gets every write and the ending.
///
/// A throttled stream (the plan's pacing: a rule's throttle or a network profile) hands
/// each write over in pieces of the pacing's chunk size, its interval apart, as a socket
/// writes a paced body: an event, or a burst of them, then arrives cut at any byte, and
/// every later step comes that much later.
extension MockURLProtocol {
    /// `plan`'s event stream for `request`, after the plan's delay.
    func deliverStream(_ stream: EventStream, plan: ResponsePlan, request: URLRequest, mockRequest: MockRequest, exchange: Exchange) {
        guard let url = request.url, !isCancelled else { return }
        if let failure = InProcessExchange.error(for: plan.fault) {
            // A fault before the head: as for any answer (a hang's end never comes).
            if plan.fault != .hang { exchange.finished() }
            fail(URLError(failure))
            return
        }
        var fields: [String: String] = [:]
        for field in plan.headers where field.name.lowercased() != "content-length" { fields[field.name] = field.value }
        guard let response = HTTPURLResponse(url: url, statusCode: plan.status, httpVersion: "HTTP/1.1", headerFields: fields) else {
            exchange.finished()
            fail(URLError(.badServerResponse))
            return
        }
        let playback = StreamPlayback(exchange: exchange, start: DispatchTime.now(), timeout: timeout(for: request), pacing: plan.pacing)
        self.playback.withLock { $0 = playback }
        onLoadingThread { client in client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed) }
        guard request.httpMethod != "HEAD" else {
            endPlayback(.finished)
            onLoadingThread { client in client.urlProtocolDidFinishLoading(self) }
            return
        }
        let player = EventStreamPlayer(stream: stream, fault: plan.streamFault, lastEventID: mockRequest.headers["Last-Event-ID"])
        play(player, playback, lastByte: 0, lag: 0)
    }

    /// Carries out the player's next step when it is due (`lag` seconds after the
    /// player's time: what paced writes before it took), then the one after.
    private func play(_ player: EventStreamPlayer, _ playback: StreamPlayback, lastByte: TimeInterval, lag: TimeInterval) {
        var player = player
        guard !isCancelled, let step = player.next() else { return }
        let rest = player
        let this = Unchecked(self)
        let due: TimeInterval
        if case .stall(_, nil) = step { due = .infinity } else { due = step.at + lag }
        // No byte for longer than the timeout: URLSession's timeout fires first.
        if due - lastByte > playback.timeout {
            if case .stall = step { playback.record(.sent, .stall, note: Self.stallNote(step)) }
            playback.at(lastByte + playback.timeout) {
                guard this.value.endPlayback(.clientTimedOut) else { return }
                this.value.fail(URLError(.timedOut))
            }
            return
        }
        playback.at(due) {
            guard !this.value.isCancelled else { return }
            switch step {
            case .write(let bytes, _):
                playback.record(.sent, .events, payload: bytes)
                this.value.handOver(playback.pieces(of: bytes)[...], at: due, then: rest, playback, lag: lag)
            case .stall:
                playback.record(.sent, .stall, note: Self.stallNote(step))
                this.value.play(rest, playback, lastByte: lastByte, lag: lag)
            case .end:
                guard this.value.endPlayback(.finished) else { return }
                this.value.onLoadingThread { client in client.urlProtocolDidFinishLoading(this.value) }
            case .endWithoutTerminator:
                guard this.value.endPlayback(.closedWithoutEnd) else { return }
                this.value.fail(URLError(.networkConnectionLost))
            case .drop:
                guard this.value.endPlayback(.reset) else { return }
                this.value.fail(URLError(.networkConnectionLost))
            }
        }
    }

    /// Hands the first of `pieces` over now (at `at`), each next one the pacing's interval
    /// later, then plays on with `rest`.
    private func handOver(_ pieces: ArraySlice<Data>, at: TimeInterval, then rest: EventStreamPlayer, _ playback: StreamPlayback,
                          lag: TimeInterval) {
        guard let piece = pieces.first else { return }
        let this = Unchecked(self)
        onLoadingThread { client in client.urlProtocol(this.value, didLoad: piece) }
        let remaining = pieces.dropFirst()
        guard !remaining.isEmpty, let interval = playback.pacing?.interval else {
            play(rest, playback, lastByte: at, lag: lag)
            return
        }
        // A pause between pieces longer than the timeout: URLSession's timeout fires first.
        guard interval <= playback.timeout else {
            playback.at(at + playback.timeout) {
                guard this.value.endPlayback(.clientTimedOut) else { return }
                this.value.fail(URLError(.timedOut))
            }
            return
        }
        playback.at(at + interval) {
            guard !this.value.isCancelled else { return }
            this.value.handOver(remaining, at: at + interval, then: rest, playback, lag: lag + interval)
        }
    }

    /// Ends the stream being played, once: journals how; false when it had ended already.
    @discardableResult
    func endPlayback(_ how: StreamTranscript.Ending) -> Bool {
        guard let playback = playback.withLock({ current -> StreamPlayback? in
            defer { current = nil }
            return current
        }) else { return false }
        playback.exchange.endStream(how)
        return true
    }

    private static func stallNote(_ step: EventStreamPlayer.Step) -> String {
        guard case .stall(let at, let until) = step else { return "" }
        return until.map { "for \(Int((($0 - at) * 1000).rounded())) ms" } ?? "for ever"
    }
}

/// An event stream being played in process: where it is journaled and when it started.
struct StreamPlayback: Sendable {
    /// The request's passage through the pipeline: the transcript and the end go through it.
    let exchange: Exchange
    /// When the head was handed over: every step's time counts from here.
    let start: DispatchTime
    /// The request's timeout: the longest a client waits for a byte.
    let timeout: TimeInterval
    /// How writes are cut and spaced (nil: each write whole).
    let pacing: BodyPacing?

    /// `bytes` as the pacing hands them over: pieces of its chunk size, or whole.
    func pieces(of bytes: Data) -> [Data] {
        guard let size = pacing?.chunkSize, size > 0, bytes.count > size else { return [bytes] }
        return stride(from: 0, to: bytes.count, by: size).map { Data(bytes[bytes.startIndex + $0 ..< bytes.startIndex + min($0 + size, bytes.count)]) }
    }

    /// `work` at `offset` seconds from the start, on the transport's timer queue (never
    /// inline: a long run of events due at once would otherwise nest without end).
    func at(_ offset: TimeInterval, _ work: @escaping @Sendable () -> Void) {
        let nanoseconds = max(0, min(offset, 86_400 * 365)) * 1_000_000_000
        MockURLProtocol.timers.asyncAfter(deadline: start + .nanoseconds(Int(nanoseconds)), execute: work)
    }

    func record(_ direction: StreamTranscript.Direction, _ kind: StreamTranscript.Kind, payload: Data = Data(), note: String? = nil) {
        exchange.record(direction, kind, payload: payload, note: note)
    }
}

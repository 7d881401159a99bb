import Foundation
import MockServer
import Scenarios
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
        let playback = StreamPlayback(exchange: exchange, start: DispatchTime.now(), timeout: timeout(for: request))
        self.playback.withLock { $0 = playback }
        onLoadingThread { client in client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed) }
        guard request.httpMethod != "HEAD" else {
            endPlayback(.finished)
            onLoadingThread { client in client.urlProtocolDidFinishLoading(self) }
            return
        }
        let player = EventStreamPlayer(stream: stream, fault: plan.streamFault, lastEventID: mockRequest.headers["Last-Event-ID"])
        play(player, playback, lastByte: 0)
    }

    /// Carries out the player's next step when it is due, then the one after.
    private func play(_ player: EventStreamPlayer, _ playback: StreamPlayback, lastByte: TimeInterval) {
        var player = player
        guard !isCancelled, let step = player.next() else { return }
        let rest = player
        let this = Unchecked(self)
        let due: TimeInterval
        if case .stall(_, nil) = step { due = .infinity } else { due = step.at }
        // No byte for longer than the timeout: URLSession's timeout fires first.
        if due - lastByte > playback.timeout {
            if case .stall = step { playback.record(.sent, .stall, note: Self.stallNote(step)) }
            playback.at(lastByte + playback.timeout) {
                guard this.value.endPlayback(.clientTimedOut) else { return }
                this.value.fail(URLError(.timedOut))
            }
            return
        }
        playback.at(step.at) {
            guard !this.value.isCancelled else { return }
            switch step {
            case .write(let bytes, let at):
                playback.record(.sent, .events, payload: bytes)
                this.value.onLoadingThread { client in client.urlProtocol(this.value, didLoad: bytes) }
                this.value.play(rest, playback, lastByte: at)
            case .stall:
                playback.record(.sent, .stall, note: Self.stallNote(step))
                this.value.play(rest, playback, lastByte: lastByte)
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

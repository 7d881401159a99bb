import Foundation
import MockCore
import NIOCore
import NIOHTTP1

/// A scripted event stream on the wire: the head (open-ended: HTTP/1.1 chunked, HTTP/2
/// DATA frames), then each step of an `EventStreamPlayer` when it is due on the event
/// loop's clock (so `EmbeddedEventLoop.advanceTime` drives it in tests), each event
/// flushed as it is written.
///
/// - A network profile's downlink paces each event's bytes as it paces a body, and the
///   next event waits for the last byte of the one before.
/// - A client that stops reading holds the stream: the next event waits until the channel
///   is writable again (NIO's high water mark bounds what is buffered), as a real server
///   blocked on its socket does.
/// - `Last-Event-ID` on the request resumes after that event.
/// - The ends as a client sees them from a real server: `end` is the body's end (the last
///   chunk, END_STREAM) and the connection serves on; `endWithoutTerminator` closes the
///   connection without it (HTTP/2: RST_STREAM CANCEL); `drop` resets the connection
///   (HTTP/2: RST_STREAM INTERNAL_ERROR); a stall for ever keeps it open until the client goes.
///
/// Every write, stall and the ending go to the exchange's transcript; the exchange ends
/// with the stream (`Exchange.endStream`), the client's close included.
extension HTTPConnectionHandler {
    /// The stream being played on this connection (or HTTP/2 stream).
    struct ScriptedStream {
        var player: EventStreamPlayer
        /// The head's time on the loop's clock: every step's offset counts from here.
        let start: NIODeadline
        let keepAlive: Bool
        /// The network profile's downlink, if any.
        let pacing: BodyPacing?
        /// When the last byte written so far went out (a paced event ends later than it began).
        var lastWrite: NIODeadline
        /// The step waiting for its time, cancelled when the client goes.
        var timer: Scheduled<Void>?
        /// `playNextStep` is carrying out steps: a step that asks for the next one from
        /// inside it sets `again`, and the loop goes on, so a run of events already due
        /// costs no stack (an event loop thread's stack is 512 KiB on Apple platforms).
        var driving = false
        var again = false
    }

    /// Plays `plan`'s event stream for `request`.
    func playEventStream(_ plan: ResponsePlan, request: HTTPRequestHead, context: ChannelHandlerContext, keepAlive: Bool) {
        guard let player = EventStreamPlayer(plan: plan, lastEventID: request.headers.first(name: "Last-Event-ID")) else { return }
        var headers = plan.headers
        headers.remove("Content-Length")
        guard request.method != .HEAD else {
            // The head alone, ended as a whole answer ends (HTTP/2: END_STREAM on the HEADERS).
            let exchange = inFlight
            inFlight = nil
            exchange?.endStream(.finished)
            let last = shared.writer.whole(status: plan.status, headers: headers, body: Data(), contentLength: nil, request: request,
                                           keepAlive: keepAlive, cache: nil, context: context)
            send(last, context: context, keepAlive: keepAlive)
            return
        }
        shared.writer.head(status: plan.status, headers: headers, contentLength: nil, request: request, keepAlive: keepAlive, context: context)
        let now = context.eventLoop.now
        scripted = ScriptedStream(player: player, start: now, keepAlive: keepAlive, pacing: plan.pacing, lastWrite: now)
        machine.startStreaming()
        playNextStep(context: context)
    }

    /// Schedules the player's next step at its time (not before the last write went out),
    /// or carries it out now when it is due.
    private func playNextStep(context: ChannelHandlerContext) {
        guard scripted != nil else { return }
        guard scripted?.driving == false else {
            scripted?.again = true
            return
        }
        scripted?.driving = true
        repeat {
            scripted?.again = false
            guard var stream = scripted, let step = stream.player.next() else { break }
            let due = max(stream.start + .nanoseconds(Int64(min(step.at, 86_400 * 365) * 1_000_000_000)), stream.lastWrite)
            if due > context.eventLoop.now {
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                stream.timer = context.eventLoop.scheduleTask(deadline: due) {
                    let (handler, context) = bound.value
                    handler.scripted?.timer = nil
                    handler.carryOut(step, context: context)
                }
                scripted = stream
                break
            }
            scripted = stream
            carryOut(step, context: context)
        } while scripted?.again == true
        scripted?.driving = false
    }

    private func carryOut(_ step: EventStreamPlayer.Step, context: ChannelHandlerContext) {
        guard scripted != nil, context.channel.isActive else { return }
        switch step {
        case .write(let bytes, _):
            whenWritable(context: context) { [self] in
                guard scripted != nil, context.channel.isActive else { return }
                inFlight?.record(.sent, .events, payload: bytes)
                writeEvent(context.channel.allocator.buffer(data: bytes), context: context)
            }
        case .stall(let at, let until):
            inFlight?.record(.sent, .stall, note: until.map { "for \(Int((($0 - at) * 1000).rounded())) ms" } ?? "for ever")
            if until != nil { playNextStep(context: context) }
        case .end:
            context.write(shared.writer.end(context: context), promise: nil)
            endEventStream(.finished, context: context)
        case .endWithoutTerminator:
            endEventStream(.closedWithoutEnd, context: context)
        case .drop:
            endEventStream(.reset, context: context)
        }
    }

    /// Writes one step's bytes, paced by the network profile when there is one, then plays
    /// the next step.
    private func writeEvent(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        var bytes = bytes
        let pacing = scripted?.pacing
        let size = pacing.map { min($0.chunkSize, bytes.readableBytes) } ?? bytes.readableBytes
        guard let chunk = bytes.readSlice(length: size) else { return }
        context.writeAndFlush(shared.writer.part(chunk, last: false, openEnded: true, context: context), promise: nil)
        guard let pacing, bytes.readableBytes > 0 else {
            scripted?.lastWrite = context.eventLoop.now
            playNextStep(context: context)
            return
        }
        let rest = bytes
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let timer = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(pacing.interval * 1_000_000_000))) {
            let (handler, context) = bound.value
            handler.scripted?.timer = nil
            guard handler.scripted != nil, context.channel.isActive else { return }
            handler.whenWritable(context: context) {
                handler.writeEvent(rest, context: context)
            }
        }
        scripted?.timer = timer
    }

    /// Ends the stream being played `how`: the transcript notes it, the exchange ends, and
    /// the connection goes on (`finished`) or closes as the ending says.
    func endEventStream(_ how: StreamTranscript.Ending, context: ChannelHandlerContext) {
        guard let stream = scripted else { return }
        stream.timer?.cancel()
        scripted = nil
        let exchange = inFlight
        inFlight = nil
        exchange?.endStream(how)
        switch how {
        case .finished:
            context.flush()
            answerEnded(context: context, keepAlive: stream.keepAlive)
        case .closedWithoutEnd, .reset:
            machine.closeAfterAnswer()
            clock?.stop()
            _ = shared.writer.cut(reset: how == .reset, context: context)
        case .clientClosed, .clientTimedOut:
            break
        }
    }
}

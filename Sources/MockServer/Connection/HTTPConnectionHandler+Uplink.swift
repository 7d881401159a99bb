import Foundation
import MockAdmin
import MockCore
import NIOCore
import NIOHTTP1

/// The uplink of a network profile: a request body is read no faster than the profile
/// carries it. Reads are held while the body is ahead of its schedule (TCP's own flow
/// control then slows the client), and the request is answered only once the uplink
/// would have delivered its last byte: an upload takes the profile's time, never less.
struct UploadPace {
    let start: NIODeadline
    /// Nanoseconds per byte (time-scaled).
    let nanosecondsPerByte: Double
    var bytes = 0

    /// When the bytes read so far would have arrived.
    var due: NIODeadline { start + .nanoseconds(Int64(Double(bytes) * nanosecondsPerByte)) }
}

extension HTTPConnectionHandler {
    /// The pace of `head`'s body, when its network profile limits the uplink (admin calls
    /// are never slowed).
    /// `mayCarryBody`: the head has `Content-Length` or `Transfer-Encoding`, or opened an
    /// HTTP/2 stream it did not end.
    func uploadPace(for head: HTTPRequestHead, mayCarryBody: Bool, context: ChannelHandlerContext) -> UploadPace? {
        // Only a body is paced: a request without one (most GETs) has nothing to carry,
        // and its profile is not looked up (otherwise a lookup per HTTP/2 stream).
        guard mayCarryBody, !AdminAPI.handles(target: head.uri) else { return nil }
        // The two fields a profile is chosen by, read in place rather than converting all
        // the head's headers: an HTTP/2 stream may always have a body, so this runs per stream.
        let network = shared.engine.network.resolve(named: head.headers.first(name: NetworkConditions.header),
                                                    session: head.headers.first(name: ScenarioEngine.sessionHeader))
        guard case .success(let profile?) = network,
              let rate = profile.uplinkBitsPerSecond, rate > 0 else { return nil }
        let perByte = 8 / Double(rate) * 1e9 * shared.engine.configuration.timeScale
        return UploadPace(start: context.eventLoop.now, nanosecondsPerByte: perByte)
    }

    /// A connection's first answer under a profile also waits for the DNS lookup and the
    /// TCP handshake.
    func addConnectionSetup(to plan: inout ResponsePlan) {
        guard firstOnConnection, let profile = plan.network else { return }
        plan.delay += profile.connectionSetup(timeScale: shared.engine.configuration.timeScale)
    }

    /// Counts `bytes` of body against the uplink; ahead of schedule, reading stops until
    /// the schedule catches up.
    func paceUpload(bytes: Int, context: ChannelHandlerContext) {
        guard var pace = upload else { return }
        pace.bytes += bytes
        upload = pace
        let due = pace.due
        guard !machine.uplinkHeld, due > context.eventLoop.now + .milliseconds(1) else { return }
        _ = machine.holdUplink(true)
        clock?.bodyHeld()
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(deadline: due) {
            let (handler, context) = bound.value
            handler.releaseUpload(context: context)
        }
    }

    private func releaseUpload(context: ChannelHandlerContext) {
        guard machine.uplinkHeld else { return }
        let read = machine.holdUplink(false)
        guard context.channel.isActive else { return }
        if case .receiving = machine.state { clock?.bodyResumed() }
        if read == .read { context.read() }
    }

    /// The body is complete before the uplink could have carried it: answered at its due time.
    func awaitUpload(context: ChannelHandlerContext) {
        guard let due = upload?.due else { return }
        clock?.bodyHeld()
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(deadline: due) {
            let (handler, context) = bound.value
            guard context.channel.isActive else { return }
            handler.act(on: handler.machine.uplinkCarried(), context: context)
        }
    }
}

import NIOCore
import Scenarios

/// Knows every open connection so a stopping server can close them all.
///
/// Not a pipeline handler: a handler sees every read of every request pass by, and this
/// only needs to know when a connection opens and closes.
final class ConnectionTracker: Sendable {
    private let open = Locked([ObjectIdentifier: any Channel]())

    /// Tracks `channel` until it closes, unless `limit` connections are open already.
    func track(_ channel: any Channel, limit: Int = .max) -> Bool {
        let key = ObjectIdentifier(channel)
        let tracked = open.withLock { open -> Bool in
            guard open.count < limit else { return false }
            open[key] = channel
            return true
        }
        guard tracked else {
            refusedCount.withLock { $0 += 1 }
            return false
        }
        channel.closeFuture.whenComplete { [open] _ in
            open.withLock { _ = $0.removeValue(forKey: key) }
        }
        return true
    }

    var count: Int { open.withLock { $0.count } }

    /// Connections refused for being past the limit.
    private let refusedCount = Locked(0)
    var refused: Int { refusedCount.withLock { $0 } }

    /// Asks every connection to finish its response and close; waits until all are
    /// closed or `grace` passes, then closes the rest.
    func stopAll(grace: TimeAmount) async {
        let channels = open.withLock { Array($0.values) }
        guard !channels.isEmpty else { return }
        for channel in channels {
            // NIO's quiesce event: HTTP/1.1 handlers finish their response and close; the
            // HTTP/2 multiplexer passes it to every stream, and HTTP2GracefulClose sends GOAWAY.
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        // Done when the last one closes (idle ones close at once), not on a polling tick:
        // a test's server stops in microseconds, not 10 ms.
        let closed = EventLoopFuture.andAllComplete(channels.map(\.closeFuture), on: channels[0].eventLoop)
        let finished = closed.eventLoop.makePromise(of: Void.self)
        let done = Locked(false)
        let finish: @Sendable () -> Void = {
            if done.withLock({ done in defer { done = true }; return !done }) { finished.succeed(()) }
        }
        closed.whenComplete { _ in finish() }
        let timer = closed.eventLoop.scheduleTask(in: grace) { finish() }
        try? await finished.futureResult.get()
        timer.cancel()
        await closeAll()
    }

    /// Closes every connection at once, and returns when all are closed.
    func closeAll() async {
        let channels = open.withLock { Array($0.values) }
        guard let first = channels.first else { return }
        for channel in channels { channel.close(promise: nil) }
        try? await EventLoopFuture.andAllComplete(channels.map(\.closeFuture), on: first.eventLoop).get()
    }
}

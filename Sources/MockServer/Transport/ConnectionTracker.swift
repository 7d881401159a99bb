import MockCore
import NIOCore

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
        try? await stop(grace: grace)?.get()
    }

    /// `stopAll(grace:)` as a future on the first connection's event loop, whose clock
    /// times the grace (an `EmbeddedEventLoop`'s own in tests): it succeeds once every
    /// connection is closed. Nil when none is open.
    func stop(grace: TimeAmount) -> EventLoopFuture<Void>? {
        let channels = open.withLock { Array($0.values) }
        guard let loop = channels.first?.eventLoop else { return nil }
        for channel in channels {
            // NIO's quiesce event: HTTP/1.1 handlers finish their response and close; the
            // HTTP/2 multiplexer passes it to every stream, and HTTP2GracefulClose sends GOAWAY.
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        // Done when the last one closes (idle ones close at once), not on a polling tick:
        // a test's server stops in microseconds, not 10 ms.
        let closed = EventLoopFuture.andAllComplete(channels.map(\.closeFuture), on: loop)
        let finished = loop.makePromise(of: Void.self)
        let done = Locked(false)
        let finish: @Sendable () -> Void = {
            if done.withLock({ done in defer { done = true }; return !done }) { finished.succeed(()) }
        }
        closed.whenComplete { _ in finish() }
        let timer = loop.scheduleTask(in: grace) { finish() }
        return finished.futureResult.flatMap { [open] in
            timer.cancel()
            // Past the grace (or all closed already): close what is left, and wait for it.
            let rest = open.withLock { Array($0.values) }
            for channel in rest { channel.close(promise: nil) }
            return EventLoopFuture.andAllComplete(rest.map(\.closeFuture), on: loop)
        }
    }
}

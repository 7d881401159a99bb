import NIOCore
import Scenarios

/// Knows every open connection so a stopping server can close them all.
///
/// Not a pipeline handler: a handler sees every read of every request pass by, and this
/// only needs to know when a connection opens and closes (#7).
final class ConnectionTracker: Sendable {
    private let open = Locked([ObjectIdentifier: any Channel]())

    /// Tracks `channel` until it closes.
    func track(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        open.withLock { $0[key] = channel }
        channel.closeFuture.whenComplete { [open] _ in
            open.withLock { _ = $0.removeValue(forKey: key) }
        }
    }

    var count: Int { open.withLock { $0.count } }

    func closeAll() async {
        let channels = open.withLock { Array($0.values) }
        for channel in channels {
            try? await channel.close()
        }
    }
}

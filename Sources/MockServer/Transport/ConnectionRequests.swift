import Scenarios

/// What the requests of one connection share (one handler per HTTP/2 stream).
final class ConnectionRequests {
    /// This connection's number among the process's (`ConnectionRef.id`).
    let id = ConnectionRequests.next.withLock { next -> UInt64 in
        defer { next += 1 }
        return next
    }
    @exclusivity(unchecked) var begun = 0
    /// The last `Host` header and the base URL made from it: a connection's client names
    /// the same host on every request, and every stream of an HTTP/2 connection.
    @exclusivity(unchecked) var lastBaseURL: (host: String, baseURL: String)?
    /// The header lines last written on this connection (HTTP/1.1).
    @exclusivity(unchecked) var headerLines = HeaderLinesCache()
    init() {}

    private static let next = Locked<UInt64>(1)
}

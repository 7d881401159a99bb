import NIOCore

/// What one connection may cost, and how long it may take to say what it wants.
/// Every limit has a default a normal client never meets; `mock-server --help` and the
/// README's "Limits" table list them.
public struct ConnectionLimits: Sendable, Equatable {
    /// A keep-alive connection with no request under way is closed after this long; a
    /// request body that stops arriving for this long gets 408 and the connection closes.
    public var idleTimeout: TimeAmount
    /// From a request's first byte to the end of its head (request line and headers):
    /// a client that sends its head slowly (slowloris) gets 408 and the connection closes.
    public var headTimeout: TimeAmount
    /// The most bytes a request head (request line and headers) may have; past it, 431.
    public var maxHeadSize: Int
    /// Open connections at once; a connection past it gets a 503 and is closed.
    public var maxConnections: Int
    /// Outbound bytes NIO may hold for one connection before the server stops producing
    /// for it (the high water mark); production resumes below `writeBufferLow`.
    public var writeBufferHigh: Int
    /// Production for a connection resumes when its outbound bytes fall below this (the low water mark).
    public var writeBufferLow: Int
    /// How long a stopping server lets responses under way finish before cutting them.
    public var shutdownGrace: TimeAmount

    /// Makes limits; every default is one a normal client never meets.
    public init(idleTimeout: TimeAmount = .seconds(60), headTimeout: TimeAmount = .seconds(10), maxHeadSize: Int = 32 * 1024,
                maxConnections: Int = 4_096, writeBufferHigh: Int = 64 * 1024, writeBufferLow: Int = 32 * 1024,
                shutdownGrace: TimeAmount = .seconds(1)) {
        self.idleTimeout = idleTimeout
        self.headTimeout = headTimeout
        self.maxHeadSize = maxHeadSize
        self.maxConnections = maxConnections
        self.writeBufferHigh = writeBufferHigh
        self.writeBufferLow = writeBufferLow
        self.shutdownGrace = shutdownGrace
    }

    /// The limits a server has unless told otherwise.
    public static let `default` = ConnectionLimits()
}

/// Told to the request handler by `ConnectionClock` (a user inbound event).
enum ConnectionClockEvent {
    /// Nothing arrived for the idle timeout: with no request under way, close.
    case idle
    /// A request body stalled for the idle timeout.
    case bodyStalled
    /// The request head did not complete within the head timeout.
    case headTimedOut
    /// The request head passed `maxHeadSize` bytes.
    case headTooLarge(limit: Int)
}

import Foundation

/// How long to wait before the first byte of a response. Each meaning is its own case;
/// times are in seconds.
public enum Latency: Sendable, Hashable {
    /// Always this many seconds.
    case fixed(TimeInterval)
    /// Uniformly distributed in `min...max`.
    case uniform(min: TimeInterval, max: TimeInterval)
    /// Log-normal with the given median and shape: most responses near the median, a long
    /// tail of slow ones (WireMock's and real networks' shape).
    case lognormal(median: TimeInterval, sigma: Double)

    /// The delay when it needs no random draw (a fixed latency); nil otherwise.
    public var constant: TimeInterval? {
        guard case .fixed(let seconds) = self else { return nil }
        return max(0, seconds)
    }

    /// A delay drawn with `random`; always zero or more.
    public func sample(_ random: inout SeededRandom) -> TimeInterval {
        switch self {
        case .fixed(let seconds):
            return max(0, seconds)
        case .uniform(let low, let high):
            return max(0, low + (high - low) * random.nextUnit())
        case .lognormal(let median, let sigma):
            return max(0, median * exp(sigma * Self.standardNormal(&random)))
        }
    }

    /// Box–Muller: a standard normal deviate from two uniform ones.
    static func standardNormal(_ random: inout SeededRandom) -> Double {
        let u1 = max(random.nextUnit(), .leastNonzeroMagnitude)
        let u2 = random.nextUnit()
        return sqrt(-2 * log(u1)) * cos(2 * .pi * u2)
    }
}

/// How the body goes out once it starts.
public enum Throttle: Sendable, Hashable {
    /// At most this many bytes per second, written in chunks of `chunkSize` bytes.
    case bytesPerSecond(Int, chunkSize: Int)
    /// The body split into `chunks` pieces spread evenly over `duration` seconds.
    case dribble(duration: TimeInterval, chunks: Int)

    /// The body's pieces and the pause before each after the first, scaled by `timeScale`.
    public func schedule(bodySize: Int, timeScale: Double) -> (chunkSize: Int, interval: TimeInterval) {
        switch self {
        case .bytesPerSecond(let rate, let chunkSize):
            let size = max(1, chunkSize)
            return (size, Double(size) / Double(max(1, rate)) * timeScale)
        case .dribble(let duration, let chunks):
            let count = max(1, chunks)
            let size = max(1, (bodySize + count - 1) / count)
            return (size, duration / Double(count) * timeScale)
        }
    }
}

/// A transport fault, carried out at the socket by the transport: what a real client
/// sees from a broken network or server.
public enum Fault: String, Sendable, CaseIterable, Hashable {
    /// The connection is reset (TCP RST) without a response.
    case connectionReset
    /// The connection closes without a single byte.
    case emptyResponse
    /// A chunked response whose chunk framing is invalid, then close.
    case malformedChunk
    /// Random bytes (not HTTP), then close.
    case randomDataThenClose
    /// Headers promise a Content-Length; half the body is sent, then close.
    case truncatedBody
    /// Nothing is ever sent; the connection stays open until the client gives up.
    case hang
}

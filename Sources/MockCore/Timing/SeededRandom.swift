import Foundation

/// A seeded generator (SplitMix64): the same seed gives the same sequence on every
/// platform and every run. Anything random in the engine draws from one of these.
public struct SeededRandom: RandomNumberGenerator, Sendable, Codable, Equatable {
    private var state: UInt64

    /// Makes a generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// A generator for one stream (a route, a rule) derived from a seed, so each stream's
    /// sequence does not depend on how requests to other streams interleave.
    public init(seed: UInt64, stream: String) {
        self.init(seed: seed ^ StableHash.fnv1a64(stream))
    }

    /// The next value of the sequence (SplitMix64).
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A generator of its own, seeded from this one's next draw.
    public mutating func split() -> SeededRandom { SeededRandom(seed: next()) }

    /// A double in [0, 1).
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }
}

/// Hashes that are the same in every process (Swift's `Hasher` is seeded per process).
package enum StableHash {
    /// The 64-bit FNV-1a hash of `text`'s UTF-8.
    public static func fnv1a64<S: StringProtocol>(_ text: S) -> UInt64 {
        fnv1a64(bytes: text.utf8)
    }

    /// The 64-bit FNV-1a hash of `bytes`.
    public static func fnv1a64<C: Sequence>(bytes: C) -> UInt64 where C.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// The same hash over `Data`'s bytes in place: `Data`'s iterator costs several times
    /// more per byte, and start-up hashes every image for its ETag.
    public static func fnv1a64(bytes data: Data) -> UInt64 {
        data.withUnsafeBytes { raw in fnv1a64(bytes: raw) }
    }

    /// `value` as 16 lower-case hex digits, zero-padded.
    public static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
